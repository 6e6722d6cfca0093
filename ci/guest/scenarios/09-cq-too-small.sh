# A CQ too small for the queues that complete into it
# (ci/guest/plans/cq_too_small.plan): real rxe grants 511 + 511 WRs per QP and
# 511 CQEs per CQ, so cq-depth FAILs naming the CQ, the sum and the cqe to
# ask for. The QPs and CQs are created and read back on the real device.
name="CQ of 256 under QPs of 256 + 256 WRs (rxe: 511 CQEs for 1022 WRs)"
mtu=9000
args=(--plan "$PLANS/cq_too_small.plan" -d rxe0)
expect_exit 1
expect cq-depth FAIL 'cq_small'
expect cq-depth FAIL '>= 1022 completions'
expect cq-depth FAIL 'holds 511 completions'
expect cq-depth FAIL 'cqe = 1022'
expect device-limits PASS
