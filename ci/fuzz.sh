#!/usr/bin/env bash
# fuzz.sh: every fuzz target of fuzz/ under libFuzzer (clang, ASan, UBSan;
# --config=fuzz) for a bounded time, seeded with the inputs its *_regression
# test replays (read from that test's runfiles manifest, so the seeds are
# named once, in fuzz/BUILD.bazel). Prints one PASS/FAIL line per target with
# its executions and ends with "N passed, M failed". A crash's input is kept
# in OUT/crash-NAME-*; copy it to fuzz/crashes/NAME/ once fixed, so that the
# regression test replays it from then on.
#
#   bash ci/fuzz.sh [--seconds S] [--out DIR] [--corpus-cache DIR] [TARGET...]
# --corpus-cache: each target's corpus is kept in DIR/TARGET from run to run
# (CI's runs pass /var/cache/rdmacheck-fuzz), so the inputs one run found
# are where the next one starts, as OSS-Fuzz keeps its corpora; past
# CORPUS_MAX_FILES files it is merged down (libFuzzer -merge=1) to the
# inputs that still add coverage.
# Builds in the clang output base of ci/clang-ob.sh (FUZZ_OUTPUT_BASE), shared
# with ci/clang-tests.sh. Extra bazel flags: RDMACHECK_BAZEL_FLAGS.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=10 OUT="" CORPUS_CACHE="" TARGETS=()
CORPUS_MAX_FILES=${CORPUS_MAX_FILES:-3000}
while (($#)); do
  case "$1" in
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --corpus-cache) CORPUS_CACHE=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
OUT=${OUT:-$(mktemp -d /tmp/rdmacheck-fuzz.XXXXXX)}
mkdir -p "$OUT"
source ci/clang-ob.sh
trap 'bz shutdown >/dev/null 2>&1 || true' EXIT

if ((${#TARGETS[@]} == 0)); then
  mapfile -t TARGETS < <(bz query --noshow_progress 'attr(name, "_fuzz$", kind(cc_binary, //fuzz:all))' 2>/dev/null |
    sed 's|^//fuzz:||')
fi
if ((${#TARGETS[@]} == 0)); then
  echo "FAIL: fuzz: no fuzz target found"; echo "0 passed, 1 failed"; exit 1
fi
t0=$SECONDS
# --symlink_prefix=/: no bazel-* links in the checkout. They would point at
# this output base, and the checkout's own Bazel server would then walk into
# it as packages (`bazel query //...` fails).
if ! timeout 1200 bazel --output_base="$OB" build ${RDMACHECK_BAZEL_FLAGS:-} --config=fuzz --symlink_prefix=/ --noshow_progress \
     $(for t in "${TARGETS[@]}"; do echo "//fuzz:$t //fuzz:${t}_regression"; done) >"$OUT/build.log" 2>&1; then
  tail -20 "$OUT/build.log"
  echo "FAIL: fuzz: bazel build --config=fuzz (see $OUT/build.log)"; echo "0 passed, 1 failed"; exit 1
fi
echo "fuzz: built ${#TARGETS[@]} targets in $((SECONDS - t0)) s; $SECONDS_EACH s each"
bin=$(bz info --config=fuzz bazel-bin 2>/dev/null)
pass=0 fail=0
for t in "${TARGETS[@]}"; do
  seeds=$OUT/seeds-$t corpus=$OUT/corpus-$t
  rm -rf "$seeds"; mkdir -p "$seeds"
  if [[ -n $CORPUS_CACHE ]]; then
    corpus=$CORPUS_CACHE/$t
    mkdir -p "$corpus"
  else
    rm -rf "$corpus"; mkdir -p "$corpus"
  fi
  kept=$(find "$corpus" -type f | wc -l)
  # Each data file of the regression test (not the test's own binary).
  while read -r _ path; do
    [[ -f "$path" && "$path" != */fuzz/${t}_regression && "$path" != *.so ]] || continue
    cp "$path" "$seeds/$(printf '%s' "$path" | md5sum | cut -c1-12)"
  done <"$bin/fuzz/${t}_regression.runfiles_manifest"
  log=$OUT/$t.log
  timeout -k 5 $((SECONDS_EACH + 60)) "$bin/fuzz/$t" -max_total_time="$SECONDS_EACH" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$OUT/crash-$t-" \
    "$corpus" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  nseeds=$(ls "$seeds" | wc -l)
  if ((rc == 0)); then
    from="$nseeds seeds"
    [[ -n $CORPUS_CACHE ]] && from="$nseeds seeds and $kept kept inputs"
    echo "PASS: fuzz: $t: ${execs:-?} executions in $SECONDS_EACH s from $from, no crash (peak ${peak:-?} MB)"
    pass=$((pass + 1))
  else
    echo "FAIL: fuzz: $t: exit $rc after ${execs:-?} executions; input kept in $(ls "$OUT"/crash-"$t"-* 2>/dev/null | head -1)"
    grep -m 3 -E "ERROR|SUMMARY|fuzz: " "$log" | sed 's/^/  /'
    fail=$((fail + 1))
  fi
done
# A kept corpus that grew past the bound is merged down to the inputs that
# still add coverage (bounded: on a timeout the corpus is left as it was).
if [[ -n $CORPUS_CACHE ]]; then
  for t in "${TARGETS[@]}"; do
    corpus=$CORPUS_CACHE/$t
    n=$(find "$corpus" -type f 2>/dev/null | wc -l)
    ((n > CORPUS_MAX_FILES)) || continue
    rm -rf "$corpus.merged"; mkdir -p "$corpus.merged"
    if timeout -k 5 120 "$bin/fuzz/$t" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
         "$corpus.merged" "$corpus" >"$OUT/$t.merge.log" 2>&1; then
      rm -rf "$corpus"; mv "$corpus.merged" "$corpus"
      echo "fuzz: $t: kept corpus merged from $n to $(find "$corpus" -type f | wc -l) inputs"
    else
      rm -rf "$corpus.merged"
      echo "fuzz: $t: kept corpus of $n inputs could not be merged (see $OUT/$t.merge.log); left as it was"
    fi
  done
fi
echo "$pass passed, $fail failed"
((fail == 0))
