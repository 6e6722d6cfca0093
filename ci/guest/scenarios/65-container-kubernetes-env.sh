# As 61 (no device nodes) with the environment a Kubernetes pod gets
# (KUBERNETES_SERVICE_HOST, set by the kubelet): the remedy is the pod spec's
# RDMA device plugin resource instead of a docker flag.
name="container with a pod's environment, no device nodes -> device plugin resource"
mtu=9000
wrap=(bash "$SHARE/scenarios/container-run.bash" --cap-ipc-lock --memlock unlimited --host-net
  --env KUBERNETES_SERVICE_HOST=10.96.0.1 --)
args=(-d rxe0 --checks 'rxe-setup')
expect_exit 1
expect rxe-setup FAIL 'kubernetes'
expect rxe-setup FAIL 'rdma/hca_shared_devices_a: 1'
