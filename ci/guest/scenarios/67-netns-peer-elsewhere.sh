# rxe1's netdev moved into another network namespace and rxe1 made there:
# in the shared netns mode rxe1 is still listed here, but rxe carries no
# traffic between namespaces (measured on 6.1: rxe0 -> rxe1 sent 7, received
# 0, "transport retry counter exceeded"). hung-qp does not probe across;
# it loops back on rxe0 and says why. (`rdma dev set rxe1 netns NS` itself
# answers "Operation not supported" in either mode, and `rdma system set
# netns exclusive` "Device or resource busy" while another namespace exists.)
name="the peer device's netdev in another network namespace"
mtu=9000
fault() {
  rdma link delete rxe1 && ip netns add rdmacheck_ns2 && ip link set vb netns rdmacheck_ns2 || return 1
  ip netns exec rdmacheck_ns2 sh -c 'for k in all default vb; do sysctl -qw net.ipv4.conf.$k.accept_local=1 net.ipv4.conf.$k.rp_filter=0; done
    ip addr add 198.18.0.2/24 dev vb && ip link set vb up && rdma link add rxe1 type rxe netdev vb' || return 1
  wait_active rxe1
}
# Deleting the namespace destroys vb and with it va: the runner rebuilds.
undo() {
  [[ -e /sys/class/infiniband/rxe1 ]] && rdma link delete rxe1
  ip netns delete rdmacheck_ns2
  return 1
}
args=(-d rxe0 --checks hung-qp)
expect hung-qp PASS 'not rxe1 (its netdev vb): that netdev is in another network namespace'
expect hung-qp PASS 'loopback on rxe0'
