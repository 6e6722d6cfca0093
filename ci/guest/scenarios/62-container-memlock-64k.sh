# A container whose RLIMIT_MEMLOCK is 64 KiB (`--ulimit memlock=65536` or an
# engine's old default) and without IPC_LOCK, while the plan registers
# 2 x 64 MiB: memlock FAILs and names the --ulimit flag.
name="container with memlock 64 KiB, plan pins 128 MiB -> --ulimit remedy"
mtu=9000
wrap=(bash "$SHARE/scenarios/container-run.bash" --devices --memlock 64 --host-net --)
args=(--plan "$PLANS/memlock_64mib.plan" -d rxe0 --checks 'memlock,rxe-setup')
expect_exit 1
expect memlock FAIL '64 KiB'
expect memlock FAIL '--ulimit memlock=-1'
expect memlock FAIL 'missing here: --cap-add=IPC_LOCK --ulimit memlock=-1'
