#!/usr/bin/env bash
# container-run.bash: runs one command inside an OCI container under crun (a
# Debian package in the guest image), with exactly what a `docker run` would
# or would not give it. Used by the container scenarios (6x-container-*.sh)
# through their wrap=(...); the name does not end in .sh so the scenario
# runner does not take it for a scenario.
#
#   bash container-run.bash --devices --cap-ipc-lock --memlock unlimited --host-net \
#     -- /usr/local/bin/rdmacheck -d rxe0 --format=json
#
# Options (each one the docker flag it stands for):
#   --devices              /dev/infiniband/uverbs* and rdma_cm  (--device=...)
#   --cap-ipc-lock         CAP_IPC_LOCK on top of docker's default set (--cap-add=IPC_LOCK)
#   --memlock KIB|unlimited  RLIMIT_MEMLOCK soft and hard      (--ulimit memlock=...)
#   --host-net             no network namespace of its own     (--network host)
#   --env NAME=VALUE       one more environment variable       (-e)
#
# The bundle's root filesystem is built here from the guest's own /usr and
# /etc, bind-mounted read-only (no image, no registry: the guest has no
# network); the host share is bind-mounted read-only at its own path, so the
# command and its plan files keep their paths. crun runs with --no-pivot (the
# guest's root is the initramfs, where pivot_root(2) is not allowed) and
# without a cgroup manager (the guest has no systemd). Exit status: the
# command's, or 125 when the container could not be set up.
set -uo pipefail

DEVICES=0 IPC_LOCK=0 MEMLOCK="" HOST_NET=0 ENVS=()
while (($#)); do
  case "$1" in
    --devices) DEVICES=1; shift ;;
    --cap-ipc-lock) IPC_LOCK=1; shift ;;
    --memlock) MEMLOCK=$2; shift 2 ;;
    --host-net) HOST_NET=1; shift ;;
    --env) ENVS+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "container-run: unknown option $1" >&2; exit 125 ;;
  esac
done
(($#)) || { echo "container-run: no command" >&2; exit 125; }
command -v crun >/dev/null || { echo "container-run: crun not in the guest image" >&2; exit 125; }

SHARE=${SHARE:-/mnt/share}
B=$(mktemp -d /tmp/ctr.XXXXXX) || exit 125
ID=rdmacheck-$(basename "$B" | tr -dc 'a-zA-Z0-9')
cleanup() {
  crun --cgroup-manager=disabled delete -f "$ID" >/dev/null 2>&1
  rm -rf "$B"
}
trap cleanup EXIT
R=$B/rootfs
mkdir -p "$R"/{usr,etc,proc,sys,dev,tmp,run,"${SHARE#/}"}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$R/$d"; done

# Docker's default capability set (moby oci/caps/defaults.go), IPC_LOCK added
# when asked.
CAPS=(CAP_CHOWN CAP_DAC_OVERRIDE CAP_FSETID CAP_FOWNER CAP_MKNOD CAP_NET_RAW CAP_SETGID
  CAP_SETUID CAP_SETFCAP CAP_SETPCAP CAP_NET_BIND_SERVICE CAP_SYS_CHROOT CAP_KILL CAP_AUDIT_WRITE)
((IPC_LOCK)) && CAPS+=(CAP_IPC_LOCK)

# Device nodes: what `--device=/dev/infiniband/X` creates in the container.
DEVS='[]'
if ((DEVICES)); then
  for n in /dev/infiniband/uverbs* /dev/infiniband/rdma_cm; do
    [[ -c "$n" ]] || continue
    DEVS=$(jq -c --arg p "$n" --argjson ma "$((16#$(stat -c %t "$n")))" \
      --argjson mi "$((16#$(stat -c %T "$n")))" \
      '. + [{path: $p, type: "c", major: $ma, minor: $mi, fileMode: 438, uid: 0, gid: 0}]' <<<"$DEVS")
  done
fi

# Written as text: jq would round 2^64-1 (RLIM_INFINITY) to a double.
RLIMITS='[]'
if [[ -n "$MEMLOCK" ]]; then
  if [[ "$MEMLOCK" == unlimited ]]; then lim=18446744073709551615; else lim=$((MEMLOCK * 1024)); fi
  RLIMITS="[{\"type\":\"RLIMIT_MEMLOCK\",\"soft\":$lim,\"hard\":$lim}]"
fi

NS='[{"type":"pid"},{"type":"mount"},{"type":"ipc"},{"type":"uts"}]'
if ((HOST_NET)); then
  # A container in the host's network namespace cannot mount a sysfs of its
  # own: runc and crun bind the host's /sys instead.
  SYS='{"destination":"/sys","type":"bind","source":"/sys","options":["rbind","ro","nosuid","noexec","nodev"]}'
else
  NS=$(jq -c '. + [{"type":"network"}]' <<<"$NS")
  SYS='{"destination":"/sys","type":"sysfs","source":"sysfs","options":["ro","nosuid","noexec","nodev"]}'
fi

jq -n --argjson devs "$DEVS" --argjson ns "$NS" --argjson sys "$SYS" \
  --arg share "$SHARE" --argjson caps "$(printf '%s\n' "${CAPS[@]}" | jq -R . | jq -cs .)" \
  --argjson args "$(printf '%s\n' "$@" | jq -R . | jq -cs .)" \
  --argjson env "$(printf '%s\n' PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "${ENVS[@]}" | jq -R . | jq -cs .)" '
{
  ociVersion: "1.0.2",
  process: {
    terminal: false, user: {uid: 0, gid: 0}, args: $args, env: $env, cwd: "/",
    capabilities: {bounding: $caps, effective: $caps, permitted: $caps},
    rlimits: "@RLIMITS@", noNewPrivileges: true
  },
  root: {path: "rootfs", readonly: false},
  hostname: "rdmacheck-ctr",
  mounts: [
    {destination: "/proc", type: "proc", source: "proc"},
    {destination: "/dev", type: "tmpfs", source: "tmpfs", options: ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    {destination: "/dev/pts", type: "devpts", source: "devpts", options: ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
    {destination: "/dev/shm", type: "tmpfs", source: "shm", options: ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
    $sys,
    {destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"]},
    {destination: "/run", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=755"]},
    {destination: "/usr", type: "bind", source: "/usr", options: ["rbind", "ro"]},
    {destination: "/etc", type: "bind", source: "/etc", options: ["rbind", "ro"]},
    {destination: $share, type: "bind", source: $share, options: ["rbind", "ro"]}
  ],
  linux: {
    namespaces: $ns,
    devices: $devs,
    maskedPaths: ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"],
    readonlyPaths: ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
  }
}' | sed "s/\"@RLIMITS@\"/$RLIMITS/" >"$B/config.json" ||
  { echo "container-run: config.json not written" >&2; exit 125; }

# crun reads the cgroup mode from /sys/fs/cgroup even with no cgroup manager;
# the guest's init (no systemd) does not mount it.
if ! grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts; then
  mount -t cgroup2 cgroup2 /sys/fs/cgroup || { echo "container-run: cannot mount cgroup2" >&2; exit 125; }
fi

echo "container-run: crun run ${ID}: devices=$DEVICES ipc_lock=$IPC_LOCK memlock=${MEMLOCK:-inherited} host_net=$HOST_NET" >&2
crun --cgroup-manager=disabled run --no-pivot --bundle "$B" "$ID" </dev/null
