# nftables drops UDP 4791: the bandwidth run's WRITEs are never acked. It
# must end within its deadline (the transport's retries give up after 7 x
# ~67 ms, with 2 s as the bound when nothing completes at all), then
# hung-qp's exchange tells why: FAIL as a blocked path with the nft remedy,
# nothing hung, nothing left behind.
name="nftables drops UDP 4791: bandwidth FAIL as a blocked path, within its deadline"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
fault() { res_begin; nft_drop_roce; }
# Two connection setups (about 1 s each under TCG), the run's retries or its
# 2 s deadline, the exchange's retries: under 6 s.
undo() { nft delete table inet rdmacheck_fault; res_end; expect_seconds bandwidth 6; }
args=(--plan "$FIXTURES/plans/rxe_guest_perf.plan" -d rxe0 --checks bandwidth)
expect_exit 1
expect bandwidth FAIL 'rxe0 -> rxe1 bandwidth run'
expect bandwidth FAIL 'path blocked'
expect bandwidth FAIL 'nft list ruleset | grep 4791'
