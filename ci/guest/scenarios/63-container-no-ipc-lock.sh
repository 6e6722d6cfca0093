# IPC_LOCK dropped (docker's default capability set) and memlock limited to
# 8 MiB (docker's default since 25.0): the plan fits the limit, so memlock
# PASSes, but rxe-setup says the container cannot pin past it and names
# --cap-add=IPC_LOCK.
name="container without IPC_LOCK, memlock 8 MiB -> --cap-add=IPC_LOCK remedy"
mtu=9000
wrap=(bash "$SHARE/scenarios/container-run.bash" --devices --memlock 8192 --host-net --)
args=(--plan "$PLANS/rxe_healthy.plan" -d rxe0 --checks 'memlock,rxe-setup')
expect_exit 1
expect memlock PASS '8 MiB'
expect rxe-setup FAIL 'not granted'
expect rxe-setup FAIL '--cap-add=IPC_LOCK'
