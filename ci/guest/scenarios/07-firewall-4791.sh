# nftables drops RoCE v2 (UDP 4791) between the two devices: rxe0 -> rxe1
# traffic is lost and, at retry_cnt 7, a QP hangs silently. firewall-4791 reads
# the live ruleset and names the rule; hung-qp (a traffic probe with a
# deadline) sees the hang.
name="nftables drops UDP 4791 between rxe0 and rxe1"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
fault() { res_begin; nft_drop_roce; }
# hung-qp must end within its 2 s deadline plus 10%.
undo() { nft delete table inet rdmacheck_fault; res_end; expect_seconds hung-qp 2.2; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect firewall-4791 FAIL 'dropped by nft table inet rdmacheck_fault chain in rule 1'
expect firewall-4791 FAIL 'chain in rule 1 (handle '  # read from nft -j list ruleset
expect firewall-4791 FAIL 'nft insert rule inet rdmacheck_fault in iifname'
expect rxe-setup PASS
expect hung-qp FAIL 'path blocked'
expect hung-qp FAIL 'transport retry counter exceeded'
expect hung-qp FAIL 'nft list ruleset | grep 4791'
expect port-active PASS
