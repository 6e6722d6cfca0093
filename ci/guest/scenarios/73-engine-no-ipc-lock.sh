# The README's command without --cap-add=IPC_LOCK, memlock 8 MiB (what
# Docker 25 and later give by default): the plan fits the limit, so memlock
# PASSes, but rxe-setup's evidence says the capability is not granted and the
# remedy names --cap-add=IPC_LOCK.
name="$ENGINE without --cap-add=IPC_LOCK, memlock 8 MiB -> rxe-setup names IPC_LOCK"
mtu=9000
command=(bash "$SHARE/container/run-checks.sh" --readme "$SHARE/README.md" --engine "$ENGINE"
  --without '--cap-add=IPC_LOCK' --without '--ulimit memlock=-1'
  --with '--ulimit memlock=8388608' --with "-v $PLANS:/plans:ro" --)
args=(--plan /plans/rxe_healthy.plan --checks 'memlock,rxe-setup')
expect_exit 1
expect memlock PASS '8 MiB'
expect rxe-setup FAIL 'container capability IPC_LOCK'
expect rxe-setup FAIL 'not granted'
expect rxe-setup FAIL 'missing here: --cap-add=IPC_LOCK'
