# Only rxe0 left (rdma link delete rxe1): hung-qp falls back to loopback on
# rxe0 and says that this does not test the IP path (rxe's internal loopback
# never reaches the IP stack, docs/guest.md).
source "$SHARE/scenarios/probe-lib.bash"
name="one device: hung-qp loops back on rxe0"
mtu=9000
fault() { rdma link delete rxe1 && res_begin; }
undo() { res_end; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks hung-qp,sge-page-crossing)
expect_exit 0
expect hung-qp PASS 'does not test the IP path'
expect hung-qp PASS 'rxe0 -> rxe0'
expect sge-page-crossing PASS 'crossing a 4 KiB page'
