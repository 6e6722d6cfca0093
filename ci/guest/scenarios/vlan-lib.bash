# vlan-lib.bash: RoCE over VLANs, sourced by the 6x-vlan-* scenarios (not a
# scenario itself: the runner only runs *.sh). rdma_rxe refuses a VLAN
# netdev (rxe.c rxe_newlink: "rxe creation allowed on top of a real device
# only"), so rxe0/rxe1 stay on va/vb and the addresses move to VLAN VID over
# them: each VLAN's address becomes a GID of its parent's port, naming the
# VLAN netdev (measured on Debian 12's 6.1: GID 1 ::ffff:198.18.1.1 ndev
# va.100, GID 2 its fe80:: entry).
#
#   fault() { vlan_up 100; }   undo() { vlan_down; }

VLAN_ID=""

# vlan_up VID: va.VID and vb.VID with 198.18.1.1/24 and .2/24, none left on
# va and vb; true once both devices list the VLAN's GID (within 5 s).
vlan_up() {
  local vid=$1 i
  modprobe 8021q || return 1
  ip -4 addr flush dev va && ip -4 addr flush dev vb || return 1
  ip link add link va name "va.$vid" type vlan id "$vid" &&
    ip link add link vb name "vb.$vid" type vlan id "$vid" || return 1
  VLAN_ID=$vid
  # topo_up set the "default" sysctls before: a new netdev inherits
  # accept_local=1 and rp_filter=0.
  ip addr add 198.18.1.1/24 dev "va.$vid" && ip addr add 198.18.1.2/24 dev "vb.$vid" || return 1
  ip link set "va.$vid" up && ip link set "vb.$vid" up || return 1
  for ((i = 0; i < 50; i++)); do
    grep -qs 'c612:0101' /sys/class/infiniband/rxe0/ports/1/gids/* &&
      grep -qs 'c612:0102' /sys/class/infiniband/rxe1/ports/1/gids/* && return 0
    sleep 0.1
  done
  echo "vlan_up: no GID for 198.18.1.1/.2 on rxe0/rxe1 after 5 s"
  return 1
}

# vlan_down: the VLANs gone; returns 1 so that the runner rebuilds the
# healthy pair (the addresses on va/vb were flushed).
vlan_down() {
  [[ -n "$VLAN_ID" ]] && ip link delete "va.$VLAN_ID" 2>/dev/null && ip link delete "vb.$VLAN_ID" 2>/dev/null
  VLAN_ID=""
  return 1
}
