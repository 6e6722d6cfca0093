# A container with its own network namespace (no --network host): rxe0 is
# still listed (the RDMA subsystem is shared between namespaces by default)
# but its netdev va and the address its RoCE GIDs are made from are in the
# host's namespace (the view inside has va by name only, from rxe0, with no
# address). gid-table and rxe-setup FAIL and name --network host.
name="container with its own network namespace -> --network host remedy"
mtu=9000
wrap=(bash "$SHARE/scenarios/container-run.bash" --devices --cap-ipc-lock --memlock unlimited --)
args=(--plan "$PLANS/rxe_healthy.plan" -d rxe0 --checks 'gid-table,rxe-setup')
expect_exit 1
expect gid-table FAIL 'netdev va'
expect gid-table FAIL 'missing here: --network host'
expect rxe-setup FAIL 'missing here: --network host'
