# The README's command without its --device flags: the kernel lists rxe0
# (sysfs is shared) but the container has no /dev/infiniband/uverbs0, so
# libibverbs cannot list it. device-present FAILs with the engine's own run
# line and --device for the node.
name="$ENGINE without --device -> device-present FAIL, --device remedy"
mtu=9000
command=(bash "$SHARE/container/run-checks.sh" --readme "$SHARE/README.md" --engine "$ENGINE"
  --without '--device=*' --)
args=(--checks 'device-present,rxe-setup')
expect_exit 1
expect device-present FAIL "$ENGINE run --device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm"
expect device-present FAIL 'missing here: --device=/dev/infiniband/uverbs0'
expect rxe-setup FAIL 'missing here: --device=/dev/infiniband/uverbs0'
