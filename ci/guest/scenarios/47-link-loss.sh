# 5% of what vb sends is lost (netem) while ib_write_bw runs rxe0 -> rxe1:
# rxe1's ACKs go missing, rxe0 retransmits after its ACK timeout, rxe1 sees
# the requests twice. The transport counters of both move: link-health WARNs,
# naming them and the usual causes, and FAILs nothing (the link itself is
# fine).
source "$SHARE/scenarios/probe-lib.bash"
name="netem loss 5% on vb under ib_write_bw: link-health WARN naming the rxe transport counters"
mtu=9000
WBW_PIDS=()
fault() {
  res_begin
  timeout -s KILL 90 ib_write_bw -d rxe1 -x 1 -F -s 4096 -D 20 >"$OUT/scenarios/$scn.server.log" 2>&1 &
  WBW_PIDS+=($!)
  sleep 0.5
  timeout -s KILL 90 ib_write_bw -d rxe0 -x 1 -F -s 4096 -D 20 198.18.0.2 >"$OUT/scenarios/$scn.client.log" 2>&1 &
  WBW_PIDS+=($!)
  if ! wbw_connected; then
    record FAIL "$scn: ib_write_bw client and server connected" "$(tail -3 "$OUT/scenarios/$scn.client.log")"
    wbw_stop
    return 1
  fi
  tc qdisc add dev vb root netem loss 5% || { wbw_stop; return 1; }
  tc_capture
  sleep 1
}
undo() {
  tc qdisc del dev vb root 2>/dev/null
  # What moved, for docs/checks/link-health.md.
  jq -r '.checks[]? | select(.id == "link-health") | .evidence[] | "\(.subject): \(.actual)"' "$json" 2>/dev/null |
    sed 's/^/  link-health: /' | head -20
  wbw_stop
  res_end
}
args=(--checks link-health --window 3)
expect_exit 0
expect link-health WARN 'packets were lost or late'
expect link-health WARN 'tc qdisc show dev'
