#!/usr/bin/env bash
# build-image.sh: makes sure a Soft-RoCE guest image (Debian's own kernel +
# an initramfs unpacked from Debian packages) exists in the cache, and prints
# its directory on stdout (progress goes to stderr).
#
#   img=$(ci/softroce-vm/build-image.sh)      # -> $img/vmlinuz, $img/initrd.img
#   ci/softroce-vm/run-guest.sh --image "$img" --share DIR --script guest-main.sh
#
# Cache: ${RDMACHECK_VM_CACHE:-/var/cache/rdmacheck-vm}/<kernel package version>/
# keyed by the version of the kernel package linux-image-amd64 depends on. The
# directory also records recipe.sha256 (this script, init, the package and
# module lists): when the recipe changes the image is rebuilt. The build runs
# in a temporary directory beside the cache entry and is renamed into place,
# so a killed build never leaves a half image; a lock serialises builders.
#
# Packages come from the host's configured apt sources (apt-get download):
# no mirror address is written anywhere. Needs root (chroot for ldconfig and
# depmod inside the guest root), Debian 12 host.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${RDMACHECK_VM_CACHE:-/var/cache/rdmacheck-vm}

# Guest userspace. jq asserts rdmacheck's JSON; strace is the host-write
# audit (ci/guest/faults.bash); crun is the OCI runtime the
# container scenarios run rdmacheck under (ci/guest/scenarios/container-run.bash);
# the runtime libraries are what the project's binaries link against (checked
# with ldd on //:rdmacheck; libasan8 and libubsan1 for its --config=asan build).
PKGS=(
  bash coreutils dash util-linux mount sed grep findutils libc-bin base-files mawk
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
  iproute2 kmod nftables iptables iputils-ping procps jq strace
  crun
  libabsl20220623 libre2-9 libibverbs1 librdmacm1 libtinyxml2-9 libstdc++6 libgcc-s1
  libasan8 libubsan1
)
# The container engines the container scenarios start (ci/guest/engines.bash):
# Docker (dockerd, containerd, runc) and Podman (conmon, crun). Their closure
# is resolved by apt itself, first alternatives only: the recursive listing
# used for PKGS would pull every alternative of gnupg's pinentry (GTK, Qt).
ENGINE_PKGS=(docker.io podman)
# Kernel modules loaded in the guest (their dependency closure is added).
# netlink_diag: strace -yy learns a netlink socket's protocol from it (the
# kernel loads it on strace's first sock_diag query), without which it
# cannot name RTM_NEWLINK and friends for the host-write audit.
# 8021q and bonding: RoCE over VLANs and bonds as deployed (scenarios 6x).
# bridge, br_netfilter, nft_chain_nat, xt_mark, xt_comment: a bridge carrying
# rxe, and a Kubernetes node's rulesets (nat marks, KUBE-FIREWALL) loaded as
# iptables-nft loads them.
MODS=(
  rdma_rxe rdma_ucm ib_uverbs ib_umad veth dummy 9p 9pnet_virtio virtio_pci
  nf_tables nft_compat nft_reject_inet nft_fib_inet nft_ct ip_tables iptable_filter
  xt_tcpudp ip6_tables ip6table_filter ipt_REJECT xt_conntrack
  sch_netem sch_tbf overlay
  netlink_diag 8021q bonding
  bridge br_netfilter nft_chain_nat xt_mark xt_comment
)

log() { echo "[build-image +${SECONDS}s] $*" >&2; }
die() { echo "build-image: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root (chroot into the guest root for ldconfig/depmod)"
for t in apt-get apt-cache dpkg-deb cpio chroot flock sha256sum; do
  command -v "$t" >/dev/null || die "missing host tool '$t' (run: bash ci/deps.sh --guest)"
done

kernel_pkg() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/{print $2; exit}'
}
pkg_version() {
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/{print $2; exit}'
}

recipe_hash() {
  { cat "$HERE/build-image.sh" "$HERE/init"; printf '%s\n' "${PKGS[@]}" "${ENGINE_PKGS[@]}" "${MODS[@]}"; } |
    sha256sum | cut -d' ' -f1
}

RECIPE=$(recipe_hash)
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 1800 9 || die "timed out waiting for $CACHE/.lock"

KPKG=$(kernel_pkg || true)
if [[ -z "$KPKG" ]]; then
  log "no apt metadata: apt-get update"
  timeout 300 apt-get update -qq || die "apt-get update failed"
  KPKG=$(kernel_pkg) || true
  [[ -n "$KPKG" ]] || die "cannot resolve the kernel package of linux-image-amd64"
fi
KVER=$(pkg_version "$KPKG")
DEST="$CACHE/$KVER"

cached_ok() {
  [[ -s "$DEST/vmlinuz" && -s "$DEST/initrd.img" && -s "$DEST/recipe.sha256" ]] &&
    [[ "$(cat "$DEST/recipe.sha256")" == "$RECIPE" ]]
}
if cached_ok; then
  log "cached image $DEST ($KPKG $KVER)"
  echo "$DEST"
  exit 0
fi

log "building image for $KPKG $KVER into $DEST"
B=$(mktemp -d "$CACHE/.build.XXXXXX")
chmod 755 "$B"  # apt-get download drops to user _apt
trap 'rm -rf "$B"' EXIT

# Fresh metadata: a stale list makes apt-get download fail with 404.
timeout 300 apt-get update -qq || log "apt-get update failed; trying the lists at hand"
KPKG2=$(kernel_pkg)
[[ "$KPKG2" == "$KPKG" && "$(pkg_version "$KPKG")" == "$KVER" ]] ||
  die "kernel package moved during update ($KPKG $KVER -> $KPKG2): run again"

log "guest root: resolving package closure"
mkdir -p "$B/debs" "$B/rootfs/usr/"{bin,sbin,lib,lib64}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$B/rootfs/$d"; done
mapfile -t ALL < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances "${PKGS[@]}" | grep '^\w' | sort -u)
# An empty dpkg status makes apt resolve the engines' whole closure.
mapfile -t -O "${#ALL[@]}" ALL < <(apt-get install -s -qq -o Dir::State::status=/dev/null \
  --no-install-recommends "${ENGINE_PKGS[@]}" | awk '/^Inst /{print $2}')
mapfile -t ALL < <(printf '%s\n' "${ALL[@]}" | sort -u)
log "guest root: downloading ${#ALL[@]} packages + kernel"
(cd "$B/debs" && timeout 900 apt-get download -qq -o APT::Sandbox::User=root "${ALL[@]}" "$KPKG") >&2 ||
  die "apt-get download failed"
log "guest root: unpacking"
for f in "$B"/debs/*.deb; do
  case "$(basename "$f")" in "${KPKG}"_*) continue ;; esac
  dpkg-deb --fsys-tarfile "$f" | tar -x --keep-directory-symlink -C "$B/rootfs"
done
chroot "$B/rootfs" /sbin/ldconfig
printf 'root:x:0:0:root:/root:/bin/bash\n' >"$B/rootfs/etc/passwd"
printf 'root:x:0:\n' >"$B/rootfs/etc/group"
for x in iptables iptables-save iptables-restore ip6tables; do
  ln -sf xtables-nft-multi "$B/rootfs/usr/sbin/$x"
done
ln -sf mawk "$B/rootfs/usr/bin/awk"

log "kernel and module closure"
# The kernel tree is unpacked inside the guest root so the guest's own kmod
# (the host may have none) can run depmod/modprobe under chroot, then moved out.
mkdir -p "$B/rootfs/mnt/k"
dpkg-deb -x "$B/debs/${KPKG}"_*.deb "$B/rootfs/mnt/k"
KREL=$(ls "$B/rootfs/mnt/k/lib/modules")
cp "$B/rootfs/mnt/k/boot/vmlinuz-$KREL" "$B/vmlinuz"
chroot "$B/rootfs" depmod -b /mnt/k "$KREL"
mapfile -t LIST < <(for m in "${MODS[@]}"; do
    chroot "$B/rootfs" modprobe -d /mnt/k -S "$KREL" --show-depends "$m"
  done | awk '/^insmod/{sub("^/mnt/k/lib/modules/[^/]*/", "", $2); print $2}' | sort -u)
M="$B/rootfs/mnt/m/usr/lib/modules/$KREL"
mkdir -p "$M"
(cd "$B/rootfs/mnt/k/lib/modules/$KREL" &&
  cp --parents "${LIST[@]}" "$M/" &&
  cp -a --parents kernel/net/netfilter kernel/net/ipv4/netfilter kernel/net/ipv6/netfilter \
    kernel/drivers/infiniband/core kernel/drivers/infiniband/sw kernel/crypto \
    kernel/arch/x86/crypto kernel/lib "$M/" &&
  cp modules.order modules.builtin modules.builtin.modinfo "$M/")
chroot "$B/rootfs" depmod -b /mnt/m/usr "$KREL"
mv "$B/rootfs/mnt/m" "$B/overlay"
rm -rf "$B/rootfs/mnt/k"
install -m755 "$HERE/init" "$B/overlay/init"

log "initramfs"
# Guest root (pruned) + overlay (modules, /init): two concatenated
# uncompressed newc archives; the kernel unpacks both.
(cd "$B/rootfs" && find . -xdev \( -path ./usr/share/doc -o -path ./usr/share/man \
    -o -path ./usr/share/locale -o -path ./usr/share/info -o -path ./var/cache/apt \
    -o -path ./var/lib/apt/lists \) -prune -o -print | cpio -o -H newc --quiet) >"$B/initrd.img"
(cd "$B/overlay" && find . | cpio -o -H newc --quiet) >>"$B/initrd.img"

mkdir "$B/out"
mv "$B/vmlinuz" "$B/initrd.img" "$B/out/"
echo "$KREL" >"$B/out/kernel-release"
echo "$KPKG $KVER" >"$B/out/kernel-package"
printf '%s\n' "${ALL[@]}" >"$B/out/packages.txt"
echo "$RECIPE" >"$B/out/recipe.sha256"
# Atomic publish: rename the finished directory over the key.
if [[ -e "$DEST" ]]; then mv "$DEST" "$B/old"; fi
mv "$B/out" "$DEST"
log "done: $(du -h "$DEST/initrd.img" | cut -f1) initrd, kernel $KREL, ${SECONDS}s"
echo "$DEST"
