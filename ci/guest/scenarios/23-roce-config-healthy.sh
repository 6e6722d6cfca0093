# The healthy pair as the RoCE configuration checks see it: GID 1 is the
# IPv4 RoCE v2 entry, MTU 9000 gives active_mtu 4096, accept_local=1 and
# rp_filter=0 on va and vb (set by topo_up).
name="healthy pair: gid-table, mtu-chain, rxe-sysctls"
mtu=9000
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect gid-table PASS 'use GID 1'
expect mtu-chain PASS '9000 bytes -> rxe IB MTU 4096'
expect rxe-sysctls PASS 'all=0 va=0 -> 0'
expect rxe-sysctls PASS 'va=1 -> 1'
