# The README's command with --network none instead of --network host: rxe0
# and its GIDs are still listed (RDMA devices are shared between network
# namespaces by default) but its netdev va and the address its RoCE GIDs are
# made from are not in the container's namespace. gid-table and rxe-setup
# FAIL and name --network host.
name="$ENGINE with --network none -> --network host remedy"
mtu=9000
command=(bash "$SHARE/container/run-checks.sh" --readme "$SHARE/README.md" --engine "$ENGINE"
  --without '--network host' --with '--network none' --with "-v $PLANS:/plans:ro" --)
args=(--plan /plans/rxe_healthy.plan --checks 'gid-table,rxe-setup')
expect_exit 1
expect gid-table FAIL 'netdev va'
expect gid-table FAIL "$ENGINE run"
expect gid-table FAIL 'missing here: --network host'
expect rxe-setup FAIL 'missing here: --network host'
