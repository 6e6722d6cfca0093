# The addresses on VLANs over rxe's parents (as 60), then va.100 set down:
# the VLAN keeps its IPv4 GID on rxe0's port, and connecting a QP from it
# fails at RTR with ENETUNREACH (the kernel finds no next hop when it
# resolves the address vector). hung-qp cannot run its probe: WARN, naming
# the GID's netdev and its state, with the commands that show it.
name="VLAN under the GID set down (ip link set va.100 down)"
mtu=9000
source "$SHARE/scenarios/vlan-lib.bash"
fault() {
  vlan_up 100 || return 1
  ip link set va.100 down || return 1
  res_begin
}
undo() { res_end; vlan_down; }
source "$SHARE/scenarios/probe-lib.bash"
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks hung-qp)
expect hung-qp WARN 'RTR refused with ENETUNREACH'
expect hung-qp WARN 'on va.100 (operstate down)'
expect hung-qp WARN 'ip -br link show va.100'
