# The healthy pair under rxe_guest_perf.plan ([perf] at least 0.07 Gb/s WRITE
# bandwidth, at most 1 ms WRITE latency): bandwidth and latency PASS with
# their figures. ib_write_bw runs first over the same pair, and both figures
# are printed side by side (the perf step compares them properly).
name="healthy pair: bandwidth and latency PASS, beside ib_write_bw's figure"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
fault() {
  res_begin
  timeout -s KILL 60 ib_write_bw -d rxe1 -x 1 -F -D 2 --report_gbits >/dev/null 2>&1 &
  local srv=$! i
  for ((i = 0; i < 400; i++)); do ss -ltn 2>/dev/null | grep -q ':18515 ' && break; sleep 0.02; done
  WBW_LINE=$(timeout -s KILL 60 ib_write_bw -d rxe0 -x 1 -F -D 2 --report_gbits 198.18.0.2 2>&1 |
             awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { l = $0 } END { print l }')
  wait "$srv" 2>/dev/null
  return 0
}
undo() {
  res_end
  echo "  ib_write_bw -D 2 (just before): $WBW_LINE"
  show_actual bandwidth
  show_actual latency
}
args=(--plan "$FIXTURES/plans/rxe_guest_perf.plan" -d rxe0 --checks bandwidth,latency)
expect_exit 0
expect bandwidth PASS 'rxe0 -> rxe1 RDMA WRITE bandwidth'
expect bandwidth PASS 'rxe_guest_perf.plan:34 min_write_bw_gbps'
expect bandwidth PASS 'messages'
expect latency PASS 'rxe0 -> rxe1 RDMA WRITE latency (median)'
expect latency PASS 'rxe_guest_perf.plan:35 max_write_lat_us'
