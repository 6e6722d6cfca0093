# The healthy pair: rxe0 on va, rxe1 on vb, a 9000-byte veth (active_mtu
# 4096), fixtures/plans/rxe_guest.plan. Every check PASSes, or SKIPs with a
# stated reason.
name="healthy rxe0 <-> rxe1 on a 9000-byte veth"
mtu=9000
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 0
expect_each_pass_or_skip
expect device-present PASS 'rxe0'
expect port-active PASS 'ACTIVE'
expect device-limits PASS
