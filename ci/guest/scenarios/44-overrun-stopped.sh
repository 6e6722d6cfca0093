# A check forced past its deadline is stopped and releases its verbs
# objects before the next check starts. hung-qp gets --check-deadline 0.6
# (connecting two rxe devices alone takes about 1 s under emulation) with
# UDP 4791 dropped, so it is still connecting or waiting when the deadline
# comes; the runner raises the stop flag, the probe tears its QPs down, and
# only then does cap-readback create its own. A sampler of the kernel's QP
# count proves they never overlap: hung-qp holds 2 QPs (one per device),
# cap-readback 1 at a time, so an overlap would show 3 above the baseline.
source "$SHARE/scenarios/probe-lib.bash"
name="an overrunning probe is stopped and releases its QPs before the next check"
mtu=9000
qp_total() { res_counts | grep -oE 'qp [0-9]+' | awk '{ s += $2 } END { print s + 0 }'; }
fault() {
  res_begin
  nft_drop_roce || return 1
  QP_BASE=$(qp_total)
  : >/tmp/qp-samples
  ( while :; do qp_total >>/tmp/qp-samples; sleep 0.05; done ) &
  SAMPLER=$!
}
undo() {
  kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null
  nft delete table inet rdmacheck_fault
  res_end
  local peak n
  peak=$(sort -n /tmp/qp-samples | tail -1)
  n=$(wc -l </tmp/qp-samples)
  if [[ -n "$peak" ]] && ((n > 5 && peak - QP_BASE <= 2)); then
    record PASS "$scn: the next check ran alone" "peak ${peak} QPs, baseline ${QP_BASE}, ${n} samples"
  else
    record FAIL "$scn: the next check ran alone" "peak ${peak:-none} QPs, baseline ${QP_BASE}, ${n} samples"
  fi
}
args=(-d rxe0 --checks hung-qp,cap-readback --check-deadline 0.6)
expect_exit 0
expect hung-qp WARN 'no answer within its deadline of 0.6 s'
expect hung-qp WARN 'everything it held on the device released before the next check'
expect cap-readback WARN 'created on live rxe0'  # the default plan's 128 WRs are granted as 255: a real verdict, reached
