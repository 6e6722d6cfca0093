# lib.sh: helpers for the guest stage, sourced by guest-main.sh inside the
# Soft-RoCE guest (bash; never run on the host: it changes links, sysctls,
# rdma links and nftables).
#
#   source /mnt/share/lib.sh
#   topo_up 9000              # veth va/vb, rxe0 on va, rxe1 on vb
#   record PASS "smoke: rxe0 ACTIVE"
#   summary                   # "... xfail ..." then "N passed, M failed"
#
# Every result is one line appended to $RESULTS (VERDICT<TAB>name<TAB>detail),
# so scenarios can run in subshells and still be counted.

SHARE=${SHARE:-/mnt/share}
OUT=${OUT:-$SHARE/out}
RESULTS=${RESULTS:-/tmp/guest-results.tsv}
# The binaries run from the guest's own (RAM) root, copied there by
# guest-main.sh: run from the 9p share, every page fault of a 9 MB binary is
# a round trip to the host (measured: --version 0.75 s from the share, 0.4 s
# from the copy), which no node's local disk costs. Under /usr, so the
# container scenarios (which bind the guest's /usr) see them too.
RDMACHECK=${RDMACHECK:-/usr/local/bin/rdmacheck}
GUEST_STEP_TIMEOUT=${GUEST_STEP_TIMEOUT:-120}   # seconds, per rdmacheck run

uptime_s() { cut -d' ' -f1 /proc/uptime; }
# seconds_since T0: seconds from T0 (an uptime_s) to now, two decimals.
seconds_since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }'; }

# median: of the numbers on stdin, one per line (the lower of the two middle
# ones for an even count); empty for none.
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }

# record VERDICT NAME [DETAIL]: VERDICT is PASS, FAIL, XFAIL, XPASS or SKIP.
record() {
  local v=$1 name=$2 detail=${3:-}
  printf '%s\t%s\t%s\n' "$v" "$name" "$detail" >>"$RESULTS"
  if [[ -n "$detail" ]]; then echo "$v: $name ($detail)"; else echo "$v: $name"; fi
}

# check NAME CMD...: PASS when CMD exits 0, else FAIL with its exit status.
check() {
  local name=$1; shift
  local rc=0
  "$@" || rc=$?
  if ((rc == 0)); then record PASS "$name"; else record FAIL "$name" "exit $rc"; fi
}

count() { awk -F'\t' -v v="$1" '$1 == v' "$RESULTS" 2>/dev/null | wc -l; }

# summary: the xfail/xpass/skip line, then exactly "N passed, M failed";
# returns 1 when anything failed. XPASS counts as passed (and is named).
summary() {
  local p f x xp s
  p=$(count PASS); f=$(count FAIL); x=$(count XFAIL); xp=$(count XPASS); s=$(count SKIP)
  echo "guest: ${x} xfail (waiting on the work they name), ${xp} xpass, ${s} skipped"
  if ((xp > 0)); then
    echo "guest: unexpectedly passing (turn the xfail into expect):"
    awk -F'\t' '$1 == "XPASS" {print "  " $2}' "$RESULTS"
  fi
  echo "$((p + xp)) passed, ${f} failed"
  ((f == 0))
}

# --- topology --------------------------------------------------------------
# Two rxe devices on the two ends of one veth pair, in one namespace (two
# namespaces do not work with 6.1's rxe). Addresses only from 198.18.0.0/15.
# accept_local=1 and rp_filter=0 let the kernel deliver packets whose source
# is one of its own addresses.
TOPO_STATE=none

topo_down() {
  local l
  for l in rxe0 rxe1; do
    [[ -e /sys/class/infiniband/$l ]] && rdma link delete "$l" 2>/dev/null
  done
  nft list tables 2>/dev/null | grep -q 'rdmacheck_fault' && nft delete table inet rdmacheck_fault
  ip link show va >/dev/null 2>&1 && ip link delete va
  TOPO_STATE=none
  return 0
}

# topo_up MTU: the healthy pair at the given netdev MTU.
topo_up() {
  local mtu=${1:-9000} k d
  # rdma_ucm gives /dev/infiniband/rdma_cm, as rdma-core's udev rules do on
  # a real host (rping, perftest -R and rxe-setup want it).
  modprobe -a rdma_rxe veth rdma_ucm || return 1
  ip link add va type veth peer name vb || return 1
  for k in all default; do
    sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0"
  done
  for d in va vb; do
    sysctl -qw "net.ipv4.conf.$d.accept_local=1" "net.ipv4.conf.$d.rp_filter=0"
    ip link set "$d" mtu "$mtu" || return 1
  done
  ip addr add 198.18.0.1/24 dev va && ip addr add 198.18.0.2/24 dev vb || return 1
  ip link set va up && ip link set vb up || return 1
  rdma link add rxe0 type rxe netdev va || return 1
  rdma link add rxe1 type rxe netdev vb || return 1
  wait_active rxe0 && wait_active rxe1 || return 1
  TOPO_STATE="mtu=$mtu"
}

# wait_active DEV: port 1 reaches ACTIVE within 10 s.
wait_active() {
  local i
  for ((i = 0; i < 100; i++)); do
    grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "guest: $1 port 1 not ACTIVE after 10 s: $(cat "/sys/class/infiniband/$1/ports/1/state" 2>&1)"
  return 1
}

# topo_ensure MTU DIRTY: rebuild unless the topology already is the healthy
# pair at MTU and the previous step left nothing behind (DIRTY=0).
topo_ensure() {
  local mtu=$1 dirty=${2:-1}
  if [[ "$TOPO_STATE" == "mtu=$mtu" && "$dirty" == 0 ]]; then return 0; fi
  topo_down
  topo_up "$mtu"
}

# nft_drop_roce: drop RoCE v2 (UDP 4791) arriving on either veth end, the
# fault a host firewall causes. Removed by topo_down.
nft_drop_roce() {
  nft add table inet rdmacheck_fault &&
    nft add chain inet rdmacheck_fault in '{ type filter hook input priority 0; }' &&
    nft add rule inet rdmacheck_fault in udp dport 4791 drop
}

# res_counts: "rxe0 pd 1 cq 0 qp 1 mr 0 | rxe1 ..." from the kernel's RDMA
# resource summary (`rdma res show`), one device after another.
res_counts() {
  rdma res show 2>/dev/null | sed -E 's/^[0-9]+: //' |
    awk '{ out = $1; for (i = 2; i < NF; i++) if ($i ~ /^(pd|cq|qp|mr)$/) out = out " " $i " " $(i + 1);
           printf "%s%s", sep, out; sep = " | " } END { print "" }'
}

# res_not_above BEFORE NOW: true when no device's pd/cq/qp/mr count in NOW
# exceeds its count in BEFORE (objects of processes that ended may be gone).
res_not_above() {
  awk -v b="$1" -v n="$2" 'BEGIN {
    split(b, bd, " [|] "); for (i in bd) { k = split(bd[i], f, " "); for (j = 2; j < k; j += 2) before[f[1] " " f[j]] = f[j + 1] }
    split(n, nd, " [|] "); for (i in nd) { k = split(nd[i], f, " "); for (j = 2; j < k; j += 2) if (f[j + 1] + 0 > before[f[1] " " f[j]] + 0) exit 1 }
  }'
}

# res_settle BEFORE: waits up to 3 s for no device's PD/CQ/QP/MR count to be
# above BEFORE (the kernel frees a process's objects when its verbs fds
# close); RES_AFTER is the last reading. False when it never got there.
res_settle() {
  local i
  for ((i = 0; i < 30; i++)); do
    RES_AFTER=$(res_counts)
    res_not_above "$1" "$RES_AFTER" && return 0
    sleep 0.1
  done
  return 1
}
