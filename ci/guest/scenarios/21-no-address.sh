# No IPv4 address on va: rxe0 keeps only its fe80:: GID, so nothing an IPv4
# peer can address. gid-table FAILs and asks for an address; rxe-sysctls has
# no local pair left to judge (SKIP with the reason).
name="no IPv4 address on va (ip -4 addr flush dev va)"
mtu=9000
fault() { ip -4 addr flush dev va; }
undo() { ip addr add 198.18.0.1/24 dev va; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect gid-table FAIL 'only IPv6 link-local'
expect gid-table FAIL 'ip addr add 198.18.0.1/24 dev va'
expect mtu-chain PASS
expect rxe-sysctls SKIP 'no IPv4 address'
expect port-active PASS
