# RLIMIT_MEMLOCK lowered to 64 KiB for rdmacheck while the plan registers
# 2 x 64 MiB: memlock FAILs naming the limit and how much is needed.
name="RLIMIT_MEMLOCK 64 KiB, plan needs 128 MiB"
mtu=9000
limits='ulimit -l 64'
args=(--plan "$PLANS/memlock_64mib.plan" -d rxe0)
expect_exit 1
expect memlock FAIL '64 KiB'
expect memlock FAIL 'ulimit -l'
expect device-limits PASS
