#!/usr/bin/env bash
# Makes the fleet of testdata/fleet/ (tools/fleet's tests and docs/fleet.md)
# with the real binary, from fixtures/profiles/mlx5_symbol_errors.profile
# (one ConnectX-6 with a 2 s counter window) and the plan gpu_fleet.plan
# beside this script. Rerun after a change to the
# report or the bundle:
#
#   bazel build //:rdmacheck && bash tools/fleet/testdata/make_fleet.sh
#
# Six nodes gpu-node01..06, each with its own hostname, GUID and address:
# 01 and 02 healthy, 03 at netdev MTU 1500 (active_mtu 1024), 04 with
# firmware 20.28.2006, 05 with RLIMIT_MEMLOCK 64 KiB, 06 taking symbol
# errors over the window (the base profile as it is). Then three files that
# fleet must refuse: a second report of gpu-node01, gpu-node07's bundle cut
# short, and gpu-node08's report claiming schema_version 2.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=$(realpath "${1:-bazel-bin/rdmacheck}")
base=$PWD/fixtures/profiles/mlx5_symbol_errors.profile
out=$PWD/tools/fleet/testdata/fleet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp tools/fleet/testdata/gpu_fleet.plan "$tmp/"

# The base with a healthy window: error counters and AER totals end where
# they started; data and packet counters move as traffic would.
healthy() {
  awk '
    $1 == "counter" || $1 == "hw_counter" || $1 == "aer" { start[$1 " " $2] = $3 }
    $1 == "counter_after" || $1 == "hw_counter_after" || $1 == "aer_after" {
      k = substr($1, 1, length($1) - 6) " " $2
      if (!($2 ~ /_(data|packets)$/)) { print $1, $2, start[k]; next }
    }
    { print }' "$base"
}

# Node NN of the stdin profile: hostname, GUIDs, GIDs and address its own.
node() {
  sed -e '/^#/d' \
      -e "s/^provenance .*/provenance made by tools\/fleet\/testdata\/make_fleet.sh from mlx5_symbol_errors.profile; not a capture/" \
      -e "s/gpu-node07/gpu-node$1/" -e "s/b2c4/b2$1/g" -e "s/10\.10\.1\.17/10.10.1.$((10#$1))/g"
}

# rdmacheck exits 1 when a check FAILs: that is a result here, not an error.
run() { (cd "$tmp" && "$bin" "$@" --plan gpu_fleet.plan) || [[ $? == 1 ]]; }

healthy | node 01 > "$tmp/gpu-node01.profile"
healthy | node 02 > "$tmp/gpu-node02.profile"
healthy | node 03 | sed -e 's/^mtu 9000$/mtu 1500/' -e 's/^active_mtu 4096$/active_mtu 1024/' > "$tmp/gpu-node03.profile"
healthy | node 04 | sed -e 's/^fw_ver 20.31.1014$/fw_ver 20.28.2006/' > "$tmp/gpu-node04.profile"
healthy | node 05 | sed -e 's/^memlock_\(soft\|hard\) unlimited$/memlock_\1 65536/' > "$tmp/gpu-node05.profile"
node 06 < "$base" > "$tmp/gpu-node06.profile"
healthy | node 07 > "$tmp/gpu-node07.profile"
healthy | node 08 > "$tmp/gpu-node08.profile"

rm -rf "$out"
mkdir -p "$out/rack1" "$out/rack2"
run report --profile gpu-node01.profile --format=json > "$out/rack1/gpu-node01.json"
run --profile gpu-node01.profile --format=json > "$out/rack1/gpu-node01.old.json"
run --profile gpu-node02.profile --format=json > "$out/rack1/gpu-node02.json"
run report --profile gpu-node03.profile --format=json > "$out/rack1/gpu-node03.json"
{
  echo "# gpu-node04.profile: made by tools/fleet/testdata/make_fleet.sh (rdmacheck capture's"
  echo "# format): a healthy gpu-node with firmware 20.28.2006 where its peers run 20.31.1014."
  cat "$tmp/gpu-node04.profile"
} > "$out/rack2/gpu-node04.profile"
run report --profile gpu-node05.profile --format=json > "$out/rack2/gpu-node05.json"
run report --profile gpu-node06.profile --format=json > "$out/rack2/gpu-node06.json"
run report --profile gpu-node07.profile --format=json > "$tmp/gpu-node07.json"
# Cut inside its checks at the end of line 40, whatever the timings' digits.
head -n 40 "$tmp/gpu-node07.json" | head -c -1 > "$out/rack2/gpu-node07.json"
run --profile gpu-node08.profile --format=json | sed 's/^  "schema_version": 1,$/  "schema_version": 2,/' \
  > "$out/rack2/gpu-node08.json"
grep -q '"schema_version": 2' "$out/rack2/gpu-node08.json"
echo "make_fleet.sh: wrote $(find "$out" -type f | wc -l) files to ${out#"$PWD"/}"
