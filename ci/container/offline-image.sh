#!/usr/bin/env bash
# offline-image.sh: the image of ci/container/Dockerfile without a registry,
# for engines that cannot pull (the Soft-RoCE guest has no network). The
# Dockerfile stays the recipe: this script reads its final stage (the Debian
# suite of its FROM line, the packages of its `apt-get install`, its
# ENTRYPOINT and CMD) and makes the same root filesystem with mmdebstrap from
# the host's apt sources (minbase, as Debian's -slim images are), then adds
# the rdmacheck binary where the Dockerfile's COPY puts it.
#
#   offline-image.sh --print-recipe                # what it read, one key=value a line
#   offline-image.sh --binary bazel-bin/rdmacheck --out DIR
#       # DIR/rdmacheck.tar: a `docker save` archive tagged rdmacheck:latest
#       #   (`docker load -i`, `podman load -i`) with the Dockerfile's
#       #   ENTRYPOINT and CMD; DIR/packages: the Dockerfile's package list;
#       # DIR/base-layer.sha256: the root filesystem layer's digest
#
# The root filesystem without the binary is cached in
# ${RDMACHECK_VM_CACHE:-/var/cache/rdmacheck-vm}/container-image/<key>/, keyed
# by this script, the recipe and the candidate versions of the packages, so
# a second run only copies it. Needs root and mmdebstrap (ci/deps.sh --guest).
# Exit 2 with a message naming the Dockerfile line when the Dockerfile is not
# of the shape read here.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DOCKERFILE=$HERE/Dockerfile
CACHE=${RDMACHECK_VM_CACHE:-/var/cache/rdmacheck-vm}/container-image
PRINT=0 BINARY="" OUT=""
while (($#)); do
  case "$1" in
    --dockerfile) DOCKERFILE=$2; shift 2 ;;
    --print-recipe) PRINT=1; shift ;;
    --binary) BINARY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "offline-image.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
die() { echo "offline-image.sh: $*" >&2; exit 2; }
log() { echo "[offline-image +${SECONDS}s] $*" >&2; }
[[ -r "$DOCKERFILE" ]] || die "cannot read $DOCKERFILE"

# The final stage, continuation lines joined, each instruction prefixed with
# the number of the line it starts on.
stage=$(awk '
  { line = $0; sub(/\r$/, "", line) }
  cont { buf = buf " " line } !cont { start = NR; buf = line }
  { cont = sub(/\\$/, "", buf) }
  !cont && buf !~ /^[[:space:]]*(#|$)/ { print start ": " buf }
' "$DOCKERFILE" | awk '/^[0-9]+: FROM /{s = ""} {s = s $0 "\n"} END {printf "%s", s}')
[[ -n "$stage" ]] || die "$DOCKERFILE: no FROM line"

from=$(sed -n '1p' <<<"$stage")
from_no=${from%%:*}
image=$(awk '{print $3}' <<<"$from")
case "$image" in
  debian:*-slim) SUITE=${image#debian:}; SUITE=${SUITE%-slim} ;;
  debian:*) SUITE=${image#debian:} ;;
  *) die "$DOCKERFILE:$from_no: FROM: the final stage's base '$image' is not a debian:SUITE image" ;;
esac
[[ "$SUITE" =~ ^[a-z]+$ ]] || die "$DOCKERFILE:$from_no: FROM: '$image' names no Debian suite (debian:bookworm-slim)"

inst=$(grep -E '^[0-9]+: RUN .*apt-get install' <<<"$stage" || true)
[[ -n "$inst" ]] || die "$DOCKERFILE: the final stage (line $from_no) has no RUN ... apt-get install"
(($(wc -l <<<"$inst") == 1)) || die "$DOCKERFILE: the final stage has more than one RUN ... apt-get install"
inst_no=${inst%%:*}
# The words after `apt-get install` up to the next `&&`, options dropped.
mapfile -t PKGS < <(sed -E 's/.*apt-get install//; s/&&.*//' <<<"${inst#*: }" | tr -s ' \t' '\n' |
  grep -v '^-' | grep -v '^$' || true)
((${#PKGS[@]})) || die "$DOCKERFILE:$inst_no: RUN: apt-get install names no package"
for p in "${PKGS[@]}"; do
  [[ "$p" =~ ^[a-z0-9][a-z0-9+.-]+$ ]] || die "$DOCKERFILE:$inst_no: RUN: '$p' is not a Debian package name"
done
grep -q -- '--no-install-recommends' <<<"$inst" ||
  die "$DOCKERFILE:$inst_no: RUN: apt-get install without --no-install-recommends (this script installs none)"

copy=$(grep -E '^[0-9]+: COPY --from=[^ ]+ [^ ]+ /' <<<"$stage" || true)
[[ -n "$copy" ]] || die "$DOCKERFILE: the final stage has no COPY --from=STAGE SRC DEST of the binary"
DEST=$(awk '{print $5}' <<<"$copy")
ENTRYPOINT=$(grep -E '^[0-9]+: ENTRYPOINT ' <<<"$stage" | sed 's/^[0-9]*: //' || true)
CMD=$(grep -E '^[0-9]+: CMD ' <<<"$stage" | sed 's/^[0-9]*: //' || true)
[[ -n "$ENTRYPOINT" ]] || die "$DOCKERFILE: the final stage has no ENTRYPOINT"

if ((PRINT)); then
  printf 'suite=%s\nvariant=minbase\npackages=%s\nbinary=%s\nentrypoint=%s\ncmd=%s\n' \
    "$SUITE" "${PKGS[*]}" "$DEST" "$ENTRYPOINT" "$CMD"
  exit 0
fi

[[ -n "$OUT" && -n "$BINARY" ]] || die "--out DIR and --binary FILE are needed (or --print-recipe)"
[[ -x "$BINARY" ]] || die "no executable binary at $BINARY"
[[ $(id -u) -eq 0 ]] || die "needs root (mmdebstrap --mode=root)"
command -v mmdebstrap >/dev/null || die "mmdebstrap missing (run: bash ci/deps.sh --guest)"

SOURCES=""
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -s "$f" ]] && SOURCES+=$(cat "$f")$'\n\n'
done
[[ -n "$SOURCES" ]] || die "no apt sources on this host (/etc/apt/sources.list*)"
versions=$(apt-cache policy "${PKGS[@]}" libc6 2>/dev/null | awk '/^[^ ]/{p=$1} /Candidate:/{print p, $2}')
# Recommends off and documentation out, as the Dockerfile's
# --no-install-recommends and Debian's -slim images have it; merged /usr
# made by the hook rather than by the usrmerge package (which pulls perl).
MMDEBSTRAP=(--variant=minbase --mode=root --format=tar
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --aptopt='APT::Install-Recommends "false"'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*')
KEY=$({ printf '%s\n' "${MMDEBSTRAP[@]}"; echo "$SUITE ${PKGS[*]}"; echo "$versions"; } | sha256sum | cut -c1-16)
BASE=$CACHE/$KEY/rootfs.tar
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 900 9 || die "timed out waiting for $CACHE/.lock"
if [[ -s "$BASE" ]]; then
  log "cached root filesystem $BASE"
else
  log "root filesystem: mmdebstrap $SUITE minbase + ${PKGS[*]}"
  T=$(mktemp -d "$CACHE/.build.XXXXXX")
  trap 'rm -rf "$T"' EXIT
  if ! timeout 900 mmdebstrap "${MMDEBSTRAP[@]}" --include="$(IFS=,; echo "${PKGS[*]}")" \
      "$SUITE" "$T/rootfs.tar" - <<<"$SOURCES" >"$T/mmdebstrap.log" 2>&1; then
    tail -20 "$T/mmdebstrap.log" >&2
    die "mmdebstrap failed (log above)"
  fi
  mkdir -p "$CACHE/$KEY"
  mv "$T/rootfs.tar" "$BASE"
fi

[[ -s "$BASE.sha256" ]] || sha256sum "$BASE" | cut -d' ' -f1 >"$BASE.sha256"

# A `docker save` archive (what `docker load` and `podman load` read) with
# two layers, as the Dockerfile makes them: the root filesystem, then the
# binary. An engine whose store already has the first layer loads only the
# second (ci/guest/engines.bash keeps the stores between runs).
S=$(mktemp -d)
mkdir -p "$S/base" "$S/bin" "$S/root"
ln -s "$BASE" "$S/base/layer.tar"
install -D -m 0755 "$BINARY" "$S/root/${DEST#/}"
tar -cf "$S/bin/layer.tar" --owner=0 --group=0 --sort=name --mtime=@0 -C "$S/root" "./${DEST#/}"
json_array() { sed -E 's/^(ENTRYPOINT|CMD)[[:space:]]+//' <<<"$1"; }
ep=$(json_array "$ENTRYPOINT"); cmd=$(json_array "${CMD:-CMD []}")
[[ "$ep" == \[*\] && "$cmd" == \[*\] ]] || die "$DOCKERFILE: ENTRYPOINT and CMD must be JSON arrays (exec form)"
printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":%s,"Cmd":%s},"rootfs":{"type":"layers","diff_ids":["sha256:%s","sha256:%s"]},"history":[{"created_by":"mmdebstrap %s minbase + %s"},{"created_by":"COPY rdmacheck %s"}]}' \
  "$ep" "$cmd" "$(cat "$BASE.sha256")" "$(sha256sum "$S/bin/layer.tar" | cut -d' ' -f1)" \
  "$SUITE" "${PKGS[*]}" "$DEST" >"$S/config.json"
cfg=$(sha256sum "$S/config.json" | cut -d' ' -f1)
mv "$S/config.json" "$S/$cfg.json"
printf '[{"Config":"%s.json","RepoTags":["rdmacheck:latest"],"Layers":["base/layer.tar","bin/layer.tar"]}]\n' "$cfg" >"$S/manifest.json"
mkdir -p "$OUT"
tar -chf "$OUT/rdmacheck.tar" -C "$S" manifest.json "$cfg.json" base/layer.tar bin/layer.tar
rm -rf "$S"
printf '%s\n' "${PKGS[@]}" >"$OUT/packages"
cat "$BASE.sha256" >"$OUT/base-layer.sha256"
log "image archive $OUT/rdmacheck.tar ($(du -h "$OUT/rdmacheck.tar" | cut -f1)): base layer $(cut -c1-12 "$BASE.sha256"), binary at $DEST"
