#!/usr/bin/env bash
# run-guest.sh: boots the Soft-RoCE guest under qemu (TCG, no /dev/kvm needed)
# with DIR shared over 9p at /mnt/share, runs SCRIPT (a path relative to DIR)
# as the guest's job, and exits with the script's exit status.
#
#   ci/softroce-vm/run-guest.sh --image "$(ci/softroce-vm/build-image.sh)" \
#       --share /tmp/share --script guest-main.sh --timeout 1200
#
# The guest has no network device at all (-nic none -nodefaults): nothing it
# sends can leave it. The whole boot runs under a hard timeout; exit 124 means
# the guest ran out of time, 125 that the share could not be mounted, 126 that
# qemu ended without the guest reporting a status.
set -uo pipefail

IMG="" SHARE="" SCRIPT=guest-main.sh TO=1200 MEM=${RDMACHECK_VM_MEM:-3072} SMP=${RDMACHECK_VM_SMP:-2}
# Extra kernel command-line words, for experiments (e.g. a clocksource).
APPEND=${RDMACHECK_VM_APPEND:-}
while (($#)); do
  case "$1" in
    --image) IMG=$2; shift 2 ;;
    --share) SHARE=$2; shift 2 ;;
    --script) SCRIPT=$2; shift 2 ;;
    --timeout) TO=$2; shift 2 ;;
    *) echo "run-guest.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -f "$IMG/vmlinuz" && -f "$IMG/initrd.img" ]] || { echo "run-guest.sh: no image in '$IMG'" >&2; exit 2; }
[[ -d "$SHARE" && -f "$SHARE/$SCRIPT" ]] || { echo "run-guest.sh: no '$SCRIPT' in share '$SHARE'" >&2; exit 2; }
SHARE=$(cd "$SHARE" && pwd)

# -k: a qemu that ignores SIGTERM is killed 10 s later.
timeout -k 10 --foreground "$TO" qemu-system-x86_64 \
  -accel tcg,thread=multi -cpu max -smp "$SMP" -m "$MEM" \
  -nic none -nodefaults -no-user-config -display none -serial stdio -no-reboot \
  -kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" \
  -append "console=ttyS0 panic=-1 loglevel=4 rdmacheck.script=$SCRIPT${APPEND:+ $APPEND}" \
  -virtfs "local,path=$SHARE,mount_tag=share,security_model=none,id=share" \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null
st=$?
if ((st == 124 || st == 137)); then
  echo "HOST: guest timed out after ${TO}s"
  exit 124
fi
# isa-debug-exit makes qemu exit with (value << 1) | 1; a plain qemu exit
# (0, or a crash) means the guest never reported.
if ((st & 1)); then
  st=$((st >> 1))
else
  echo "HOST: qemu exited with $st without a guest status"
  st=126
fi
echo "HOST: guest exit status $st"
exit "$st"
