# rxe0 left on va after va became a port of bridge br0 (the address moved to
# br0). Measured on 6.1: rxe0's GID 1 names br0, rxe1 counts rxe0's packets,
# rxe0 counts none back (the bridge takes va's frames, and rdma_rxe only
# accepts packets arriving on its own netdev: rxe_net.c rxe_udp_encap_recv),
# and a SEND ends in "transport retry counter exceeded". rxe-setup names the
# bridge and says to create rxe on br0; hung-qp's remedy says the same.
name="rxe on a bridge port, the address on the bridge"
mtu=9000
source "$SHARE/scenarios/bridge-lib.bash"
fault() { bridge_up; }
undo() { bridge_down; }
args=(-d rxe0 --checks rxe-setup,gid-table,hung-qp)
expect_exit 1
expect rxe-setup FAIL 'rxe0 netdev va master'
expect rxe-setup FAIL 'port of br0 (bridge)'
expect rxe-setup FAIL 'rdma link delete rxe0 && rdma link add rxe0 type rxe netdev br0'
expect gid-table PASS 'netdev br0 (bridge)'
expect hung-qp FAIL 'got no acknowledgement'
expect hung-qp FAIL 'rdma link add rxe0 type rxe netdev br0'
