# The README's command with --ulimit memlock=65536 (64 KiB) and without
# --cap-add=IPC_LOCK, under a plan that pins 128 MiB: memlock FAILs and names
# the engine's --ulimit memlock=-1.
name="$ENGINE with --ulimit memlock=65536, plan pins 128 MiB -> memlock FAIL"
mtu=9000
command=(bash "$SHARE/container/run-checks.sh" --readme "$SHARE/README.md" --engine "$ENGINE"
  --without '--cap-add=IPC_LOCK' --without '--ulimit memlock=-1'
  --with '--ulimit memlock=65536' --with "-v $PLANS:/plans:ro" --)
args=(--plan /plans/memlock_64mib.plan --checks 'memlock,rxe-setup')
expect_exit 1
expect memlock FAIL '64 KiB'
expect memlock FAIL "$ENGINE run --device=/dev/infiniband/uverbs0"
expect memlock FAIL 'missing here: --cap-add=IPC_LOCK --ulimit memlock=-1'
