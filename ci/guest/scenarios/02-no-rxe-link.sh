# No Soft-RoCE link: both rxe links deleted, the veth stays. The device the
# user names is missing, and the remediation says how to add it.
name="no rxe link (rdma link delete rxe0, rxe1)"
mtu=9000
fault() { rdma link delete rxe0 && rdma link delete rxe1; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect device-present FAIL 'rxe0'
expect device-present FAIL 'rdma link'
