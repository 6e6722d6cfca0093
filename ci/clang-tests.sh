#!/usr/bin/env bash
# clang-tests.sh: the hermetic suite built with clang instead of g++ (both
# with ASan and UBSan, as `bazel test` always is: .bazelrc), so the tree
# stays buildable by the compiler libFuzzer needs and a g++-only construct
# or a clang-only warning turned error is caught on every run. Ends with
# "N passed, M failed" over the test cases.
#
#   bash ci/clang-tests.sh [TARGET...]     (default: every package)
# Builds in the clang output base (ci/clang-ob.sh). Extra bazel flags:
# RDMACHECK_BAZEL_FLAGS.
set -uo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
source ci/clang-ob.sh
trap 'bz shutdown >/dev/null 2>&1 || true' EXIT
log=$(mktemp)
# --symlink_prefix=/: no bazel-* links in the checkout (see ci/fuzz.sh).
# Not `//...`: the checkout's own bazel-* links point into the other output
# base, and this one walks into them as packages (its build fails loading
# bazel-NAME/external/...). Every top-level package instead.
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(//:all)
  for d in */; do
    d=${d%/}
    [[ $d != bazel-* && ! -L $d ]] && [[ -n "$(find "$d" -name BUILD.bazel -print -quit)" ]] && targets+=("//$d/...")
  done
fi
timeout 1500 bazel --output_base="$OB" test ${RDMACHECK_BAZEL_FLAGS:-} --config=clang --symlink_prefix=/ \
  --noshow_progress "${targets[@]}" >"$log" 2>&1
rc=$?
# clang 14's ASan runtime with gold prints a warning per local symbol.
grep -v "ld.gold: warning: Cannot export local symbol" "$log" | grep -E "^(FAIL|ERROR|Test cases|Executed|INFO: Elapsed)|FAILED" | head -40
read -r p f < <(sed -n 's/^Test cases: finished with \([0-9]*\) passing and \([0-9]*\) failing.*/\1 \2/p' "$log" | tail -1)
p=${p:-0} f=${f:-0}
if ((rc != 0 && f == 0)); then
  grep -v "ld.gold: warning" "$log" | tail -20
  f=1
fi
rm -f "$log"
echo "$p passed, $f failed"
((rc == 0))
