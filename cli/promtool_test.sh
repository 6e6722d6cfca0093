#!/usr/bin/env bash
# `rdmacheck --format=prometheus` on fixture profiles passes `promtool check
# metrics` (the exposition format's parser and Prometheus' own naming lint:
# HELP, TYPE, _total on counters, base units) without one complaint. promtool
# is Debian's package prometheus (ci/deps.sh). Runs from the workspace root.
set -uo pipefail
command -v promtool >/dev/null || { echo "FAIL: promtool missing (ci/deps.sh installs prometheus)"; exit 1; }
fails=0
tmp=${TEST_TMPDIR:-$(mktemp -d)}
# A counter window (rates), two rxe devices, no device at all, a port down,
# and a pasted ibv_devinfo (a partial view).
for p in mlx5_symbol_errors.profile rxe_mtu9000.profile no_device.profile rxe_port_down.profile \
         mlx5_cx6.devinfo.txt; do
  ./rdmacheck --profile "fixtures/profiles/$p" --format=prometheus -o "$tmp/$p.prom"
  rc=$?
  if [[ $rc -gt 1 ]]; then echo "FAIL: $p: rdmacheck exited $rc"; fails=$((fails + 1)); continue; fi
  if out=$(promtool check metrics < "$tmp/$p.prom" 2>&1) && [[ -z "$out" ]]; then
    echo "PASS: $p: $(grep -c '^# TYPE' "$tmp/$p.prom") families, $(grep -vc '^#' "$tmp/$p.prom") samples"
  else
    echo "FAIL: $p: promtool says:"; echo "$out"; fails=$((fails + 1))
  fi
done
echo "$fails failed"
((fails == 0))
