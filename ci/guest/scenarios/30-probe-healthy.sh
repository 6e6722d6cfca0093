# Live traffic probes on the healthy pair: hung-qp sends SENDs and
# RDMA WRITEs rxe0 -> rxe1 across the veth (the IP path) and every WR
# completes; sge-page-crossing posts 1..32 SGEs, each straddling a 4 KiB
# page, and every byte arrives. The kernel's QP/CQ/MR/PD counts are the same
# after rdmacheck as before.
source "$SHARE/scenarios/probe-lib.bash"
name="traffic probes rxe0 -> rxe1, healthy"
mtu=9000
fault() { res_begin; }
undo() { res_end; expect_seconds hung-qp 2.2; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks hung-qp,sge-page-crossing)
expect_exit 0
expect hung-qp PASS 'rxe0 -> rxe1'
expect hung-qp PASS '65613 B verified'
expect hung-qp PASS 'IP path va -> vb'
expect sge-page-crossing PASS '32 of 32 completed and verified, up to 32 SGEs: 528 of 528 SGEs crossing a 4 KiB page'
expect sge-page-crossing PASS 'max_send_sge granted'
