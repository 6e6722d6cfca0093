# peer-lib.bash: helpers for the peer-mode scenarios, sourced by
# them (not a scenario: the runner only runs *.sh). `rdmacheck serve --once`
# on rxe1 (198.18.0.2) in the background is the far end; the scenario's
# rdmacheck run is `--peer 198.18.0.2 -d rxe0`. Called from fault()/undo(),
# so they see run_scenario's $scn and $json.
#
#   fault() { res_begin; serve_start; }
#   undo()  { serve_end 0 'verdict: PASS peer-match'; res_end; }

# serve_start [CMD...]: the far end, bounded (--wait, --client-deadline,
# timeout); returns once it listens (its first line), within 30 s. CMD runs
# rdmacheck in its place (a container engine's run line); the default is the
# guest's own binary.
serve_start() {
  SERVE_LOG=$OUT/scenarios/$scn.serve.log
  local cmd=("$@")
  ((${#cmd[@]})) || cmd=("$RDMACHECK")
  timeout -k 5 150 "${cmd[@]}" serve --once -d rxe1 --bind 198.18.0.2 --wait 120 --client-deadline 100 \
    >"$SERVE_LOG" 2>&1 &
  SERVE_PID=$!
  local i
  for ((i = 0; i < 150; i++)); do
    grep -q '^rdmacheck serve: rxe1 on 198.18.0.2:18516' "$SERVE_LOG" && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || break
    sleep 0.2
  done
  record FAIL "$scn: rdmacheck serve listens on 198.18.0.2:18516" "$(head -c 300 "$SERVE_LOG")"
  return 1
}

# serve_end CODE [SUBSTRING]: serve --once exits CODE after its one client,
# and its log holds SUBSTRING (what the far end saw).
serve_end() {
  local want=$1 sub=${2:-} rc=0
  wait "$SERVE_PID" || rc=$?
  sed 's/^/  serve: /' "$SERVE_LOG" | head -20
  if [[ "$rc" == "$want" ]]; then
    record PASS "$scn: rdmacheck serve --once exits $want after one client"
  else
    record FAIL "$scn: rdmacheck serve --once exits $want after one client" "exit $rc"
  fi
  if [[ -n "$sub" ]]; then
    if grep -qF -- "$sub" "$SERVE_LOG"; then
      record PASS "$scn: the far end's log has '$sub'"
    else
      record FAIL "$scn: the far end's log has '$sub'" "$(tail -c 300 "$SERVE_LOG")"
    fi
  fi
}
