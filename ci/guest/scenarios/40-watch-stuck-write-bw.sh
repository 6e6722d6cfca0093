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

# wbw_connected: both ib_write_bw logs show the QP exchange over TCP
# ("remote address"), within 40 s (setup is slow under TCG emulation).
wbw_connected() {
  local i
  for ((i = 0; i < 200; i++)); do
    grep -q "remote address" "$OUT/scenarios/$scn.server.log" 2>/dev/null &&
      grep -q "remote address" "$OUT/scenarios/$scn.client.log" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

# The rule goes in right after the two QPs are connected, before much data
# has moved: a first run that let the transfer go on for minutes saw the
# client fail with status 9 (remote invalid request) on its own under TCG.
# Duration mode (-D): with -n 200000 both processes were gone right after
# the exchange in two runs, silently.
fault() {
  res_begin
  timeout -s KILL 150 ib_write_bw -d rxe1 -x 1 -F -D 30 >"$OUT/scenarios/$scn.server.log" 2>&1 &
  WBW_PIDS+=($!)
  sleep 0.5
  timeout -s KILL 150 ib_write_bw -d rxe0 -x 1 -F -D 30 198.18.0.2 >"$OUT/scenarios/$scn.client.log" 2>&1 &
  WBW_PIDS+=($!)
  if ! wbw_connected; then
    record FAIL "$scn: ib_write_bw client and server connected" "$(tail -3 "$OUT/scenarios/$scn.client.log")"
    return 1
  fi
  # What the kernel's dump shows of the connected pair (a first run saw
  # only the GSI QPs): summary counts, the dump with and without -d, per
  # link, and the processes' verbs file descriptors.
  {
    echo "# rdma res show"; rdma res show
    echo "# rdma res show qp"; rdma res show qp; echo "rc=$?"
    echo "# rdma -j res show qp"; rdma -j res show qp; echo
    echo "# rdma res show qp link rxe0/1"; rdma res show qp link rxe0/1
    echo "# rdma res show cq"; rdma res show cq
    echo "# rdma res show mr"; rdma res show mr
    echo "# rdma res show pd"; rdma res show pd
    echo "# pids"; pgrep -a ib_write_bw; echo "# res_counts"; res_counts
    for p in $(pgrep ib_write_bw); do echo "# fds of $p"; ls -l /proc/$p/fd | grep -E 'uverbs|infiniband'; done
  } >"$OUT/scenarios/$scn.connected-diag.txt" 2>&1
  rdma -j -d res show qp >"$OUT/scenarios/$scn.connected.json"
  nft_drop_roce || return 1
  # Let the in-flight packets go unanswered: the client now retries forever.
  sleep 3
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
  "$RDMACHECK" watch --count 2 --interval 0.5 >"$OUT/scenarios/$scn.watch.txt" 2>&1
  sed 's/^/  watch: /' "$OUT/scenarios/$scn.watch.txt" | head -20
  # With the rule gone the retries get through: what the dump shows then.
  nft delete table inet rdmacheck_fault
  sleep 2
  rdma -j -d res show qp >"$OUT/scenarios/$scn.unblocked-1.json"
  sleep 1
  rdma -j -d res show qp >"$OUT/scenarios/$scn.unblocked-2.json"
  timeout 30 "$RDMACHECK" watch --count 2 --interval 1 >"$OUT/scenarios/$scn.unblocked-watch.txt" 2>&1
  sed 's/^/  watch after the rule is removed: /' "$OUT/scenarios/$scn.unblocked-watch.txt" | head -20
  local p
  # $! is timeout's pid: TERM is passed on to ib_write_bw; then make sure.
  for p in "${WBW_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${WBW_PIDS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  for p in "${WBW_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  WBW_PIDS=()
  res_end
}
args=(watch --count 2 --interval 1)
expect_exit 1
