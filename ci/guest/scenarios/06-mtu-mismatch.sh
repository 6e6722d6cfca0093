# Netdev MTU 1500 (rxe's active_mtu 1024) under a plan that expects path MTU
# 4096: mtu-chain FAILs (rxe: 1500 - 80 header bytes -> IB MTU 1024) and names
# the command that fixes it.
name="netdev MTU 1500, plan path_mtu 4096"
mtu=1500
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect mtu-chain FAIL '1500 bytes -> rxe IB MTU 1024'
expect mtu-chain FAIL 'ip link set dev va mtu 9000'
expect mtu-chain FAIL 'grep active_mtu'
expect gid-table PASS
expect rxe-sysctls PASS
expect port-active PASS
