# The same container without the /dev/infiniband nodes (no --device): the
# kernel still lists rxe0 in /sys/class/infiniband, but libibverbs skips a
# device whose /dev/infiniband/uverbsN it cannot find, and nothing can open
# one. The remedy is the docker line with --device for the node.
name="container without /dev/infiniband -> --device remedy"
mtu=9000
wrap=(bash "$SHARE/scenarios/container-run.bash" --cap-ipc-lock --memlock unlimited --host-net --)
args=(-d rxe0 --checks 'device-present,rxe-setup')
expect_exit 1
expect rxe-setup FAIL 'missing'
expect rxe-setup FAIL '--device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm'
expect rxe-setup FAIL 'missing here: --device=/dev/infiniband/uverbs0'
