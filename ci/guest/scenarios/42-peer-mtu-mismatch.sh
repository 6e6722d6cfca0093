# Peer mode with the netdev MTUs differing between the two ends: va (rxe0,
# this end) at 9000, vb (rxe1, the far end) at 1500, so rxe0's active_mtu is
# 4096 and rxe1's 1024. peer-match FAILs naming both values; the far end
# says FAIL too, from its side.
source "$SHARE/scenarios/probe-lib.bash"
source "$SHARE/scenarios/peer-lib.bash"
name="peer mode: netdev MTU 9000 here, 1500 on the far end"
mtu=9000
fault() {
  res_begin
  ip link set vb mtu 1500 || return 1
  local i
  for ((i = 0; i < 50; i++)); do
    ibv_devinfo -d rxe1 2>/dev/null | grep -q 'active_mtu:.*1024' && break
    sleep 0.2
  done
  serve_start
}
undo() { serve_end 0 'this end verdict: FAIL peer-match'; ip link set vb mtu 9000; res_end; }
args=(--peer 198.18.0.2 -d rxe0 --checks hung-qp)
expect_exit 1
expect peer-match FAIL '4096 / 1024'
expect peer-match FAIL '9000 / 1500'
expect peer-match FAIL 'ip link set dev vb mtu 9000'
expect peer-match FAIL 'far end 198.18.0.2: FAIL peer-match'
