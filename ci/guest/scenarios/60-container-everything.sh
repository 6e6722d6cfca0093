# rdmacheck inside an OCI container (crun, container-run.bash) given all an
# RDMA container needs: the /dev/infiniband nodes, IPC_LOCK, memlock
# unlimited and the host's network namespace, i.e. `docker run
# --device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm
# --cap-add=IPC_LOCK --ulimit memlock=-1 --network host`. The container is
# detected (its root is a bind mount, /proc/self/mountinfo) and the checks
# that look at what a container was given PASS.
name="container: device nodes, IPC_LOCK, memlock unlimited, host network -> PASS"
mtu=9000
wrap=(bash "$SHARE/scenarios/container-run.bash" --devices --cap-ipc-lock --memlock unlimited --host-net --)
args=(--plan "$PLANS/memlock_64mib.plan" -d rxe0 -x 1 --checks 'device-present,rxe-setup,memlock,gid-table')
expect_exit 0
expect device-present PASS 'rxe0'
expect rxe-setup PASS 'container capability IPC_LOCK'
expect rxe-setup PASS '/dev/infiniband/uverbs0'
expect memlock PASS 'unlimited'
expect gid-table PASS '::ffff:198.18.0.1'
