# bench.bash: time to verdict. rdmacheck against the manual tool an
# operator would type instead, on the guest's own pair (rxe0 on va, rxe1 on
# vb, netdev MTU 9000), alternating the two in one boot, median of
# GUEST_BENCH_RUNS (default 5) each. Sourced by guest-main.sh (step
# "bench"); prints one table and writes $OUT/bench/time-to-verdict.tsv, and
# each rdmacheck run's --timing lines (where its time went) as medians per
# phase to $OUT/bench/phases.tsv.
#
#   pair                          rdmacheck                      manual tool
#   capture                       rdmacheck capture              ibv_devinfo -v
#   static                        rdmacheck --skip <live ones>   ibv_devinfo -v
#   full                          rdmacheck (default plan)       ib_write_bw -n 200, rxe1 <- rxe0
#   full less perf                the same --skip bandwidth,latency  ib_write_bw -n 200
#   (and what bandwidth + latency add: full less "full less perf", at most 3 s)
#   startup                       rdmacheck --version            (none)
#   capture, static, ASLR off     the same under setarch -R      ibv_devinfo -v under it
#   capture, iptables-nft tables  capture with empty ip and ip6 filter tables in nf_tables, so that the two
#                                 iptables-nft listings run (what leaving them out buys; no target)
#
# The ASLR-off rows have no target: under TCG a process's code is translated
# again whenever it lands at new addresses, which ASLR makes every run, so a
# short run's time is mostly translation of the code it executes. With the
# addresses fixed, translations carry over from run to run: the nearer
# stand-in for a real CPU (docs/performance.md).
#
# Times are wall clock from bash's EPOCHREALTIME (no fork to read the clock).

BENCH_RUNS=${GUEST_BENCH_RUNS:-5}
# The checks that send traffic or create queues live, and the two that watch
# a window: what "static" leaves out.
BENCH_STATIC_SKIP=hung-qp,sge-page-crossing,cq-overrun,memory-budget,link-health,pcie,bandwidth,latency
# Regression guards on the ratios (bench_record), about 1.5x what this build
# measured (docs/performance.md): capture 2.9-3.4x, static 3.6-5.2x. The full
# checklist measured 1.6-1.9x with bandwidth and latency (1.2x without
# them), but a run whose window beside the checks saw our own probes' retries
# watches a second one and takes about 1 s longer than before the change
# (2.3x and 1.9x then): two of five runs in one boot. Their guards stay.
BENCH_GUARD_CAPTURE=5
BENCH_GUARD_STATIC=7.5
BENCH_GUARD_FULL=3.7
BENCH_GUARD_FULL_LESS_PERF=2.8

# bench_ms CMD...: runs CMD (output to /dev/null) and prints its wall time
# in milliseconds; returns CMD's status.
bench_ms() {
  local t0=$EPOCHREALTIME rc=0
  "$@" >/dev/null 2>&1 || rc=$?
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d\n", (b - a) * 1000 }'
  return $rc
}

# bench_wbw: one ib_write_bw -n 200 between rxe1 (server) and rxe0 (client),
# from the server's start until both have exited. The client starts as soon
# as the server listens (what an operator waits for before typing it).
bench_wbw() {
  local srv i
  timeout -s KILL 60 ib_write_bw -d rxe1 -x 1 -n 200 -F >/dev/null 2>&1 &
  srv=$!
  for ((i = 0; i < 400; i++)); do
    ss -ltn 2>/dev/null | grep -q ':18515 ' && break
    sleep 0.02
  done
  timeout -s KILL 60 ib_write_bw -d rxe0 -x 1 -n 200 -F 198.18.0.2 >/dev/null 2>&1
  local rc=$?
  wait "$srv" || rc=$?
  return $rc
}

bench_capture() { "$RDMACHECK" capture --timing -o "$BENCH_DIR/capture.profile" 2>"$BENCH_DIR/t.txt"; }

# bench_timing NAME FILE: appends FILE's "timing: PHASE X s" lines to
# $BENCH_DIR/phases.raw as NAME<TAB>PHASE<TAB>SECONDS.
bench_timing() {
  sed -n 's/^timing: \(.*\) \([0-9.]*\) s$/\1\t\2/p' "$2" | awk -v n="$1" -F'\t' '{ print n "\t" $1 "\t" $2 }' \
    >>"$BENCH_DIR/phases.raw"
}


run_bench() {
  [[ -x "$RDMACHECK" ]] || { record FAIL "bench: rdmacheck binary in the share"; return 1; }
  topo_ensure 9000 0 || { record FAIL "bench: topology"; return 1; }
  BENCH_DIR=$OUT/bench
  mkdir -p "$BENCH_DIR"
  : >"$BENCH_DIR/phases.raw"
  local raw=$BENCH_DIR/runs.tsv i ms
  printf 'what\trun\tms\n' >"$raw"
  # One untimed round first: page cache and the providers' first dlopen.
  "$RDMACHECK" capture >/dev/null 2>&1
  ibv_devinfo -v >/dev/null 2>&1
  for ((i = 1; i <= BENCH_RUNS; i++)); do
    ms=$(bench_ms ibv_devinfo -v); printf 'ibv_devinfo -v\t%d\t%s\n' "$i" "$ms" >>"$raw"
    ms=$(bench_ms bench_capture) || true
    printf 'capture\t%d\t%s\n' "$i" "$ms" >>"$raw"
    bench_timing capture "$BENCH_DIR/t.txt"
    ms=$(bench_ms "$RDMACHECK" --skip "$BENCH_STATIC_SKIP" --format=json -o "$BENCH_DIR/static.json") || true
    printf 'static\t%d\t%s\n' "$i" "$ms" >>"$raw"
    jq -r '.phases[] | "timing: \(.name) \(.seconds) s"' "$BENCH_DIR/static.json" >"$BENCH_DIR/t.txt" 2>/dev/null
    bench_timing static "$BENCH_DIR/t.txt"
    ms=$(bench_ms bench_wbw); printf 'ib_write_bw -n 200\t%d\t%s\n' "$i" "$ms" >>"$raw"
    ms=$(bench_ms "$RDMACHECK" --format=json -o "$BENCH_DIR/full.json") || true
    printf 'full\t%d\t%s\n' "$i" "$ms" >>"$raw"
    jq -r '(.phases[] | "timing: \(.name) \(.seconds) s"), (.checks[] | "timing: check \(.id) \(.seconds) s")' \
      "$BENCH_DIR/full.json" >"$BENCH_DIR/t.txt" 2>/dev/null
    bench_timing full "$BENCH_DIR/t.txt"
    ms=$(bench_ms "$RDMACHECK" --skip bandwidth,latency --format=json -o "$BENCH_DIR/full-less-perf.json") || true
    printf 'full less perf\t%d\t%s\n' "$i" "$ms" >>"$raw"
    ms=$(bench_ms "$RDMACHECK" --version); printf 'version\t%d\t%s\n' "$i" "$ms" >>"$raw"
    # The gather runs iptables-nft-save only when nft lists a table of its
    # (facts/gather_firewall.cc): with one, as on a host with iptables rules.
    nft add table ip filter && nft add table ip6 filter
    ms=$(bench_ms bench_capture) || true
    printf 'capture, iptables-nft tables\t%d\t%s\n' "$i" "$ms" >>"$raw"
    nft delete table ip filter; nft delete table ip6 filter
  done
  bench_noaslr >>"$raw"
  # Where the startup goes: the dynamic loader's own count.
  LD_DEBUG=statistics "$RDMACHECK" --version 2>&1 >/dev/null | sed 's/^ *[0-9]*: *//' >"$BENCH_DIR/ld-statistics.txt"
  echo "rdmacheck loads $(LD_TRACE_LOADED_OBJECTS=1 "$RDMACHECK" | wc -l) shared objects" >>"$BENCH_DIR/ld-statistics.txt"

  local -A med
  local what
  for what in "ibv_devinfo -v" capture static "ib_write_bw -n 200" full "full less perf" version \
    "ibv_devinfo -v, ASLR off" "capture, ASLR off" "static, ASLR off" "capture, iptables-nft tables"; do
    med[$what]=$(awk -F'\t' -v w="$what" '$1 == w { print $3 }' "$raw" | median)
  done
  {
    printf 'pair\trdmacheck ms\tmanual ms\tratio\ttarget\tguard\n'
    bench_row "capture vs ibv_devinfo -v" "${med[capture]}" "${med[ibv_devinfo -v]}" 2 "$BENCH_GUARD_CAPTURE"
    bench_row "static checklist vs ibv_devinfo -v" "${med[static]}" "${med[ibv_devinfo -v]}" 2 "$BENCH_GUARD_STATIC"
    bench_row "full checklist vs ib_write_bw -n 200" "${med[full]}" "${med[ib_write_bw -n 200]}" 1 "$BENCH_GUARD_FULL"
    bench_row "full less bandwidth,latency vs ib_write_bw -n 200" "${med[full less perf]}" "${med[ib_write_bw -n 200]}" 1 \
      "$BENCH_GUARD_FULL_LESS_PERF"
    printf 'rdmacheck --version\t%s\t\t\t\t\n' "${med[version]}"
    bench_row "capture vs ibv_devinfo -v, ASLR off" "${med[capture, ASLR off]}" "${med[ibv_devinfo -v, ASLR off]}" "" ""
    bench_row "static checklist vs ibv_devinfo -v, ASLR off" "${med[static, ASLR off]}" "${med[ibv_devinfo -v, ASLR off]}" "" ""
    bench_row "capture vs capture with iptables-nft tables" "${med[capture]}" "${med[capture, iptables-nft tables]}" "" ""
  } >"$BENCH_DIR/time-to-verdict.tsv"
  local run phase
  cut -f1,2 "$BENCH_DIR/phases.raw" | sort -u | while IFS=$'\t' read -r run phase; do
    printf '%s\t%s\t%.3f\n' "$run" "$phase" \
      "$(awk -F'\t' -v r="$run" -v p="$phase" '$1 == r && $2 == p { print $3 }' "$BENCH_DIR/phases.raw" | median)"
  done >"$BENCH_DIR/phases.tsv"
  echo "== time to verdict, median of $BENCH_RUNS (ms; runs in out/bench/runs.tsv)"
  bench_table "$BENCH_DIR/time-to-verdict.tsv"
  echo "== where rdmacheck's time goes (median seconds per phase)"
  bench_table "$BENCH_DIR/phases.tsv"
  cat "$BENCH_DIR/ld-statistics.txt"
  bench_record
}

# bench_noaslr: capture and the static checklist against ibv_devinfo -v once
# more, alternating, all in one shell under setarch -R: ADDR_NO_RANDOMIZE is
# inherited by its children, so no run pays for a setarch exec of its own.
# Prints runs.tsv rows; one untimed round first, as above.
bench_noaslr() {
  setarch "$(uname -m)" -R bash -c '
    ms() { local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1; awk -v a="$t0" -v b="$EPOCHREALTIME" "BEGIN { printf \"%d\", (b - a) * 1000 }"; }
    ibv_devinfo -v >/dev/null 2>&1; "$2" capture >/dev/null 2>&1; "$2" --skip "$3" >/dev/null 2>&1
    for ((i = 1; i <= $1; i++)); do
      printf "ibv_devinfo -v, ASLR off\t%d\t%s\n" "$i" "$(ms ibv_devinfo -v)"
      printf "capture, ASLR off\t%d\t%s\n" "$i" "$(ms "$2" capture)"
      printf "static, ASLR off\t%d\t%s\n" "$i" "$(ms "$2" --skip "$3")"
    done' _ "$BENCH_RUNS" "$RDMACHECK" "$BENCH_STATIC_SKIP"
}

# bench_table TSV: the file in aligned columns (the guest has no column(1)).
bench_table() {
  awk -F'\t' '{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } if (NF > nf) nf = NF }
    END { for (r = 1; r <= NR; r++) { l = ""; for (i = 1; i <= nf; i++) l = l sprintf("%-" w[i] + 2 "s", c[r, i]); print l } }' "$1"
}

# bench_row NAME RDMACHECK_MS MANUAL_MS TARGET GUARD: one row of the table.
bench_row() {
  local ratio
  ratio=$(awk -v a="$2" -v b="$3" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "" }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$ratio" "$4" "$5"
}

# bench_record: one result per pair. At or under the target: PASS. Over it
# but within the guard (about 1.5x the ratio this build measured, so that a
# regression shows): XFAIL, the target not reached yet (docs/performance.md
# says what stands in the way). Over the guard: FAIL. Then the static
# checklist's own time against node-problem-detector's 5 s.
bench_record() {
  local name r m ratio target guard label
  while IFS=$'\t' read -r name r m ratio target guard; do
    [[ -n "$target" && "$name" != pair ]] || continue
    label="bench: $name at most ${target}x"
    if [[ -z "$ratio" ]]; then
      record FAIL "$label" "no figure (see out/bench/runs.tsv)"
    elif awk -v x="$ratio" -v t="$target" 'BEGIN { exit !(x <= t) }'; then
      record PASS "$label" "${ratio}x: ${r} ms against ${m} ms"
    elif awk -v x="$ratio" -v g="$guard" 'BEGIN { exit !(x <= g) }'; then
      record XFAIL "$label" "${ratio}x: ${r} ms against ${m} ms; within the guard ${guard}x (docs/performance.md)"
    else
      record FAIL "$label" "${ratio}x: ${r} ms against ${m} ms; over the guard ${guard}x: a regression"
    fi
  done <"$BENCH_DIR/time-to-verdict.tsv"
  local added
  added=$(awk -F'\t' '$1 ~ /^full checklist/ { f = $2 } $1 ~ /^full less/ { l = $2 } END { if (f != "" && l != "") print f - l }' \
          "$BENCH_DIR/time-to-verdict.tsv")
  if [[ -n "$added" ]] && ((added <= 3000)); then
    record PASS "bench: bandwidth + latency add at most 3 s to the live checklist" "${added} ms"
  else
    record FAIL "bench: bandwidth + latency add at most 3 s to the live checklist" "${added:-no figure} ms"
  fi
  local static_ms
  static_ms=$(awk -F'\t' '$1 ~ /^static/ { print $2; exit }' "$BENCH_DIR/time-to-verdict.tsv")
  if [[ -n "$static_ms" ]] && ((static_ms < 4000)); then
    record PASS "bench: static checklist under 4 s (node-problem-detector's 5 s, with room)" "${static_ms} ms"
  else
    record FAIL "bench: static checklist under 4 s (node-problem-detector's 5 s, with room)" "${static_ms:-no figure} ms"
  fi
}
