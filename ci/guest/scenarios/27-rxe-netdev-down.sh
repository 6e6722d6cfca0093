# The rxe link stays on a netdev that is down: rxe-setup names the netdev
# and its state and asks to bring it up; the firewall verdict is unchanged.
name="rxe0 on a netdev that is down (ip link set va down)"
mtu=9000
fault() { ip link set va down; }
undo() { ip link set va up; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect rxe-setup FAIL 'rxe0 netdev va operstate'
expect rxe-setup FAIL 'ip link set dev va up'
expect firewall-4791 PASS
expect port-active FAIL 'DOWN'
