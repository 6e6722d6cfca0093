# Strict reverse-path filtering on va: rxe0 and rxe1 share one subnet, so
# the kernel drops packets from its own addresses unless rp_filter=0 and
# accept_local=1 (docs/checks/rxe-sysctls.md). rxe-sysctls FAILs naming it.
name="rp_filter=1 on va"
mtu=9000
fault() { sysctl -qw net.ipv4.conf.va.rp_filter=1; }
undo() { sysctl -qw net.ipv4.conf.va.rp_filter=0; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect rxe-sysctls FAIL 'rp_filter'
expect port-active PASS
