# Netdev MTU 1500 (rxe's active_mtu 1024) under a plan that expects path MTU
# 4096: mtu-chain FAILs naming the netdev MTU and the command that fixes it.
name="netdev MTU 1500, plan path_mtu 4096"
mtu=1500
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect mtu-chain FAIL '1500'
expect mtu-chain FAIL 'ip link set dev va mtu 9000'
expect port-active PASS
