#!/usr/bin/env bash
# The tree's layering (layers.txt) holds, and the checker itself catches an
# upward include and an upward BUILD dependency in a scratch tree.
set -u
here=$(dirname "$(readlink -f "$0")")
check="$here/check_layers.py"
fail=0

echo "== the tree"
python3 "$check" || fail=1

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/facts" "$scratch/checks"
printf '0 facts\n1 checks\n' >"$scratch/layers.txt"
printf '#include "facts/view.h"\n' >"$scratch/checks/ok.cc"
printf 'cc_library(\n    name = "ok",\n    deps = ["//facts:view"],\n)\n' >"$scratch/checks/BUILD.bazel"

echo "== scratch tree, downward only: must pass"
if ! python3 "$check" --root "$scratch" --layers "$scratch/layers.txt"; then
  echo "FAIL: a downward include was reported"; fail=1
fi

echo "== scratch tree with facts/view.h including checks/x.h: must fail"
printf '#include "checks/x.h"\n' >"$scratch/facts/view.h"
out=$(python3 "$check" --root "$scratch" --layers "$scratch/layers.txt"); rc=$?
echo "$out"
if [[ $rc -ne 1 ]] || ! grep -q '^facts/view.h:1: facts (facts, layer 0) uses checks (checks, layer 1) above it' <<<"$out"; then
  echo "FAIL: the upward include was not reported"; fail=1
fi
rm "$scratch/facts/view.h"

echo "== scratch tree with a facts target depending on //checks: must fail"
printf 'cc_library(\n    name = "view",\n    deps = [\n        "//checks:ok",\n    ],\n)\n' >"$scratch/facts/BUILD.bazel"
out=$(python3 "$check" --root "$scratch" --layers "$scratch/layers.txt"); rc=$?
echo "$out"
if [[ $rc -ne 1 ]] || ! grep -q '^facts/BUILD.bazel:4: .*uses checks .*"//checks:ok"' <<<"$out"; then
  echo "FAIL: the upward BUILD dependency was not reported"; fail=1
fi

exit $fail
