# The README's own command line for $ENGINE (docker or podman), read from
# the README by ci/container/run-checks.sh, so the README cannot drift from
# what is run: the offline image of ci/container/Dockerfile, given
# /dev/infiniband/uverbs0 and rdma_cm, IPC_LOCK, memlock unlimited and the
# host network, on rxe0 with the default checklist. rxe1's node is not
# passed in, so the probes loop back on rxe0 and say why.
name="$ENGINE: the README's command on rxe0 -> PASS"
mtu=9000
command=(bash "$SHARE/container/run-checks.sh" --readme "$SHARE/README.md" --engine "$ENGINE" --)
args=()
expect_exit 0
expect device-present PASS 'rxe0'
expect rxe-setup PASS 'container capability IPC_LOCK'
expect rxe-setup PASS '/dev/infiniband/uverbs0'
expect memlock PASS 'unlimited'
expect gid-table PASS '::ffff:198.18.0.1'
expect hung-qp PASS 'only device this process can open'
expect sge-page-crossing PASS 'completed and verified'
