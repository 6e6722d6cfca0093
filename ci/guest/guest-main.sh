# guest-main.sh: the guest stage's job, run by the guest's init from the host
# share (/mnt/share, laid out by ci/guest/run.sh). Steps, in one boot:
#   1. smoke: the topology comes up and rxe0/rxe1 are ACTIVE (rdma link show,
#      ibv_devinfo);
#   2. the gtest binaries tagged "guest" (tests/manifest.tsv), one result per
#      test case;
#   3. the scenarios (scenarios/NN-name.sh), one result per expectation;
#      then the same for the container engines (Docker, Podman:
#      scenarios/7?-engine-*.sh under each, engines.bash);
#   4. `rdmacheck capture` at netdev MTU 1500 and 9000 into out/captures/;
#   5. the fleet (fleet.bash); 6. the time-to-verdict bench (bench.bash);
#   7. the fault trials (faults.bash); every scenario's rdmacheck run is
#      audited for writes to the host (faults.bash audit_*).
# Prints one line per result and ends with exactly "N passed, M failed";
# exits 1 when anything failed.
set -u
SHARE=${SHARE:-/mnt/share}
source "$SHARE/lib.sh"
: >"$RESULTS"
mkdir -p "$OUT/scenarios" "$OUT/captures" "$OUT/tests"
PLANS=$SHARE/plans
FIXTURES=$SHARE/fixtures
echo "== guest-main at $(uptime_s)s, kernel $(uname -r)"
# The share's binaries into the guest's root (lib.sh says why).
mkdir -p /usr/local/bin
for b in rdmacheck checks_live model_grid; do
  [[ -x "$SHARE/bin/$b" ]] && install -m 755 "$SHARE/bin/$b" "/usr/local/bin/$b"
done
printf 'step\tseconds\n' >"$OUT/timings.tsv"

# timed NAME CMD...: runs CMD, prints and keeps its wall time.
# (Its locals have names no step uses: bash scoping is dynamic.)
timed() {
  local _step=$1; shift
  local _t0 _t1 _rc=0 _s
  _t0=$(uptime_s)
  "$@" || _rc=$?
  _t1=$(uptime_s)
  _s=$(awk -v a="$_t0" -v b="$_t1" 'BEGIN{printf "%.1f", b - a}')
  echo "TIME: $_step ${_s}s"
  printf '%s\t%s\n' "$_step" "$_s" >>"$OUT/timings.tsv"
  return $_rc
}

# --- 1. smoke ----------------------------------------------------------------
smoke() {
  if ! topo_up 9000; then
    record FAIL "smoke: topology up (veth va/vb MTU 9000, rxe0, rxe1)"
    return 1
  fi
  record PASS "smoke: topology up (veth va/vb MTU 9000, rxe0, rxe1)"
  rdma link show
  check "smoke: rdma link shows rxe0 on va and rxe1 on vb" \
    bash -c 'l=$(rdma link show); grep -q "rxe0/1 state ACTIVE.*netdev va" <<<"$l" &&
             grep -q "rxe1/1 state ACTIVE.*netdev vb" <<<"$l"'
  local info
  info=$(timeout 20 ibv_devinfo -d rxe0 2>&1)
  echo "$info" | grep -E 'hca_id|transport|state|active_mtu|link_layer'
  check "smoke: ibv_devinfo rxe0 PORT_ACTIVE, active_mtu 4096 at netdev MTU 9000" \
    bash -c 'grep -q PORT_ACTIVE <<<"$1" && grep -q "active_mtu:.*4096" <<<"$1"' _ "$info"
  check "smoke: rxe0 GID 1 is RoCE v2 ::ffff:198.18.0.1" bash -c \
    'grep -q "ffff:c612:0001" /sys/class/infiniband/rxe0/ports/1/gids/1 &&
     grep -q "RoCE v2" /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1'
  if [[ -x "$RDMACHECK" ]]; then
    check "smoke: rdmacheck list runs" timeout 30 "$RDMACHECK" list
  else
    record FAIL "smoke: rdmacheck binary in the share" "missing $RDMACHECK"
  fi
}

# --- 2. gtest binaries tagged "guest" ------------------------------------------
# manifest.tsv: label, executable, runfiles dir (paths relative to the
# share), workspace name. Each binary runs from its workspace directory inside
# the runfiles, as under `bazel test`.
run_gtests() {
  local manifest=$SHARE/tests/manifest.tsv label exe rf ws
  [[ -s "$manifest" ]] || { echo "guest: no test binaries tagged \"guest\""; return 0; }
  while IFS=$'\t' read -r label exe rf ws; do
    topo_ensure 9000 0 || { record FAIL "$label" "topology"; continue; }
    local log=$OUT/tests/$(echo "$label" | tr '/:' '__').log rc=0
    (
      cd "$SHARE/$rf/$ws" || exit 125
      export TEST_SRCDIR=$SHARE/$rf RUNFILES_DIR=$SHARE/$rf TEST_WORKSPACE=$ws
      export TEST_TMPDIR=$(mktemp -d) RDMACHECK_GUEST=1
      exec timeout -k 5 "${GUEST_TEST_TIMEOUT:-300}" "$SHARE/$exe" --gtest_color=no
    ) >"$log" 2>&1 || rc=$?
    # One result per test case: "[       OK ] Suite.Case (N ms)" and
    # "[  FAILED  ] Suite.Case (N ms)" (the summary repeats FAILED lines
    # without the time, so those are not counted twice).
    local n=0 line
    while IFS= read -r line; do
      n=$((n + 1))
      case "$line" in
        "[       OK ]"*) record PASS "$label: $(awk '{print $4}' <<<"$line")" ;;
        "[  FAILED  ]"*) record FAIL "$label: $(awk '{print $3}' <<<"$line")" "see out/tests/$(basename "$log")" ;;
        "[  SKIPPED ]"*) record SKIP "$label: $(awk '{print $3}' <<<"$line")" ;;
      esac
    done < <(grep -E '^\[ +(OK|FAILED|SKIPPED) +\] [^ ]+ \([0-9]+ ms\)' "$log")
    if ((rc == 124 || rc == 137)); then
      record FAIL "$label" "timed out; see out/tests/$(basename "$log")"
    elif ((rc != 0)) && ! grep -q '^\[  FAILED  \]' "$log"; then
      record FAIL "$label" "exit $rc without a failed case (crash?); see out/tests/$(basename "$log")"
    elif ((n == 0)); then
      record FAIL "$label" "ran no test case"
    fi
  done <"$manifest"
}

# --- 3. scenarios ------------------------------------------------------------
# A scenario file sets, when sourced:
#   name="..."              what it shows (default: the file name)
#   mtu=9000                netdev MTU of the healthy pair it starts from
#   fault() { ...; }        optional: breaks the topology (undone by undo/reset)
#   undo() { ...; }         optional: repairs what fault broke
#   limits='ulimit -l 64'   optional: run in the subshell that runs rdmacheck
#   args=(...)              rdmacheck arguments (--format=json is added)
#   wrap=(...)              optional: a command that runs rdmacheck for it,
#                           e.g. inside an OCI container (scenarios/container-run.bash)
#   command=(...)           optional: the whole command in place of rdmacheck
#                           (a container engine's run line, whose image's
#                           ENTRYPOINT is rdmacheck); args are appended
# Engine scenarios (7?-engine-*.sh) run in the containers step, once per
# engine with $ENGINE set (docker, podman) and "@ENGINE" in their name.
# and lists its expectations, each one result:
#   expect ID VERDICT [SUBSTRING]     check ID has VERDICT, and SUBSTRING occurs
#                                     (any case) in its title, skip reason,
#                                     evidence, notes or remediation
#   xfail WHAT ID VERDICT [SUBSTR]    the same, expected not to hold until the
#                                     work WHAT names lands (XFAIL); holding
#                                     anyway is XPASS
#   expect_exit CODE                  rdmacheck's exit status
#   expect_each_pass_or_skip          every check in the report PASSes, or
#                                     SKIPs with a reason (one result per check)
SCENARIO_IDS=""
# Stored as KIND WHAT ID VERDICT SUBSTRING joined by \x1f (WHAT and the
# substring may hold spaces).
US=$'\x1f'
expect() { EXPECTS+=("expect${US}-${US}$1${US}$2${US}${3:-}"); }
xfail() { EXPECTS+=("xfail${US}$1${US}$2${US}$3${US}${4:-}"); }
expect_exit() { EXPECTS+=("exit${US}-${US}-${US}$1${US}"); }
expect_each_pass_or_skip() { EXPECTS+=("each${US}-${US}-${US}-${US}"); }

# load_report JSON: the report read by one jq run (under TCG each jq start
# costs about a quarter of a second: one per scenario, not one per
# expectation). Sets REPORT_OK (0: not JSON), REPORT_SUMMARY, REPORT_IDS (in
# order) and per check id REPORT_VERDICT, REPORT_SKIP, REPORT_TITLE and REPORT_TEXT (title,
# skip reason, notes, remediation and evidence joined by " | ", line breaks
# as spaces).
declare -A REPORT_VERDICT REPORT_SKIP REPORT_TITLE REPORT_TEXT
load_report() {
  REPORT_IDS=() REPORT_VERDICT=() REPORT_SKIP=() REPORT_TITLE=() REPORT_TEXT=() REPORT_SUMMARY="" REPORT_OK=1
  local out id v skip title text
  # shellcheck disable=SC2016
  if ! out=$(jq -r '(.summary | tojson), (.checks[]? | [.id, .verdict, .skip_reason, .title,
        ([.title, .skip_reason, (.notes[]?), (.remediation[]?), (.evidence[]? | .subject, .expected, .actual)]
          | map(. // "" | tostring) | join(" | "))] | map(. // "" | tostring | gsub("[\t\n\r]"; " ")) | join("\u001f"))' \
      "$1" 2>/dev/null); then
    REPORT_OK=0
    return
  fi
  {
    read -r REPORT_SUMMARY
    while IFS=$US read -r id v skip title text; do
      REPORT_IDS+=("$id")
      REPORT_VERDICT[$id]=$v REPORT_SKIP[$id]=$skip REPORT_TITLE[$id]=$title REPORT_TEXT[$id]=$text
    done
  } <<<"$out"
}

known_check() { grep -Eq "(^|[[:space:]])$1([[:space:]:]|$)" <<<"$SCENARIO_IDS"; }

# eval_expect JSON SCN KIND WHAT ID VERDICT SUBSTR
eval_expect() {
  local json=$1 scn=$2 kind=$3 what=$4 id=$5 want=$6 sub=${7:-}
  local got=BADJSON text="" ok=1 why=""
  if ((REPORT_OK)); then got=${REPORT_VERDICT[$id]:-MISSING} text=${REPORT_TEXT[$id]:-}; fi
  if [[ "$got" != "$want" ]]; then
    ok=0; why="got $got"
  elif [[ -n "$sub" && "${text,,}" != *"${sub,,}"* ]]; then
    ok=0; why="no '$sub' in: ${text:0:300}"
  fi
  local label="$scn: $id $want${sub:+ '$sub'}"
  if [[ "$kind" == expect ]]; then
    if ((ok)); then record PASS "$label"; else record FAIL "$label" "$why"; fi
  elif ((ok)); then
    record XPASS "$label" "expected to fail until $what lands: it passes now"
  elif ! known_check "$id"; then
    record XFAIL "$label" "check $id not in rdmacheck list yet: waits for $what"
  else
    record XFAIL "$label" "waits for $what: $why"
  fi
}

# eval_each SCN: one result per check in the report (load_report's).
eval_each() {
  local scn=$1 id v reason n=0
  for id in "${REPORT_IDS[@]}"; do
    n=$((n + 1)) v=${REPORT_VERDICT[$id]} reason=${REPORT_SKIP[$id]}
    if [[ "$v" == PASS ]] || [[ "$v" == SKIP && -n "$reason" ]]; then
      record PASS "$scn: $id PASS or SKIP-with-reason" "$v${reason:+: $reason}"
    else
      record FAIL "$scn: $id PASS or SKIP-with-reason" "$v${reason:+: $reason}"
    fi
  done
  ((n > 0)) || record FAIL "$scn: every check PASS or SKIP" "the report lists no check"
}

run_scenario() {
  local file=$1 base
  base=$(basename "$file" .sh)
  unset -f fault undo
  name=$base mtu=9000 limits="" args=() wrap=() command=() EXPECTS=()
  # shellcheck disable=SC1090
  source "$file"
  [[ -n "${ENGINE:-}" ]] && base="$base@$ENGINE"
  local scn="$base" json=$OUT/scenarios/$base.json err=$OUT/scenarios/$base.err rc=0 e
  echo "== scenario $base: $name"
  local ph_t=${EPOCHREALTIME/./} ph_topo ph_fault ph_run ph_res ph_expect ph_undo
  if ! topo_ensure "$mtu" "${LAST_DIRTY:-1}"; then
    record FAIL "$scn: topology (MTU $mtu)" "could not set up"
    LAST_DIRTY=1
    return
  fi
  LAST_DIRTY=0
  phase_lap ph_topo
  if declare -F fault >/dev/null; then
    LAST_DIRTY=1
    fault || { record FAIL "$scn: fault" "the fault command failed"; undo 2>/dev/null; return; }
  fi
  phase_lap ph_fault
  local res_before res_after i id run=("${wrap[@]}" "$RDMACHECK") trace=""
  ((${#command[@]})) && run=("${command[@]}")
  # The host-write audit (faults.bash) of every scenario's rdmacheck run:
  # rdmacheck itself, not a container engine's run line (65 and the engine
  # scenarios: the process started is the engine's). By the preload alone
  # (open_audit.so records opens for writing, file-system changes, programs
  # started and netlink messages): under ptrace the probes' data path ran
  # 3-6x slower here even with no call stopped (sge-page-crossing 0.44-1.5 s
  # bare, 2.8-3.8 s with strace attached and tracing nothing but execve), so
  # probe and bandwidth scenarios failed for the tracer, not for rdmacheck.
  # GUEST_AUDIT_SCENARIOS=1 adds strace; the audit step (faults.bash
  # run_audit) runs one of each kind of work under both.
  if ((AUDIT_ENABLED)) && ((${#wrap[@]} == 0 && ${#command[@]} == 0)); then
    # In the guest's own RAM, not on the 9p share: each write to the share
    # is a round trip to the host.
    trace=$AUDIT_DIR/$base.trace
    rm -f "$trace" "$trace.opens"
    if [[ "${GUEST_AUDIT_SCENARIOS:-0}" == 1 ]]; then
      mapfile -t audit_prefix < <(audit_wrap "$trace")
    else
      audit_prefix=(env "LD_PRELOAD=$AUDIT_PRELOAD" "RDMACHECK_OPEN_AUDIT=$trace.opens")
    fi
    run=("${audit_prefix[@]}" "${run[@]}")
  fi
  echo "${run[*]} ${args[*]} --format=json"
  res_before=$(res_counts)
  (
    eval "$limits"
    exec timeout -k 5 "$GUEST_STEP_TIMEOUT" "${run[@]}" "${args[@]}" --format=json
  ) >"$json" 2>"$err" || rc=$?
  phase_lap ph_run
  # Every run releases what it created, so no check leaks device resources
  # unnoticed: no device's PD/CQ/QP/MR count is above where it was, within
  # 3 s of rdmacheck's exit (the kernel frees a process's objects when its
  # verbs fds close).
  if res_settle "$res_before"; then
    res_after=$RES_AFTER
    record PASS "$scn: rdmacheck left no PD/CQ/QP/MR behind" "$res_after"
  else
    record FAIL "$scn: rdmacheck left no PD/CQ/QP/MR behind" "before: $res_before; after: $RES_AFTER"
  fi
  [[ -n "$trace" ]] && audit_scenario "$scn" "$trace"
  phase_lap ph_res
  load_report "$json"
  if ((REPORT_OK)); then
    echo "rdmacheck exit $rc; $REPORT_SUMMARY"
    for id in "${REPORT_IDS[@]}"; do echo "  [${REPORT_VERDICT[$id]}] $id  ${REPORT_TITLE[$id]}"; done
  else
    echo "rdmacheck exit $rc; $(head -c 300 "$json")"
  fi
  [[ -s "$err" ]] && sed 's/^/  stderr: /' "$err" | head -5
  if ((rc == 124 || rc == 137)); then
    record FAIL "$scn: rdmacheck finished" "timed out after ${GUEST_STEP_TIMEOUT}s"
  fi
  local kind what id want sub
  for e in "${EXPECTS[@]}"; do
    IFS=$US read -r kind what id want sub <<<"$e"
    case "$kind" in
      exit)
        if [[ "$rc" == "$want" ]]; then record PASS "$scn: rdmacheck exits $want"
        else record FAIL "$scn: rdmacheck exits $want" "exit $rc"; fi ;;
      each) eval_each "$scn" ;;
      expect | xfail) eval_expect "$json" "$scn" "$kind" "$what" "$id" "$want" "$sub" ;;
    esac
  done
  phase_lap ph_expect
  if declare -F undo >/dev/null; then undo || LAST_DIRTY=1; fi
  phase_lap ph_undo
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scn" "$ph_topo" "$ph_fault" "$ph_run" "$ph_res" "$ph_expect" "$ph_undo" \
    >>"$OUT/scenario-phases.tsv"
}

# phase_lap VAR: VAR = seconds since ph_t (the caller's), which moves to now.
# Microseconds in bash arithmetic: no fork per lap.
phase_lap() {
  local now=${EPOCHREALTIME/./} d
  d=$((now - ph_t))
  printf -v "$1" '%d.%02d' $((d / 1000000)) $((d % 1000000 / 10000))
  ph_t=$now
}

run_scenarios() {
  if [[ ! -x "$RDMACHECK" ]]; then
    record FAIL "scenarios" "no rdmacheck binary at $RDMACHECK"
    return
  fi
  printf 'scenario\ttopology\tfault\trdmacheck\tleak check\texpectations\tundo\n' >"$OUT/scenario-phases.tsv"
  SCENARIO_IDS=$(timeout 30 "$RDMACHECK" list 2>&1)
  echo "rdmacheck list:"; sed 's/^/  /' <<<"$SCENARIO_IDS"
  local f
  for f in "$SHARE"/scenarios/*.sh; do
    [[ "$f" == *-engine-* ]] && continue  # the containers step's
    [[ -n "${GUEST_SCENARIOS:-}" && "$(basename "$f")" != $GUEST_SCENARIOS ]] && continue
    timed "scenario $(basename "$f" .sh)" run_scenario "$f"
  done
  ((AUDIT_RUNS)) && echo "audit: $AUDIT_RUNS rdmacheck runs traced, $AUDIT_BAD with a write to the host"
}

# --- 3d. the container engines (engines.bash) -----------------------------------
# Docker and Podman started, the offline image (the Dockerfile's runtime
# stage) loaded into each and checked, every engine scenario run under each,
# both stopped. An engine that cannot start fails its scenarios' step with
# its own log, and the other still runs.
run_engine_scenarios() {
  [[ -s "$ENGINE_IMAGE_DIR/rdmacheck.tar" ]] ||
    { record FAIL "containers: the offline image in the share" "no $ENGINE_IMAGE_DIR/rdmacheck.tar (run.sh builds it)"; return; }
  topo_ensure 9000 "${LAST_DIRTY:-1}" || { record FAIL "containers: topology"; return; }
  LAST_DIRTY=0
  local e ready=() loaded=() f
  for e in ${GUEST_ENGINES:-docker podman}; do
    timed "engine start $e" engine_start "$e" && ready+=("$e")
  done
  # One after the other: two loads at once on the guest's 2 vCPUs took
  # longer than both in turn.
  for e in "${ready[@]}"; do
    timed "engine load $e" engine_load "$e" && loaded+=("$e") && engine_same_image "$e" "$RDMACHECK"
  done
  for e in "${loaded[@]}"; do
    for f in "$SHARE"/scenarios/7?-engine-*.sh; do
      [[ -n "${GUEST_SCENARIOS:-}" && "$(basename "$f")" != $GUEST_SCENARIOS ]] && continue
      ENGINE=$e timed "scenario $(basename "$f" .sh)@$e" run_scenario "$f"
    done
  done
  for e in "${ready[@]}"; do engine_stop "$e"; done
}

# --- 3b. the live check suite (//checks:live) -----------------------------------
# What `bazel test //checks:live --config=live` runs: one GoogleTest case per
# check against this host's devices. On the healthy pair its XML must hold a
# testcase for every check and no failure.
run_live_suite() {
  local bin=/usr/local/bin/checks_live xml=$OUT/tests/checks_live.xml log=$OUT/tests/checks_live.log rc=0
  [[ -x "$bin" ]] || { record FAIL "live suite" "no checks_live binary in the share"; return 0; }
  topo_ensure 9000 0 || { record FAIL "live suite" "topology"; return 0; }
  RDMACHECK_DEVICE=rxe0 RDMACHECK_PLAN=$SHARE/plans/rxe_healthy.plan \
    timeout -k 5 300 "$bin" --gtest_color=no --gtest_output="xml:$xml" >"$log" 2>&1 || rc=$?
  local want got fails
  want=$("$RDMACHECK" list | wc -l)
  got=$(grep -c '<testcase ' "$xml" 2>/dev/null || true)
  fails=$(grep -c '<failure' "$xml" 2>/dev/null || true)
  if ((rc == 0)); then record PASS "live suite: exit 0 on the healthy pair"
  else record FAIL "live suite: exit 0 on the healthy pair" "exit $rc; see out/tests/checks_live.log"; fi
  if [[ "$got" == "$want" ]]; then record PASS "live suite: one testcase per check in its XML" "$got"
  else record FAIL "live suite: one testcase per check in its XML" "$got testcases, $want checks"; fi
  if [[ "$fails" == 0 && -s "$xml" ]]; then record PASS "live suite: no failure in its XML"
  else record FAIL "live suite: no failure in its XML" "$fails failures; see out/tests/checks_live.xml"; fi
}

# --- 3c. the rxe model against the real rxe -------------------------------------
# device/model_grid: >= 200 create-QP requests on the model and on rxe0; every
# granted cap and every EINVAL must agree ("agree N/N"). Depths above 64 Ki
# WRs are left out: each would allocate a real queue of that size.
run_model_grid() {
  local bin=/usr/local/bin/model_grid log=$OUT/tests/model_grid.log rc=0 line n m
  [[ -x "$bin" ]] || { record FAIL "model grid" "no model_grid binary in the share"; return 0; }
  topo_ensure 9000 0 || { record FAIL "model grid" "topology"; return 0; }
  timeout -k 5 300 "$bin" --max_wr_tested=65536 rxe0 >"$log" 2>&1 || rc=$?
  grep '^DISAGREE' "$log" | head -5 | sed 's/^/  /'
  line=$(grep -E '^agree [0-9]+/[0-9]+$' "$log" | tail -1)
  echo "  model grid: ${line:-no agree line} (exit $rc)"
  n=${line#agree }; m=${n#*/}; n=${n%/*}
  if [[ -n "$line" && "$n" == "$m" && "$m" -ge 200 && $rc -eq 0 ]]; then
    record PASS "model grid: rxe model and real rxe0 agree on every create-QP request" "$line"
  else
    record FAIL "model grid: rxe model and real rxe0 agree on every create-QP request" "${line:-none}, exit $rc; see out/tests/model_grid.log"
  fi
}

# --- 4. capture ----------------------------------------------------------------
# Profiles of the real rxe pair (both devices), to replace hand-made fixtures:
# out/captures/rxe_mtu<MTU>.profile, each read back with --profile.
capture_at() {
  local mtu=$1 f rc=0
  topo_ensure "$mtu" 1 || { record FAIL "capture MTU $mtu: topology"; return; }
  f=$OUT/captures/rxe_mtu$mtu.profile
  timeout -k 5 60 "$RDMACHECK" capture >"$f" 2>"$f.err" || rc=$?
  if ((rc == 0)) && [[ -s "$f" ]]; then
    record PASS "capture at netdev MTU $mtu" "out/captures/$(basename "$f")"
    local j=$f.check.json rc2=0 want
    want=$([[ $mtu == 9000 ]] && echo 4096 || echo 1024)
    check "capture at netdev MTU $mtu: rxe0 and rxe1 with active_mtu $want" \
      bash -c 'grep -q "^\[port rxe0 1\]" "$1" && grep -q "^\[port rxe1 1\]" "$1" &&
               [[ $(grep -c "^active_mtu $2\$" "$1") == 2 ]]' _ "$f" "$want"
    timeout 60 "$RDMACHECK" --profile "$f" -d rxe0 --format=json >"$j" 2>&1 || rc2=$?
    if ((rc2 <= 1)) && jq -e '.source | startswith("profile:")' "$j" >/dev/null 2>&1; then
      record PASS "capture at netdev MTU $mtu: rdmacheck --profile reads it back"
    else
      record FAIL "capture at netdev MTU $mtu: rdmacheck --profile reads it back" "exit $rc2"
    fi
  elif ((rc == 2)) && grep -qiE 'unknown|usage|not (yet )?implemented' "$f.err"; then
    record SKIP "capture at netdev MTU $mtu" "rdmacheck has no capture subcommand yet"
    rm -f "$f"
  else
    record FAIL "capture at netdev MTU $mtu" "exit $rc: $(head -c 200 "$f.err")"
  fi
}

run_captures() {
  [[ -x "$RDMACHECK" ]] || return 0
  capture_at 1500
  capture_at 9000
}

# --- 5. fleet: six simulated nodes (fleet.bash) --------------------------------
source "$SHARE/fleet.bash"
source "$SHARE/engines.bash"
# --- 6. bench: time to verdict against the manual tools (bench.bash) ----------
source "$SHARE/bench.bash"
# --- 7. perf: rdmacheck bench beside perftest (perf.bash) ----------------------
source "$SHARE/perf.bash"
# --- 8. faults: signals, a lost peer, a deleted device; the host-write audit --
source "$SHARE/faults.bash"

# step NAME FUNC: FUNC, timed, unless GUEST_STEPS (run.sh --steps) is set and
# NAME does not match it.
step() {
  if [[ -n "${GUEST_STEPS:-}" && "$1" != $GUEST_STEPS ]]; then
    echo "== step $1 not selected (--steps '$GUEST_STEPS')"
    return 0
  fi
  timed "$1" "$2"
}

timed smoke smoke
if [[ "${GUEST_ONLY_SMOKE:-0}" != 1 ]]; then
  step gtests run_gtests
  step scenarios run_scenarios
  step containers run_engine_scenarios
  step faults run_faults
  step audit run_audit
  step asan run_asan
  step live-suite run_live_suite
  step model-grid run_model_grid
  step captures run_captures
  step fleet run_fleet
  step bench run_bench
  step perf run_perf
  # Four minutes of ib_write_bw: only when asked for by name (--steps).
  if [[ -n "${GUEST_STEPS:-}" ]]; then step perf-loop run_perf_loop; step perf-referee run_perf_referee; step perf-lat run_perf_lat; fi
fi
topo_down
echo "== guest-main done at $(uptime_s)s"
summary
