# A plan beyond the device's real limits: max_send_sge 64 > rxe's max_sge 32
# (ci/guest/plans/over_sge_limit.plan). device-limits FAILs naming the field.
name="plan beyond rxe limits (max_send_sge 64 > max_sge 32)"
mtu=9000
args=(--plan "$PLANS/over_sge_limit.plan" -d rxe0)
expect_exit 1
expect device-limits FAIL 'max_send_sge'
expect device-limits FAIL '32'
expect port-active PASS
