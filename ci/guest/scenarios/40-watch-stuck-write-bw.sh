# `rdmacheck watch` on a stuck application: ib_write_bw rxe0 -> rxe1 over
# the veth (198.18.0.1 -> 198.18.0.2, GID 1), then nftables drops UDP 4791.
# The client's QP retries forever (perftest uses retry_cnt 7), nothing
# reaches the server's QP: watch, two samples 1 s apart, must flag the
# ib_write_bw QPs. Before the rule, a watch of the running transfer flags
# none of them. The dumps are kept for fixtures/watch/.
source "$SHARE/scenarios/probe-lib.bash"
name="watch flags the QPs of an ib_write_bw stuck behind an nftables drop of UDP 4791"
mtu=9000
WBW_PIDS=()

# wbw_rts N: N ib_write_bw QPs are in RTS within 30 s (connection setup is
# slow under TCG emulation).
wbw_rts() {
  local i
  for ((i = 0; i < 300; i++)); do
    [[ $(rdma -j res show qp 2>/dev/null | jq '[.[] | select(.comm == "ib_write_bw" and .state == "RTS")] | length') -ge $1 ]] && return 0
    sleep 0.1
  done
  return 1
}

fault() {
  res_begin
  timeout -s KILL 120 ib_write_bw -d rxe1 -x 1 -F -D 60 >"$OUT/scenarios/$scn.server.log" 2>&1 &
  WBW_PIDS+=($!)
  sleep 1
  timeout -s KILL 120 ib_write_bw -d rxe0 -x 1 -F -D 60 198.18.0.2 >"$OUT/scenarios/$scn.client.log" 2>&1 &
  WBW_PIDS+=($!)
  if ! wbw_rts 2; then
    record FAIL "$scn: ib_write_bw QPs reach RTS" "$(tail -3 "$OUT/scenarios/$scn.client.log")"
    return 1
  fi
  sleep 2
  # The healthy transfer, for the fixture and as a control.
  rdma -j -d res show qp >"$OUT/scenarios/$scn.healthy-1.json"
  sleep 1
  rdma -j -d res show qp >"$OUT/scenarios/$scn.healthy-2.json"
  local hj=$OUT/scenarios/$scn.healthy-watch.json
  timeout 30 "$RDMACHECK" watch --count 2 --interval 1 --format json >"$hj" 2>&1
  local n
  n=$(jq '[.qps[] | select(.comm == "ib_write_bw" and .flag != "")] | length' "$hj" 2>/dev/null)
  if [[ "$n" == 0 ]]; then
    record PASS "$scn: watch flags no QP of the running ib_write_bw"
  else
    record FAIL "$scn: watch flags no QP of the running ib_write_bw" \
      "$(jq -c '[.qps[] | select(.comm == "ib_write_bw") | [.dev, .lqpn, .flag, .sq_psn, .rq_psn]]' "$hj" 2>&1 | head -c 300)"
  fi
  nft_drop_roce || return 1
  sleep 2
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
  if jq -e '[.qps[] | select(.comm == "ib_write_bw" and .dev == "rxe1" and .flag == "no-progress")] | length == 1' "$json" >/dev/null 2>&1; then
    record PASS "$scn: the server's QP on rxe1 is flagged no-progress"
  else
    record FAIL "$scn: the server's QP on rxe1 is flagged no-progress" \
      "$(jq -c '[.qps[] | select(.comm == "ib_write_bw")]' "$json" 2>&1 | head -c 400)"
  fi
  "$RDMACHECK" watch --count 2 --interval 0.5 >"$OUT/scenarios/$scn.watch.txt" 2>&1
  sed 's/^/  watch: /' "$OUT/scenarios/$scn.watch.txt" | head -20
  local p
  # $! is timeout's pid: TERM is passed on to ib_write_bw; then make sure.
  for p in "${WBW_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${WBW_PIDS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  for p in "${WBW_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  WBW_PIDS=()
  nft delete table inet rdmacheck_fault
  res_end
}
args=(watch --count 2 --interval 1)
expect_exit 1
