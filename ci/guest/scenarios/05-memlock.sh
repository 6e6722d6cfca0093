# RLIMIT_MEMLOCK lowered to 64 KiB for rdmacheck while the plan registers
# 2 x 64 MiB. The memlock check is issue 4.
name="RLIMIT_MEMLOCK 64 KiB, plan needs 128 MiB"
mtu=9000
limits='ulimit -l 64'
args=(--plan "$PLANS/memlock_64mib.plan" -d rxe0)
xfail 4 memlock FAIL 'memlock'
expect device-limits PASS
