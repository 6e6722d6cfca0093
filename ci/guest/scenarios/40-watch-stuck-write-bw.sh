# `rdmacheck watch` on a stuck application: ib_write_bw rxe0 -> rxe1 over
# the veth (198.18.0.1 -> 198.18.0.2, GID 1), then nftables drops UDP 4791.
# The client's QP retries forever (perftest uses retry_cnt 7), nothing
# reaches the server's QP: watch, two samples 1 s apart, must flag the
# ib_write_bw QPs. The dumps (stuck, and after the rule is removed) are
# kept for fixtures/watch/.
source "$SHARE/scenarios/probe-lib.bash"
name="watch flags the QPs of an ib_write_bw stuck behind an nftables drop of UDP 4791"
mtu=9000
WBW_PIDS=()

# The rule goes in before the client starts: the QP exchange runs over TCP
# (port 18515) and is not affected, and not one RDMA packet gets through,
# so the client's first WRITEs retry forever. Three earlier runs applied it
# after the two had connected: each time the client failed on its own
# within seconds, "Failed status 9" (remote invalid request) after 2000 to
# 13000 64 KiB WRITEs, before watch could look (rxe under TCG); -s 4096
# -t 16 keeps the traffic after the rule is removed to one packet per WRITE.
# Iteration mode (-n): in duration mode (-D 30) the blocked client gave up
# after 2 s and printed "0 iterations" (perftest's duration timer), so the
# QP was gone before watch looked.
fault() {
  res_begin
  timeout -s KILL 150 ib_write_bw -d rxe1 -x 1 -F -s 4096 -t 16 -n 5000 >"$OUT/scenarios/$scn.server.log" 2>&1 &
  WBW_PIDS+=($!)
  nft_drop_roce || return 1
  sleep 0.5
  timeout -s KILL 150 ib_write_bw -d rxe0 -x 1 -F -s 4096 -t 16 -n 5000 198.18.0.2 >"$OUT/scenarios/$scn.client.log" 2>&1 &
  WBW_PIDS+=($!)
  if ! wbw_connected; then
    record FAIL "$scn: ib_write_bw client and server connected" "$(tail -3 "$OUT/scenarios/$scn.client.log")"
    return 1
  fi
  # The client posts, nothing is acknowledged: it now retries forever.
  sleep 2
  {
    echo "# rdma res show"; rdma res show
    echo "# rdma res show qp"; rdma res show qp
    echo "# pids"; pgrep -a ib_write_bw
  } >"$OUT/scenarios/$scn.stuck-diag.txt" 2>&1
  rdma -j -d res show qp >"$OUT/scenarios/$scn.stuck-1.json"
  sleep 1
  rdma -j -d res show qp >"$OUT/scenarios/$scn.stuck-2.json"
}

undo() {
  local flagged
  flagged=$(jq -r '[.qps[] | select(.comm == "ib_write_bw" and .flag != "") | "\(.dev) qp \(.lqpn) \(.flag)"] | join(", ")' "$json" 2>/dev/null)
  if [[ -n "$flagged" ]]; then
    record PASS "$scn: watch flags the stuck ib_write_bw QPs" "$flagged"
  else
    record FAIL "$scn: watch flags the stuck ib_write_bw QPs" "$(head -c 400 "$json")"
  fi
  if jq -e '[.qps[] | select(.comm == "ib_write_bw" and .dev == "rxe1" and .flag != "")] | length == 1' "$json" >/dev/null 2>&1; then
    record PASS "$scn: the server's QP on rxe1 is flagged"
  else
    record FAIL "$scn: the server's QP on rxe1 is flagged" \
      "$(jq -c '[.qps[] | select(.comm == "ib_write_bw")]' "$json" 2>&1 | head -c 400)"
  fi
  if jq -e '[.qps[] | select(.comm == "ib_write_bw" and .dev == "rxe0" and (.reason | test("packets sent that its peer rxe1/1 qp [0-9]+ \\(on this host\\) has not received")))] | length == 1' "$json" >/dev/null 2>&1; then
    record PASS "$scn: the client's QP shows the packets rxe1 never received" \
      "$(jq -r '.qps[] | select(.comm == "ib_write_bw" and .dev == "rxe0") | .unreceived_packets' "$json") packets"
  else
    record FAIL "$scn: the client's QP shows the packets rxe1 never received" \
      "$(jq -c '[.qps[] | select(.comm == "ib_write_bw") | .reason]' "$json" 2>&1 | head -c 400)"
  fi
  local t0
  t0=$(uptime_s)
  "$RDMACHECK" watch --count 2 --interval 1 >"$OUT/scenarios/$scn.watch.txt" 2>&1
  echo "TIME: watch --count 2 --interval 1 took $(seconds_since "$t0")s"
  t0=$(uptime_s)
  rdma -j -d res show qp >/dev/null
  echo "TIME: one rdma -j -d res show qp took $(seconds_since "$t0")s"
  sed 's/^/  watch: /' "$OUT/scenarios/$scn.watch.txt" | head -20
  # With the rule gone the retries get through: what the dump shows then.
  nft delete table inet rdmacheck_fault
  sleep 2
  rdma -j -d res show qp >"$OUT/scenarios/$scn.unblocked-1.json"
  sleep 1
  rdma -j -d res show qp >"$OUT/scenarios/$scn.unblocked-2.json"
  timeout 30 "$RDMACHECK" watch --count 2 --interval 1 >"$OUT/scenarios/$scn.unblocked-watch.txt" 2>&1
  sed 's/^/  watch after the rule is removed: /' "$OUT/scenarios/$scn.unblocked-watch.txt" | head -20
  wbw_stop
  res_end
}
args=(watch --count 2 --interval 1)
expect_exit 1
