# RoCE v2 over IPv6 between the two devices of one host: only IPv6 global
# addresses (2001:2::/48, the IPv6 benchmarking range) on va and vb. rxe0
# sends, rxe1 receives nothing: the kernel's route to a local IPv6 address
# is through lo ("ip -6 route get 2001:2::2 from 2001:2::1": dev lo), so the
# pair cannot carry IPv6 RoCE here, firewall or not. hung-qp says that, not
# "path blocked". The plan asks for IPv6 (ip_version = 6): gid-table wants
# the IPv6 entry, and the probe picks it.
name="IPv6-only addresses on the local pair"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
fault() {
  local i
  ip -4 addr flush dev va && ip -4 addr flush dev vb || return 1
  ip addr add 2001:2::1/64 dev va nodad && ip addr add 2001:2::2/64 dev vb nodad || return 1
  for ((i = 0; i < 50; i++)); do
    grep -qs '^2001:0002:0000:0000:0000:0000:0000:0001' /sys/class/infiniband/rxe0/ports/1/gids/* &&
      grep -qs '^2001:0002:0000:0000:0000:0000:0000:0002' /sys/class/infiniband/rxe1/ports/1/gids/* && break
    sleep 0.1
  done
  ip -6 route get 2001:2::2 from 2001:2::1 >"$OUT/scenarios/$scn.route.txt" 2>&1
  res_begin
}
undo() { res_end; ip addr del 2001:2::1/64 dev va; ip addr del 2001:2::2/64 dev vb; return 1; }
args=(--plan "$FIXTURES/plans/rxe_guest_ipv6.plan" -d rxe0 --checks gid-table,hung-qp)
expect_exit 1
expect gid-table PASS 'the IPv6 RoCE v2 entry'
expect gid-table PASS '2001:2::1 (IPv6, RoCEv2, netdev va)'
expect hung-qp FAIL 'IPv6 between devices of one host'
expect hung-qp FAIL 'routes a local IPv6 destination through lo'
expect hung-qp FAIL 'ip -6 route get 2001:2::2 from 2001:2::1'
