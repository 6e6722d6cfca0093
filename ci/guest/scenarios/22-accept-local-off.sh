# accept_local off everywhere (the kernel default): the kernel drops packets
# between rxe0 (198.18.0.1) and rxe1 (198.18.0.2) as martians.
name="net.ipv4.conf.*.accept_local=0"
mtu=9000
fault() {
  local k
  for k in all default va vb; do sysctl -qw "net.ipv4.conf.$k.accept_local=0" || return 1; done
}
undo() {
  local k
  for k in all default va vb; do sysctl -qw "net.ipv4.conf.$k.accept_local=1" || return 1; done
}
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect rxe-sysctls FAIL 'all=0 va=0 -> 0'
expect rxe-sysctls FAIL 'sysctl -w net.ipv4.conf.va.accept_local=1 net.ipv4.conf.vb.accept_local=1'
expect rxe-sysctls FAIL '/etc/sysctl.d/90-rdma-local.conf'
expect gid-table PASS
expect mtu-chain PASS
expect port-active PASS
