# nftables drops RoCE v2 (UDP 4791) between the two devices: rxe0 -> rxe1
# traffic is lost and, at retry_cnt 7, a QP hangs silently. firewall-4791 is
# issue 5, hung-qp (a traffic probe with a deadline) issue 6.
name="nftables drops UDP 4791 between rxe0 and rxe1"
mtu=9000
fault() { nft_drop_roce; }
undo() { nft delete table inet rdmacheck_fault; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
xfail 5 firewall-4791 FAIL '4791'
xfail 6 hung-qp FAIL 'retry'
expect port-active PASS
