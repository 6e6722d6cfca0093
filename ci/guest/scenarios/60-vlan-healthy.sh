# RoCE over a VLAN as deployed: rxe0/rxe1 on va/vb (rxe refuses VLAN
# netdevs), the addresses only on va.100/vb.100. Traffic works, and every
# check reasons about the VLAN netdev the GIDs name: rxe-setup finds the
# address on the VLAN instead of asking for one on va, the firewall is
# evaluated on va.100, the VLAN's MTU carries 4096. `rdma link add` on the
# VLAN itself is refused with EPERM and explained.
name="rxe over the parents of a VLAN pair, addresses only on the VLANs"
mtu=9000
source "$SHARE/scenarios/vlan-lib.bash"
fault() {
  vlan_up 100 || return 1
  # rxe on the VLAN netdev: refused (EPERM), the kernel says why in dmesg.
  local log="$OUT/scenarios/$scn.rdma-link-add.txt" out rc
  out=$(rdma link add rxe9 type rxe netdev va.100 2>&1)
  rc=$?
  { echo "\$ rdma link add rxe9 type rxe netdev va.100"; echo "$out"; dmesg | grep 'rdma_rxe: rxe creation' | tail -1; } >"$log"
  # explain exits non-zero when it finds something: judged by its text.
  "$RDMACHECK" explain "$log" >"$log.explained" 2>&1
  if ((rc != 0)) && grep -q 'rdma-link-add-vlan' "$log.explained" && grep -q 'rxe-on-vlan' "$log.explained" &&
     grep -q 'rdma link add rxe9 type rxe netdev va$' "$log.explained"; then
    record PASS "$scn: rdma link add on va.100 refused ($out) and explained"
  else
    record FAIL "$scn: rdma link add on va.100" "exit $rc: $out; explain: $(head -c 300 "$log.explained" 2>/dev/null)"
    [[ -e /sys/class/infiniband/rxe9 ]] && rdma link delete rxe9
  fi
  res_begin
}
undo() { res_end; vlan_down; }
source "$SHARE/scenarios/probe-lib.bash"
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0
      --checks rxe-setup,gid-table,mtu-chain,rxe-sysctls,firewall-4791,hung-qp)
expect_exit 0
expect rxe-setup PASS 'va.100 (VLAN 100 over va): 198.18.1.1/24'
expect rxe-setup PASS 'on va or a VLAN over it'
expect gid-table PASS 'netdev va.100 (VLAN 100 over va)'
expect mtu-chain PASS 'netdev va.100 (VLAN 100 over va) MTU'
expect rxe-sysctls PASS 'va.100'
expect firewall-4791 PASS 'UDP 4791 in on va.100 (rxe0) to 198.18.1.1'
expect firewall-4791 PASS 'UDP 4791 out of va.100 (rxe0) from 198.18.1.1'
expect hung-qp PASS
