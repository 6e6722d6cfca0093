#!/usr/bin/env bash
# prune.sh keeps the most recently read files and nothing over the bound.
set -euo pipefail
prune=$1
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/cache.XXXXXX")
mk() { # mk NAME MB DATE
  mkdir -p "$(dirname "$dir/$1")"
  head -c $(($2 * 1048576)) /dev/zero >"$dir/$1"
  touch -a -d "$3" "$dir/$1"
}
mk cas/aa/old1 3 "2026-11-01"
mk cas/bb/old2 3 "2026-11-02"
mk ac/cc/mid 3 "2026-11-20"
mk cas/dd/new 3 "2026-12-04"
fail=0
expect() { # expect NAME kept|gone
  local got=gone
  [[ -e "$dir/$1" ]] && got=kept
  if [[ $got != "$2" ]]; then echo "FAIL: $1 $got, expected $2"; fail=1; fi
}
# Under the bound: nothing happens.
out=$(bash "$prune" "$dir" 20 7)
[[ -z $out ]] || { echo "FAIL: pruned under the bound: $out"; fail=1; }
expect cas/aa/old1 kept
# 12 MB over a bound of 10: down to at most 7 MB, oldest reads first.
out=$(bash "$prune" "$dir" 10 7)
echo "$out"
expect cas/aa/old1 gone
expect cas/bb/old2 gone
expect ac/cc/mid kept
expect cas/dd/new kept
used=$(du -sm "$dir" | cut -f1)
((used <= 7)) || { echo "FAIL: $used MB left, bound 7"; fail=1; }
# A name with a space and a missing directory are handled.
mk "cas/ee/a b" 8 "2026-10-01"
bash "$prune" "$dir" 10 7 >/dev/null
expect "cas/ee/a b" gone
bash "$prune" "$dir/none" 1 1
rm -rf "$dir"
((fail == 0)) && echo "prune_test: ok"
exit "$fail"
