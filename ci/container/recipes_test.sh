#!/usr/bin/env bash
# The scripts that make the README's container lines and the Dockerfile's
# image real (they run under Docker and Podman in the guest stage), checked
# without an engine:
#   - run-checks.sh prints exactly the README's docker and podman lines, and
#     its --device/--without/--with/--no-args edits do what they say;
#   - offline-image.sh reads the Dockerfile's final stage (suite, packages,
#     binary path, ENTRYPOINT, CMD) and follows it when it changes; a
#     Dockerfile of another shape is refused naming its line;
#   - the Dockerfile builds rdmacheck as the README and the guest stage do
#     (`bazel build -c opt //:rdmacheck`), so the image carries that binary.
# Runs from the workspace root (bazel test).
set -uo pipefail
D=ci/container
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }
same() { if [[ "$2" == "$3" ]]; then pass "$1"; else fail "$1: got '$2', want '$3'"; fi; }
tmp=${TEST_TMPDIR:-$(mktemp -d)}

# The README's lines, read here independently of run-checks.sh's awk.
readme_line() {
  python3 - "$1" <<'PY'
import sys
eng = sys.argv[1]
lines = open("README.md").read().split("\n")
sec = lines.index("## Containers")
out = []
for i in range(sec + 1, len(lines)):
    if lines[i].startswith("## "):
        break
    if lines[i].startswith("    %s run " % eng):
        j = i
        while True:
            l = lines[j]
            more = l.endswith("\\")
            out.append(l[:-1] if more else l)
            if not more:
                break
            j += 1
        break
print(" ".join(" ".join(out).split()))
PY
}
for e in docker podman; do
  want=$(readme_line "$e")
  [[ -n "$want" ]] || fail "README.md has a '$e run' line in its Containers section"
  same "run-checks.sh --engine $e --print is the README's line" \
    "$(bash $D/run-checks.sh --engine "$e" --print)" "$want"
done

same "--without '--device=*' drops both --device flags" \
  "$(bash $D/run-checks.sh --print --without '--device=*')" \
  "docker run --rm --cap-add=IPC_LOCK --ulimit memlock=-1 --network host rdmacheck -d rxe0"
same "--without '--network host' --with '--network none' swaps the network" \
  "$(bash $D/run-checks.sh --engine podman --print --without '--network host' --with '--network none' -- --checks gid-table)" \
  "podman run --rm --device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm --cap-add=IPC_LOCK --ulimit memlock=-1 --network none rdmacheck -d rxe0 --checks gid-table"
same "--without a two-word option and --with a new limit" \
  "$(bash $D/run-checks.sh --print --without '--ulimit memlock=-1' --without --cap-add=IPC_LOCK --with '--ulimit memlock=65536')" \
  "docker run --rm --device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm --network host --ulimit memlock=65536 rdmacheck -d rxe0"
same "--no-args and a subcommand after --" \
  "$(bash $D/run-checks.sh --print --no-args --image other -- serve -d rxe1)" \
  "docker run --rm --device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm --cap-add=IPC_LOCK --ulimit memlock=-1 --network host other serve -d rxe1"

printf '# x\n\n## Containers\n\nnothing here\n\n## Next\n\n    docker run --rm img\n' >"$tmp/README.md"
out=$(bash $D/run-checks.sh --readme "$tmp/README.md" --print 2>&1); rc=$?
if ((rc == 2)) && [[ "$out" == *"$tmp/README.md"*"no indented 'docker run ...' line"* ]]; then
  pass "a README without the line: exit 2 naming the file"
else
  fail "a README without the line: exit 2 naming the file (exit $rc: $out)"
fi
out=$(bash $D/run-checks.sh --engine crun --print 2>&1); rc=$?
((rc == 2)) && [[ "$out" == *crun* ]] && pass "an unknown engine: exit 2" || fail "an unknown engine: exit 2 ($rc: $out)"

# offline-image.sh reads the Dockerfile's final stage.
recipe=$(bash $D/offline-image.sh --print-recipe) || fail "offline-image.sh --print-recipe on the Dockerfile"
key() { sed -n "s/^$1=//p" <<<"$recipe"; }
pk=$(python3 - <<'PY'
import re
s = open("ci/container/Dockerfile").read().replace("\\\n", " ")
final = s[s.rindex("\nFROM "):]
m = re.search(r"apt-get install ([^&]*)&&", final)
print(" ".join(w for w in m.group(1).split() if not w.startswith("-")))
PY
)
same "recipe: the final stage's packages" "$(key packages)" "$pk"
same "recipe: the suite of FROM debian:bookworm-slim" "$(key suite)" bookworm
same "recipe: the binary where COPY puts it" "$(key binary)" /usr/local/bin/rdmacheck
same "recipe: ENTRYPOINT" "$(key entrypoint)" 'ENTRYPOINT ["/usr/local/bin/rdmacheck"]'
same "recipe: CMD" "$(key cmd)" 'CMD ["--help"]'

sed 's/ibverbs-utils iproute2/ibverbs-utils iproute2 rdmacm-utils/' $D/Dockerfile >"$tmp/Dockerfile.more"
recipe=$(bash $D/offline-image.sh --dockerfile "$tmp/Dockerfile.more" --print-recipe)
same "recipe follows a package added to the Dockerfile" "$(key packages)" "${pk/iproute2/iproute2 rdmacm-utils}"

sed 's/^FROM debian:bookworm-slim$/FROM ubuntu:22.04/' $D/Dockerfile >"$tmp/Dockerfile.ubuntu"
n=$(grep -n '^FROM ubuntu:22.04$' "$tmp/Dockerfile.ubuntu" | cut -d: -f1)
out=$(bash $D/offline-image.sh --dockerfile "$tmp/Dockerfile.ubuntu" --print-recipe 2>&1); rc=$?
if ((rc == 2)) && [[ "$out" == *"Dockerfile.ubuntu:$n: FROM:"*"not a debian:SUITE image"* ]]; then
  pass "a non-Debian base: exit 2 naming the file and line $n"
else
  fail "a non-Debian base: exit 2 naming the file and line $n (exit $rc: $out)"
fi
sed 's/ --no-install-recommends//' $D/Dockerfile >"$tmp/Dockerfile.rec"
out=$(bash $D/offline-image.sh --dockerfile "$tmp/Dockerfile.rec" --print-recipe 2>&1); rc=$?
((rc == 2)) && [[ "$out" == *"without --no-install-recommends"* ]] &&
  pass "an install with Recommends: refused" || fail "an install with Recommends: refused ($rc: $out)"

# One build of the binary: the Dockerfile's, the README's and the guest's.
grep -q 'bazel build -c opt --spawn_strategy=standalone //:rdmacheck' $D/Dockerfile &&
  pass "the Dockerfile builds -c opt //:rdmacheck" || fail "the Dockerfile builds -c opt //:rdmacheck"
grep -q 'bazel build -c opt //:rdmacheck' README.md &&
  pass "the README builds -c opt //:rdmacheck" || fail "the README builds -c opt //:rdmacheck"
grep -qF 'bazel build ${RDMACHECK_BAZEL_FLAGS:-} -c opt --noshow_progress //:rdmacheck' ci/guest/run.sh &&
  pass "the guest stage builds -c opt //:rdmacheck" || fail "the guest stage builds -c opt //:rdmacheck"

if command -v shellcheck >/dev/null; then
  shellcheck $D/run-checks.sh $D/offline-image.sh && pass "shellcheck run-checks.sh offline-image.sh" ||
    fail "shellcheck run-checks.sh offline-image.sh"
fi
echo "$fails failed"
((fails == 0))
