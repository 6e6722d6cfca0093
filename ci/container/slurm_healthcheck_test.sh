#!/usr/bin/env bash
# ci/container/slurm/rdmacheck-healthcheck.sh against the real rdmacheck on
# fixture profiles, with scontrol, logger and hostname replaced by recorders:
# a FAIL drains the node with the NPD line as the reason, a WARN-only run
# and an unknown result (exit 2) do not. Runs from the workspace root.
set -uo pipefail
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }

root=$PWD
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mkdir -p "$tmp/bin"
cat > "$tmp/bin/scontrol" <<'SH'
#!/bin/sh
printf '%s|' "$@" >> "$LOGDIR/scontrol.log"; echo >> "$LOGDIR/scontrol.log"
SH
cat > "$tmp/bin/logger" <<'SH'
#!/bin/sh
echo "$*" >> "$LOGDIR/logger.log"
SH
printf '#!/bin/sh\necho node07\n' > "$tmp/bin/hostname"
# rdmacheck as the wrapper calls it, on a recorded profile instead of this host.
# shellcheck disable=SC2016  # $PROFILE and $@ are for the stub, not here
printf '#!/bin/sh\nexec "%s/rdmacheck" --profile "$PROFILE" "$@"\n' "$root" > "$tmp/bin/rdmacheck"
chmod +x "$tmp/bin/"*

run() {  # profile -> the wrapper's exit code; logs in $LOGDIR
  export LOGDIR="$tmp/$1" PROFILE=$2
  mkdir -p "$LOGDIR"
  PATH="$tmp/bin:$PATH" RDMACHECK="$tmp/bin/rdmacheck" bash ci/container/slurm/rdmacheck-healthcheck.sh
}

run fail fixtures/profiles/rxe_nft_drop.profile; rc=$?
want='update|nodename=node07|state=drain|reason=rdmacheck: FAIL firewall-4791: UDP 4791 in on va (rxe0) to 198.18.0.1: dropped... (+1 WARN)|'
if [[ $rc == 0 ]]; then pass "FAIL: the wrapper exits 0"; else fail "FAIL: the wrapper exited $rc"; fi
if [[ "$(cat "$tmp/fail/scontrol.log" 2>/dev/null)" == "$want" ]]; then pass "FAIL: drained with the line as reason"
else fail "FAIL: scontrol got '$(cat "$tmp/fail/scontrol.log" 2>/dev/null)', want '$want'"; fi

run warn fixtures/profiles/rxe_mtu9000.profile; rc=$?
if [[ $rc == 0 && ! -e "$tmp/warn/scontrol.log" ]]; then pass "WARN only: not drained"
else fail "WARN only: exit $rc, scontrol: $(cat "$tmp/warn/scontrol.log" 2>/dev/null)"; fi

run unknown /nonexistent/node.profile; rc=$?
if [[ $rc == 0 && ! -e "$tmp/unknown/scontrol.log" ]]; then pass "unknown: not drained"
else fail "unknown: exit $rc, scontrol: $(cat "$tmp/unknown/scontrol.log" 2>/dev/null)"; fi
if grep -qF 'rdmacheck exit 2 (no verdict): UNKNOWN: ReadProfileFile(/nonexistent/node.profile): no such file' \
  "$tmp/unknown/logger.log" 2>/dev/null; then pass "unknown: logged with rdmacheck's line"
else fail "unknown: logger got '$(cat "$tmp/unknown/logger.log" 2>/dev/null)'"; fi

echo "$fails failed"
((fails == 0))
