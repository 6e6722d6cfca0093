# A CQ too small, overrun for real: with the cq_too_small plan
# cq-depth FAILs on the plan's numbers, and cq-overrun makes the overrun
# happen on rxe0: a CQ of 4 (granted 7) takes 16 signaled RDMA WRITEs, not
# polled. Measured on 6.1: rxe raises IBV_EVENT_CQ_ERR (one per completion
# that did not fit, the first ~8 ms after the first post under TCG), keeps
# the 7 that fit, loses 9, and the QP stays in RTS: a WR posted after the
# drain completes with success. The kernel's QP/CQ/MR/PD counts are back
# where they started after rdmacheck.
source "$SHARE/scenarios/probe-lib.bash"
name="CQ overrun on rxe0: IBV_EVENT_CQ_ERR, completions lost"
mtu=9000
fault() { res_begin; }
undo() { res_end; }
args=(--plan "$PLANS/cq_too_small.plan" -d rxe0 --checks cq-depth,cq-overrun)
expect_exit 1
expect cq-depth FAIL 'holds 511 completions'
expect cq-overrun PASS 'rxe0 signals a CQ overrun with IBV_EVENT_CQ_ERR after'
expect cq-overrun PASS 'cqe 7 granted; 16 signaled RDMA WRITEs'
expect cq-overrun PASS 'QP stayed in RTS; 7 completions kept, 9 lost'
expect cq-overrun PASS '9 CQ_ERR events in all'
expect cq-overrun PASS 'completed: success; QP RTS'
expect cq-overrun PASS 'cq_small (cqe 256 x2)'
