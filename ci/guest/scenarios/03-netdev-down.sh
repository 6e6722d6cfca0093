# The netdev under rxe0 is down: rxe0's port 1 goes DOWN and the remediation
# names the netdev to bring up.
name="netdev down (ip link set va down)"
mtu=9000
fault() { ip link set va down; }
undo() { ip link set va up; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect device-present PASS
expect port-active FAIL 'DOWN'
expect port-active FAIL 'ip link set dev va up'
