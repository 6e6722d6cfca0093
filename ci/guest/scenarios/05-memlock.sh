# RLIMIT_MEMLOCK lowered to 64 KiB for rdmacheck while the plan registers
# 2 x 64 MiB: memlock FAILs (128 MiB registered against 64 KiB; rxe's queue
# rings are kernel memory and not charged) and names the ulimit remedy.
name="RLIMIT_MEMLOCK 64 KiB, plan needs 128 MiB"
mtu=9000
limits='ulimit -l 64'
args=(--plan "$PLANS/memlock_64mib.plan" -d rxe0)
expect_exit 1
expect memlock FAIL 'ulimit -l unlimited'
expect memlock FAIL '128 MiB'
expect memlock FAIL '64 KiB'
expect device-limits PASS
