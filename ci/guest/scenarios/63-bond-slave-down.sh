# rxe over active-backup bonds of two veth pairs (bond0: va1 va2, bond1: vb1
# vb2), then one slave of bond0 down. Measured: the bond fails over to va2
# and RoCE goes on (hung-qp passes); rxe-setup warns that bond0 runs on one
# slave, naming the one that is down. With both slaves down the bond and
# rxe0's port go DOWN.
name="rxe over an active-backup bond, one slave down"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
bond_pair() {
  local b
  topo_down
  # bonding makes a bond0 of its own when loaded without max_bonds=0.
  modprobe bonding max_bonds=0 || return 1
  for b in bond0 bond1; do ip link show "$b" >/dev/null 2>&1 && ip link delete "$b"; done
  ip link add va1 type veth peer name vb1 && ip link add va2 type veth peer name vb2 || return 1
  ip link add bond0 type bond mode active-backup miimon 100 &&
    ip link add bond1 type bond mode active-backup miimon 100 || return 1
  for b in va1 va2; do ip link set "$b" master bond0 || return 1; done
  for b in vb1 vb2; do ip link set "$b" master bond1 || return 1; done
  for b in bond0 bond1 va1 va2 vb1 vb2; do ip link set "$b" mtu 9000 && ip link set "$b" up || return 1; done
  ip addr add 198.18.2.1/24 dev bond0 && ip addr add 198.18.2.2/24 dev bond1 || return 1
  rdma link add rxe0 type rxe netdev bond0 && rdma link add rxe1 type rxe netdev bond1 || return 1
  wait_active rxe0 && wait_active rxe1
}
fault() {
  bond_pair || return 1
  res_begin
  # Whichever slave is active: the bond must fail over to the other.
  local active
  active=$(cat /sys/class/net/bond0/bonding/active_slave)
  ip link set "${active:-va1}" down
  echo "${active:-va1}" >"$OUT/scenarios/$scn.slave-down"
  sleep 0.5
}
undo() {
  res_end
  local l
  for l in rxe0 rxe1; do [[ -e /sys/class/infiniband/$l ]] && rdma link delete "$l"; done
  ip link delete bond0; ip link delete bond1; ip link delete va1; ip link delete va2
  return 1  # the runner rebuilds the healthy pair
}
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks rxe-setup,port-active,mtu-chain,hung-qp)
expect rxe-setup WARN 'bond0 (bond) slave'
expect rxe-setup WARN 'mii down, operstate down, backup, 1 link failure(s)'
expect rxe-setup WARN 'runs on'
expect rxe-setup WARN 'cat /proc/net/bonding/bond0'
expect port-active PASS
expect mtu-chain PASS 'netdev bond0 MTU'
expect hung-qp PASS
