# The VLANs at MTU 1500 under parents at 9000: rxe keeps active_mtu 4096
# (sized by va's MTU) but sends through va.100, which refuses every packet
# above 1500 bytes. Measured: a 12411 B SEND hangs with send_err climbing,
# and `ib_write_bw -m 1024` passes. mtu-chain names the VLAN and its MTU,
# hung-qp calls it an MTU above the path's and points at the VLAN.
name="VLAN MTU 1500 under a 9000-byte parent"
mtu=9000
source "$SHARE/scenarios/vlan-lib.bash"
source "$SHARE/scenarios/probe-lib.bash"
fault() {
  vlan_up 100 && ip link set va.100 mtu 1500 && ip link set vb.100 mtu 1500 && res_begin
}
undo() { res_end; vlan_down; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks mtu-chain,hung-qp)
expect_exit 1
expect mtu-chain FAIL 'netdev va.100 (VLAN 100 over va) MTU'
expect mtu-chain FAIL '1500 bytes -> IB MTU 1024 at most'
expect mtu-chain FAIL 'ip link set dev va.100 mtu 9000'
expect hung-qp FAIL 'MTU above the path'
expect hung-qp FAIL 'ip link show dev va.100'
