# The filter table of a real Kubernetes + Docker node
# (fixtures/rulesets/kube_docker_filter.save), whose KUBE-FIREWALL drops
# packets marked 0x8000, plus a mangle rule that marks RoCE v2 with it (as
# kube-proxy's KUBE-MARK-DROP does for what it refuses). The verdict follows
# the mark: firewall-4791 names KUBE-FIREWALL's rule, hung-qp sees nothing
# arrive. (Between two devices of one host nat PREROUTING never sees the
# looped-back packet, whose connection was set up on output: the mark is set
# in mangle, which sees every packet.)
name="a packet mark set in mangle and dropped by kubelet's KUBE-FIREWALL"
mtu=9000
fault() {
  iptables-nft-restore "$FIXTURES/rulesets/kube_docker_filter.save" &&
    iptables-nft -t mangle -A PREROUTING -p udp --dport 4791 -j MARK --set-xmark 0x8000/0x8000
}
undo() {
  iptables-nft -t mangle -F; iptables-nft -F; iptables-nft -X; iptables-nft -P FORWARD ACCEPT
  nft delete table ip filter 2>/dev/null; nft delete table ip mangle 2>/dev/null
}
args=(-d rxe0 --checks firewall-4791,hung-qp)
expect_exit 1
expect firewall-4791 FAIL 'dropped by iptables-nft table ip filter chain KUBE-FIREWALL rule 1'
expect firewall-4791 FAIL 'mark was set by iptables-nft table ip mangle chain PREROUTING rule 1'
expect hung-qp FAIL 'path blocked'
