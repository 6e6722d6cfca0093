# Peer mode with nftables dropping RoCE v2 (UDP 4791) on the far end's
# side: the side channel (TCP 18516) still works, so peer-match PASSes, but
# hung-qp across the link FAILs as a blocked path: this end's packets go out
# (sent_pkts up), the far end receives none, the send ends in "transport
# retry counter exceeded" within the 2 s deadline.
source "$SHARE/scenarios/probe-lib.bash"
source "$SHARE/scenarios/peer-lib.bash"
name="peer mode: nftables drops UDP 4791, hung-qp across the link FAILs as a blocked path"
mtu=9000
fault() { res_begin; nft_drop_roce && serve_start; }
undo() {
  serve_end 0 'verdict: FAIL hung-qp'
  nft delete table inet rdmacheck_fault
  res_end
  expect_seconds hung-qp 2.2
}
args=(--peer 198.18.0.2 -d rxe0 --checks hung-qp)
expect_exit 1
expect peer-match PASS '4096 / 4096'
expect hung-qp FAIL 'rxe0 -> rxe1@198.18.0.2'
expect hung-qp FAIL 'path blocked'
expect hung-qp FAIL 'transport retry counter exceeded'
