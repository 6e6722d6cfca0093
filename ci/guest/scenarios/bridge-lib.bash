# bridge-lib.bash: va as a port of bridge br0, sourced by the 68/69 bridge
# scenarios (not a scenario itself). The address 198.18.0.1/24 moves from va
# to br0, as on a host whose NIC was put in a bridge for VMs or containers;
# rxe1 stays on vb.
#
#   fault() { bridge_up; }   undo() { bridge_down; }

# bridge_up: br0 (MTU 9000) with va as its port and 198.18.0.1/24; true once
# br0 is operationally up and rxe0 lists the address as a GID naming br0
# (within 5 s). The GID comes first: one CI rehearsal (2026-12-04) gathered
# br0 still "down" after it.
bridge_up() {
  local i
  modprobe bridge || return 1
  ip -4 addr flush dev va && ip link add br0 type bridge && ip link set br0 mtu 9000 || return 1
  ip link set va master br0 || return 1
  sysctl -qw net.ipv4.conf.br0.accept_local=1 net.ipv4.conf.br0.rp_filter=0
  ip addr add 198.18.0.1/24 dev br0 && ip link set br0 up || return 1
  for ((i = 0; i < 50; i++)); do
    grep -qs '^br0$' /sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1 &&
      grep -qsx up /sys/class/net/br0/operstate && return 0
    sleep 0.1
  done
  echo "bridge_up: after 5 s, br0 is $(cat /sys/class/net/br0/operstate 2>/dev/null) and rxe0 GID 1 names $(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1 2>/dev/null)"
  return 1
}

# bridge_rxe_on_br0: rxe0 re-created on br0 itself (the way that works).
bridge_rxe_on_br0() {
  rdma link delete rxe0 && rdma link add rxe0 type rxe netdev br0 && wait_active rxe0
}

# bridge_down: br0 gone; returns 1 so that the runner rebuilds the healthy
# pair (va lost its address).
bridge_down() {
  [[ -e /sys/class/infiniband/rxe0 ]] && rdma link delete rxe0 2>/dev/null
  ip link show br0 >/dev/null 2>&1 && ip link delete br0
  return 1
}
