# Peer mode on the healthy pair: `rdmacheck serve --once -d rxe1 --bind
# 198.18.0.2` is the far end, `rdmacheck --peer 198.18.0.2 -d rxe0` this
# one. The two exchange profiles over TCP, agree on link layer, MTU (4096 /
# 4096 at netdev MTU 9000), GID type and subnet, then hung-qp and
# sge-page-crossing run rxe0 -> rxe1 across the side channel: the far end
# posts the receives and checks every byte. Both ends report PASS.
source "$SHARE/scenarios/probe-lib.bash"
source "$SHARE/scenarios/peer-lib.bash"
name="peer mode rxe0 -> serve on rxe1 (198.18.0.2), healthy"
mtu=9000
fault() { res_begin; serve_start; }
undo() { serve_end 0 'this end verdict: PASS peer-match'; res_end; }
args=(--peer 198.18.0.2 -d rxe0 --checks hung-qp,sge-page-crossing)
expect_exit 0
expect peer-match PASS 'rxe0 (this host) and rxe1 on 198.18.0.2 agree'
expect peer-match PASS '4096 / 4096'
expect peer-match PASS 'RoCEv2 / RoCEv2'
expect peer-match PASS '198.18.0.0/24 / 198.18.0.0/24'
expect peer-match PASS 'far end 198.18.0.2: PASS peer-match'
expect hung-qp PASS 'rxe0 -> rxe1@198.18.0.2'
expect hung-qp PASS 'verified'
expect sge-page-crossing PASS 'completed and verified'
