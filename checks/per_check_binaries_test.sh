#!/usr/bin/env bash
# Every per-check binary made by rdmacheck_check() runs on a fixture profile
# as `bazel run //checks:<name>` would, reports exactly its own check and
# nothing else, in text and in JSON, and refuses --checks.
# Args: pairs of <binary path> <check id>.
set -u
profile=fixtures/profiles/rxe_mtu9000.profile
plan=fixtures/plans/rxe_guest.plan
fails=0 n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
while (($# >= 2)); do
  bin=$1 id=$2; shift 2; n=$((n + 1))
  out=$("$bin" --profile "$profile" --plan "$plan" --color=never 2>&1); rc=$?
  ((rc <= 1 || rc == 3)) || fail "$id: exit $rc: $out"
  tags=$(grep -cE '^\[(PASS|WARN|FAIL|SKIP)\] [a-z0-9-]+  ' <<<"$out")  # verdict lines, not the remediation headers
  [[ "$tags" == 1 ]] || fail "$id: $tags verdict lines, want 1"
  grep -qE "^\[(PASS|WARN|FAIL|SKIP)\] $id  " <<<"$out" || fail "$id: no verdict line for $id"
  json=$("$bin" --profile "$profile" --plan "$plan" --format=json 2>&1)
  grep -q "\"id\": \"$id\"" <<<"$json" || fail "$id: JSON lacks its id"
  grep -q '"total": 1' <<<"$json" || fail "$id: JSON summary total is not 1"
  "$bin" --checks port-active >/dev/null 2>&1
  (($? == 2)) || fail "$id: --checks was not refused with exit 2"
done
echo "per-check binaries: $n run, $fails failures"
((n >= 14 && fails == 0))
