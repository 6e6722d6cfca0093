# The healthy pair: rxe0 on va, rxe1 on vb, a 9000-byte veth (active_mtu
# 4096), and a plan sized as rxe grants (ci/guest/plans/rxe_healthy.plan;
# fixtures/plans/rxe_guest.plan's 256-WR queues make cap-readback WARN, see
# 24-cap-readback-rxe). Every check PASSes, or SKIPs with a stated reason.
name="healthy rxe0 <-> rxe1 on a 9000-byte veth"
mtu=9000
args=(--plan "$PLANS/rxe_healthy.plan" -d rxe0)
expect_exit 0
expect_each_pass_or_skip
expect device-present PASS 'rxe0'
expect port-active PASS 'ACTIVE'
expect device-limits PASS
# The window ran beside the probes and nothing it judges moved (checks/session.h).
expect link-health PASS 'watched while the other checks ran'
