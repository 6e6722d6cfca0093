# Netdev MTU 1500 (rxe's active_mtu 1024) under a plan that expects path MTU
# 4096. The mtu-chain check is issue 5.
name="netdev MTU 1500, plan path_mtu 4096"
mtu=1500
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
xfail 5 mtu-chain FAIL '1500'
xfail 5 mtu-chain FAIL 'mtu 9000'
expect port-active PASS
