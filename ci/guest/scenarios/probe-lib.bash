# probe-lib.bash: helpers for the traffic-probe scenarios, sourced
# by them (not a scenario itself: the runner only runs *.sh). They are called
# from a scenario's fault() and undo(), which run_scenario calls, so they see
# its locals $scn and $json (bash scoping is dynamic).
#
#   fault() { res_begin; nft_drop_roce; }
#   undo()  { nft delete table inet rdmacheck_fault; res_end; expect_seconds hung-qp 2.2; }

# res_counts (the kernel's per-device pd/cq/qp/mr counts) is in lib.sh: the
# runner checks every scenario with it too.

res_begin() { RES_BEFORE=$(res_counts); }

# show_actual CHECK: the check's evidence (what it measured), one line, for
# the log beside the verdicts.
show_actual() {
  echo "  $1: $(jq -r --arg id "$1" '.checks[] | select(.id == $id) | [.evidence[].actual] | join(" | ")' "$json")"
}

# A qdisc scenario: QDISC_DEV, QDISC (the words after `root`) and SHOW (the
# check whose evidence the log shows) set, then
#   fault() { qdisc_fault; }; undo() { qdisc_undo; }
qdisc_fault() { res_begin; tc qdisc add dev "$QDISC_DEV" root "${QDISC[@]}" && tc_capture; }
qdisc_undo() {
  tc qdisc del dev "$QDISC_DEV" root 2>/dev/null
  res_end
  show_actual "$SHOW"
}

# tc_capture: what tc says of the qdiscs now, JSON and words, kept beside the
# scenario's output (real `tc -j qdisc show` of iproute2 for the qdisc
# fixtures, fixtures/qdisc/).
tc_capture() {
  tc -j qdisc show >"$OUT/scenarios/$scn.tc.json" 2>&1
  tc -s -d -j qdisc show >"$OUT/scenarios/$scn.tc-sd.json" 2>&1
  tc qdisc show >"$OUT/scenarios/$scn.tc.txt" 2>&1
}

# res_end: the counts return to RES_BEFORE within 3 s of rdmacheck's exit
# (the kernel frees a process's objects when its verbs fds close).
res_end() {
  local now i
  if [[ -z "${RES_BEFORE:-}" ]]; then
    record FAIL "$scn: kernel QP/CQ/MR/PD counts back where they started" "no 'rdma res show' output before the run"
    return 0
  fi
  for ((i = 0; i < 30; i++)); do
    now=$(res_counts)
    [[ "$now" == "$RES_BEFORE" ]] && break
    sleep 0.1
  done
  if [[ "$now" == "$RES_BEFORE" ]]; then
    record PASS "$scn: kernel QP/CQ/MR/PD counts back where they started" "$now"
  else
    record FAIL "$scn: kernel QP/CQ/MR/PD counts back where they started" "before: $RES_BEFORE; after: $now"
  fi
}

# expect_seconds ID MAX: check ID decided within MAX seconds of its first
# post: its "seconds" in the JSON report less the connection setup its
# evidence reports ("set up in 1.07 s"). Under TCG emulation connecting two
# rxe devices alone takes ~1 s (address resolution at RTR), which the
# completion deadline does not cover.
expect_seconds() {
  local id=$1 max=$2 s setup
  s=$(jq -r --arg id "$id" '.checks[]? | select(.id == $id) | .seconds' "$json" 2>/dev/null)
  setup=$(jq -r --arg id "$id" '.checks[]? | select(.id == $id) | .evidence[].actual' "$json" 2>/dev/null |
          sed -n 's/.*set up in \([0-9.]*\) s.*/\1/p' | head -1)
  setup=${setup:-0}
  if [[ -n "$s" ]] && awk -v s="$s" -v u="$setup" -v m="$max" 'BEGIN { exit !(s - u <= m) }'; then
    record PASS "$scn: $id within ${max}s of its first post" "${s}s in all, ${setup}s of it connecting"
  else
    record FAIL "$scn: $id within ${max}s of its first post" "${s:-missing}s in all, ${setup}s of it connecting"
  fi
}

# wbw_connected: the kernel's QP dump shows the client's QP in RTS and the
# server's in RTR (perftest's responder stays there), within ~60 s (setup
# is slow under TCG). Not their logs: perftest's stdout to a file is block
# buffered and shows nothing until it exits.
wbw_connected() {
  local i n
  for ((i = 0; i < 120; i++)); do
    n=$(rdma -j res show qp 2>/dev/null |
        jq '[.[] | select(.comm == "ib_write_bw" and (.state == "RTS" or .state == "RTR"))] | length')
    [[ "${n:-0}" -ge 2 ]] && return 0
    sleep 0.3
  done
  return 1
}

# wbw_stop: ends the ib_write_bw runs in WBW_PIDS. $! is timeout's pid: TERM
# is passed on to ib_write_bw; then make sure.
wbw_stop() {
  local p
  for p in "${WBW_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${WBW_PIDS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  for p in "${WBW_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  WBW_PIDS=()
}
