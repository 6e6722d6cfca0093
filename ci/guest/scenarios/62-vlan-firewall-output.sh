# RoCE over a VLAN with an nftables output rule on the VLAN's name: the
# packets meet the rules as va.100's (a rule on "va" would not see them), so
# firewall-4791 evaluates va.100 and names the rule; hung-qp sees the 64 B
# SEND refused on the way out.
name="nftables output drop of UDP 4791 on the VLAN netdev"
mtu=9000
source "$SHARE/scenarios/vlan-lib.bash"
source "$SHARE/scenarios/probe-lib.bash"
fault() {
  vlan_up 100 || return 1
  res_begin
  nft add table inet rdmacheck_fault &&
    nft add chain inet rdmacheck_fault out '{ type filter hook output priority 0; }' &&
    nft add rule inet rdmacheck_fault out oifname "va.100" udp dport 4791 drop
}
undo() { nft delete table inet rdmacheck_fault; res_end; vlan_down; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks firewall-4791,hung-qp)
expect_exit 1
expect firewall-4791 FAIL 'UDP 4791 in on va.100 (rxe0) to 198.18.1.1'
expect firewall-4791 FAIL 'UDP 4791 out of va.100 (rxe0) from 198.18.1.1'
expect firewall-4791 FAIL 'nft insert rule inet rdmacheck_fault out oifname "va.100" udp dport 4791 accept'
expect hung-qp FAIL 'path blocked'
