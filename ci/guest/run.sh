#!/usr/bin/env bash
# run.sh: the guest stage, host side. Builds the project's binaries with
# Bazel, makes sure the Soft-RoCE guest image exists (cached), boots the guest
# once with the binaries, scenarios and fixtures on a 9p share, and reports.
#
#   bash ci/guest/run.sh                      # everything, 40 min budget
#   bash ci/guest/run.sh --timeout 600 --scenarios '0[1-3]-*' --verbose
#
# Prints the guest's result lines (PASS/FAIL/XFAIL/XPASS/SKIP/TIME) as they
# come and ends with exactly one line "N passed, M failed"; exits non-zero on
# any failure or timeout. The guest's console and outputs (scenario JSON,
# captured profiles, test logs) are kept in --out (printed at the end).
# Needs root (image build), qemu-system-x86 and cpio (ci/deps.sh --guest).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TIMEOUT=${RDMACHECK_GUEST_TIMEOUT:-2400}
OUTDIR="" SCENARIOS="" STEPS="" VERBOSE=0 SMOKE_ONLY=0 BUILD=1

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<'EOF'
Options:
  --timeout S     hard limit for the guest boot, seconds (default 2400,
                  or $RDMACHECK_GUEST_TIMEOUT)
  --out DIR       where the guest's outputs are kept (default: a new
                  /tmp/rdmacheck-guest.XXXXXX/out)
  --scenarios G   only scenarios whose file name matches the glob G
  --steps G       only the steps (after smoke) whose name matches the glob G:
                  gtests, scenarios, containers, faults, asan, live-suite,
                  model-grid, captures, fleet, bench, perf
  --smoke-only    topology and smoke checks only
  --no-build      use the binaries already in bazel-bin
  --verbose       stream the whole guest console, not only result lines
Environment: RDMACHECK_VM_CACHE (image cache, default /var/cache/rdmacheck-vm),
RDMACHECK_BAZEL_FLAGS (extra flags of its bazel builds; .ci/run: --config=ci),
RDMACHECK_GUEST_ASAN (0: no --config=asan build, the asan step SKIPs),
GUEST_AUDIT_SCENARIOS (1: every scenario's run under the host-write audit)
EOF
}

while (($#)); do
  case "$1" in
    --timeout) TIMEOUT=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    --scenarios) SCENARIOS=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --smoke-only) SMOKE_ONLY=1; shift ;;
    --no-build) BUILD=0; shift ;;
    --verbose) VERBOSE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

host_fail=0
hfail() { echo "FAIL: host: $*"; host_fail=$((host_fail + 1)); }
t() { echo "[guest-stage +${SECONDS}s] $*"; }
finish() { # finish PASSED FAILED
  echo "$1 passed, $2 failed"
  (($2 == 0)) || exit 1
  exit 0
}

# --- host tools ----------------------------------------------------------------
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v cpio >/dev/null || ! command -v mmdebstrap >/dev/null; then
  bash "$REPO/ci/deps.sh" --guest || { hfail "qemu-system-x86/cpio/mmdebstrap missing (ci/deps.sh --guest)"; finish 0 1; }
fi

# --- image -------------------------------------------------------------------------
t "guest image"
t0=$SECONDS
IMG=$(bash "$REPO/ci/softroce-vm/build-image.sh") || { hfail "guest image build failed"; finish 0 1; }
t "guest image ready in $((SECONDS - t0))s: $IMG"

# --- binaries ------------------------------------------------------------------------
SHARE=$(mktemp -d /tmp/rdmacheck-guest.XXXXXX)
mkdir -p "$SHARE/bin" "$SHARE/tests" "$SHARE/out"
cd "$REPO" || exit 1
TESTS=()
if ((BUILD)); then
  t "bazel build //:rdmacheck and the guest-tagged tests"
  mapfile -t TESTS < <(timeout 600 bazel query --keep_going --noshow_progress \
    'attr(tags, "guest", tests(//...))' 2>/dev/null | grep '^//')
  t "guest-tagged tests: ${TESTS[*]:-none}"
  # rdmacheck as the README builds it for a node (-c opt: what the bench
  # times), and the guest's test binaries in the same configuration, so that
  # they share its compiled libraries (a third configuration would compile
  # the tree once more). `bazel test` builds with ASan (.bazelrc): the
  # --config=asan rdmacheck is that build's, already done by .ci/run.
  timeout 1800 bazel build ${RDMACHECK_BAZEL_FLAGS:-} -c opt --noshow_progress //:rdmacheck //checks:live //acts:model_grid \
    //ci/guest/audit:open_audit.so "${TESTS[@]}" >"$SHARE/out/bazel-build.log" 2>&1 ||
    { hfail "bazel build -c opt //:rdmacheck //checks:live //acts:model_grid //ci/guest/audit:open_audit.so and the guest tests (see $SHARE/out/bazel-build.log)"; tail -20 "$SHARE/out/bazel-build.log"; }
  # The same binary under ASan and UBSan, for the asan step (faults.bash).
  if [[ "${RDMACHECK_GUEST_ASAN:-1}" == 1 ]]; then
    timeout 1800 bazel build ${RDMACHECK_BAZEL_FLAGS:-} --config=asan --noshow_progress //:rdmacheck >>"$SHARE/out/bazel-build.log" 2>&1 ||
      { hfail "bazel build --config=asan //:rdmacheck"; tail -20 "$SHARE/out/bazel-build.log"; }
  fi
else
  mapfile -t TESTS < <(timeout 600 bazel query --keep_going --noshow_progress \
    'attr(tags, "guest", tests(//...))' 2>/dev/null | grep '^//')
fi
BIN=$(bazel info -c opt bazel-bin 2>/dev/null) || BIN=$REPO/bazel-out/k8-opt/bin
[[ -x "$BIN/rdmacheck" ]] && cp "$BIN/rdmacheck" "$SHARE/bin/rdmacheck"
ASAN_BIN=$(bazel info --config=asan bazel-bin 2>/dev/null) && [[ -x "$ASAN_BIN/rdmacheck" ]] &&
  cp "$ASAN_BIN/rdmacheck" "$SHARE/bin/rdmacheck-asan"
# The `bazel test //checks:live` suite (every check as a gtest case), run once on the real pair.
[[ -x "$BIN/checks/live" ]] && cp "$BIN/checks/live" "$SHARE/bin/checks_live"
# The host-write audit's record of opens (ci/guest/faults.bash).
[[ -f "$BIN/ci/guest/audit/open_audit.so" ]] && cp "$BIN/ci/guest/audit/open_audit.so" "$SHARE/bin/open_audit.so"
# The rxe driver model against the real rxe on a grid of create-QP requests.
[[ -x "$BIN/acts/model_grid" ]] && cp "$BIN/acts/model_grid" "$SHARE/bin/model_grid"
# Test executables run from inside their runfiles tree (copied with the
# symlinks resolved): their rpath ($ORIGIN/../_solib_k8) and relative data
# paths then hold in the guest as they do under bazel test.
: >"$SHARE/tests/manifest.tsv"
for label in "${TESTS[@]}"; do
  pkg=${label#//}; pkg=${pkg%%:*}; name=${label##*:}
  rel=${pkg:+$pkg/}$name
  if [[ ! -d "$BIN/$rel.runfiles" ]]; then hfail "no runfiles for $label"; continue; fi
  mkdir -p "$SHARE/tests/$(dirname "$rel")"
  cp -rL "$BIN/$rel.runfiles" "$SHARE/tests/$rel.runfiles"
  # The workspace's own directory in the runfiles (its name, from WORKSPACE).
  ws=""
  for d in "$SHARE/tests/$rel.runfiles"/*/; do
    [[ -x "$d$rel" ]] && { ws=$(basename "$d"); break; }
  done
  if [[ -z "$ws" ]]; then hfail "no $rel inside the runfiles of $label"; continue; fi
  printf '%s\t%s\t%s\t%s\n' "$label" "tests/$rel.runfiles/$ws/$rel" "tests/$rel.runfiles" "$ws" \
    >>"$SHARE/tests/manifest.tsv"
done

# --- the container image --------------------------------------------------------
# The Dockerfile's runtime stage made offline (the guest cannot pull) with the
# binary above, for the containers step; the README and run-checks.sh give
# that step the README's own command lines.
mkdir -p "$SHARE/container"
cp "$REPO/README.md" "$SHARE/README.md"
cp "$REPO/ci/container/run-checks.sh" "$SHARE/container/"
if ((!SMOKE_ONLY)) && [[ -z "$STEPS" || containers == $STEPS ]]; then
  t "container image (ci/container/offline-image.sh)"
  t0=$SECONDS
  if [[ -x "$SHARE/bin/rdmacheck" ]] &&
     bash "$REPO/ci/container/offline-image.sh" --binary "$SHARE/bin/rdmacheck" --out "$SHARE/container" \
       2>"$SHARE/out/offline-image.log"; then
    t "container image ready in $((SECONDS - t0))s"
    # The engines' stores of an earlier run with this guest image and this
    # root filesystem layer (ci/guest/engines.bash says why).
    STORE_KEY=$(printf '%s\n' "$(cat "$SHARE/container/base-layer.sha256")" "$IMG" "$(cat "$IMG/recipe.sha256")" |
      sha256sum | cut -c1-16)
    STORES=${RDMACHECK_VM_CACHE:-/var/cache/rdmacheck-vm}/engine-stores/$STORE_KEY
    if compgen -G "$STORES/*.tar" >/dev/null; then
      mkdir -p "$SHARE/container/stores"
      for f in "$STORES"/*.tar; do
        ln -f "$f" "$SHARE/container/stores/" 2>/dev/null || cp "$f" "$SHARE/container/stores/"
      done
      t "engine stores kept from an earlier run: $(cd "$STORES" && echo *.tar)"
    fi
  else
    hfail "container image (ci/container/offline-image.sh; see $SHARE/out/offline-image.log)"
    tail -5 "$SHARE/out/offline-image.log"
  fi
fi

# --- share ------------------------------------------------------------------------
cp "$HERE/lib.sh" "$HERE/guest-main.sh" "$HERE/fleet.bash" "$HERE/bench.bash" "$HERE/perf.bash" "$HERE/engines.bash" "$HERE/faults.bash" "$SHARE/"
cp -r "$HERE/scenarios" "$HERE/plans" "$SHARE/"
cp -r "$REPO/fixtures" "$SHARE/fixtures"
{
  echo "GUEST_SCENARIOS='$SCENARIOS'"
  echo "GUEST_STEPS='$STEPS'"
  echo "GUEST_ONLY_SMOKE=$SMOKE_ONLY"
  # 1: every scenario's run under the host-write audit's strace (faults.bash;
  # off by default: strace slows the probes' data path past their deadlines).
  echo "GUEST_AUDIT_SCENARIOS=${GUEST_AUDIT_SCENARIOS:-0}"
  # The perf-lat step's knobs (perf.bash), when set here.
  for v in GUEST_LAT_RUNS GUEST_LAT_WALL_N GUEST_LAT_STRACE_N; do
    [[ -n "${!v:-}" ]] && echo "$v=${!v}"
  done
} >"$SHARE/env.sh"
# The guest reads its settings from env.sh before guest-main.sh.
printf 'source /mnt/share/env.sh\nsource /mnt/share/guest-main.sh\n' >"$SHARE/entry.sh"

# --- boot ----------------------------------------------------------------------------
t "booting the guest (budget ${TIMEOUT}s)"
t0=$SECONDS
CONSOLE=$SHARE/out/console.log
SUMMARY_RE='^[0-9]+ passed, [0-9]+ failed$'
bash "$REPO/ci/softroce-vm/run-guest.sh" --image "$IMG" --share "$SHARE" \
  --script entry.sh --timeout "$TIMEOUT" 2>&1 | tr -d '\r' | tee "$CONSOLE" |
  while IFS= read -r line; do
    # The guest's own count line is renamed: the stage prints exactly one.
    if [[ "$line" =~ $SUMMARY_RE ]]; then echo "guest: $line"; continue; fi
    if ((VERBOSE)); then echo "$line"; continue; fi
    case "$line" in
      PASS:* | FAIL:* | XFAIL:* | XPASS:* | SKIP:* | TIME:* | "== "* | HOST:* | guest:* | "  "*) echo "$line" ;;
    esac
  done
st=${PIPESTATUS[0]}
t "guest finished in $((SECONDS - t0))s, status $st"

# --- result ------------------------------------------------------------------------
passed=0 failed=0
sumline=$(grep -E "$SUMMARY_RE" "$CONSOLE" | tail -1)
if [[ -n "$sumline" ]]; then
  passed=${sumline%% passed*}
  failed=${sumline#*passed, }; failed=${failed%% failed*}
else
  # Cut short (timeout, crash): count the result lines that made it out.
  passed=$(grep -cE '^X?PASS: ' "$CONSOLE")
  failed=$(grep -cE '^FAIL: ' "$CONSOLE")
fi
if ((st == 124)); then
  hfail "guest timed out after ${TIMEOUT}s (raise --timeout; see $CONSOLE)"
elif [[ -z "$sumline" ]]; then
  hfail "the guest printed no 'N passed, M failed' line (status $st; see $CONSOLE)"
elif ((st != 0 && failed == 0)); then
  hfail "guest exit status $st with no failed result"
fi

# Host-side checks over what the guest wrote: the fleet's Prometheus files
# through promtool (Debian's prometheus package, installed by ci/deps.sh),
# which the guest image does not carry.
host_pass=0
hpass() { echo "PASS: host: $*"; host_pass=$((host_pass + 1)); }
if compgen -G "$SHARE/out/fleet/*.prom" >/dev/null; then
  if command -v promtool >/dev/null; then
    for f in "$SHARE/out/fleet/"*.prom; do
      if out=$(promtool check metrics <"$f" 2>&1); then
        hpass "promtool check metrics accepts fleet/$(basename "$f")"
      else
        hfail "promtool check metrics on fleet/$(basename "$f"): $(head -c 300 <<<"$out")"
      fi
    done
  else
    hfail "promtool missing: the fleet's Prometheus files are not checked (bash ci/deps.sh)"
  fi
fi

# Engine stores the guest wrote (none were kept for this image): into the
# cache, one rename each, and out of the outputs.
if [[ -n "${STORES:-}" ]] && compgen -G "$SHARE/out/engine-stores/*.tar" >/dev/null; then
  mkdir -p "$STORES"
  for f in "$SHARE/out/engine-stores/"*.tar; do mv -f "$f" "$STORES/" || rm -f "$f"; done
  t "engine stores kept for the next run in $STORES"
fi

# Keep the outputs, drop the copied binaries.
if [[ -n "$OUTDIR" ]]; then
  mkdir -p "$OUTDIR" && cp -r "$SHARE/out/." "$OUTDIR/" && rm -rf "$SHARE"
else
  OUTDIR=$SHARE/out
  find "$SHARE" -mindepth 1 -maxdepth 1 ! -name out -exec rm -rf {} +
fi
t "guest outputs in $OUTDIR (console.log, scenarios/, captures/, tests/, timings.tsv)"
# The guest's steps in one line, at the end where a truncated CI log keeps it.
[[ -f "$OUTDIR/timings.tsv" ]] &&
  t "guest steps: $(awk -F'\t' 'NR > 1 && $1 !~ /^(scenario|engine) / { printf "%s%s %.0f s", n++ ? ", " : "", $1, $2 }' "$OUTDIR/timings.tsv")"
finish "$((passed + host_pass))" "$((failed + host_fail))"
