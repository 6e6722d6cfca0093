# rxe0 on bridge br0 (va its port), br_netfilter loaded (it hands bridged IP
# to the iptables hooks), and the filter table of a real Kubernetes + Docker
# node (fixtures/rulesets/kube_docker_filter.save: FORWARD policy DROP,
# kubelet's KUBE-FIREWALL mark drop). Measured: rxe0's own traffic on br0
# takes INPUT/OUTPUT and passes (ib_write_bw and hung-qp); RoCE bridged
# between br0's ports would meet FORWARD and its policy drop. firewall-4791
# PASSes the input and output rows (the 0x8000 mark rule does not match
# unmarked RoCE) and WARNs the bridged row, with docker's DOCKER-USER remedy.
name="rxe on a bridge, br_netfilter and a real Kubernetes node's FORWARD DROP"
mtu=9000
source "$SHARE/scenarios/bridge-lib.bash"
fault() {
  bridge_up && bridge_rxe_on_br0 || return 1
  modprobe br_netfilter || return 1
  iptables-nft-restore "$FIXTURES/rulesets/kube_docker_filter.save"
}
undo() {
  iptables-nft -F; iptables-nft -X; iptables-nft -P FORWARD ACCEPT
  nft delete table ip filter 2>/dev/null
  bridge_down
  modprobe -r br_netfilter
  return 1
}
args=(-d rxe0 --checks firewall-4791,rxe-setup,hung-qp)
expect firewall-4791 WARN 'accepted (1 base chain(s); last: iptables-nft table ip filter chain INPUT policy accept'
expect firewall-4791 WARN 'UDP 4791 bridged across br0'
expect firewall-4791 WARN 'iptables-nft table ip filter chain FORWARD policy drop'
expect firewall-4791 WARN 'iptables -I DOCKER-USER -i br0 -o br0 -p udp --dport 4791 -j ACCEPT'
expect rxe-setup PASS 'rxe0 netdev br0 address'
expect hung-qp PASS
