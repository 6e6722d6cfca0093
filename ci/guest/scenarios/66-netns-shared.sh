# rdmacheck run in another network namespace than the RDMA netdevs, outside
# any container (`ip netns exec NS rdmacheck`). In rdma's default shared
# netns mode every namespace lists rxe0 and rxe1, and verbs over them work
# (hung-qp passes), but va is not there: rxe-setup says so and how to run
# where va is, instead of asking for an address on va.
name="rdmacheck inside another network namespace (shared netns mode)"
mtu=9000
fault() { ip netns add rdmacheck_ns1; }
undo() { ip netns delete rdmacheck_ns1; }
wrap=(ip netns exec rdmacheck_ns1)
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks rxe-setup,hung-qp)
expect rxe-setup WARN 'not in it: no va under this namespace'
expect rxe-setup WARN 'nsenter -t 1 -n rdmacheck -d rxe0'
expect hung-qp PASS
