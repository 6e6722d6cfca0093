# iptables (Debian 12: the nft backend) REJECTs RoCE v2: firewall-4791 reads
# iptables-nft-save, names the rule and gives the iptables command to accept
# UDP 4791 on va. The other checks' verdicts stay as in the healthy pair.
name="iptables -I INPUT -p udp --dport 4791 -j REJECT"
mtu=9000
fault() { iptables -I INPUT -p udp --dport 4791 -j REJECT; }
undo() { iptables -D INPUT -p udp --dport 4791 -j REJECT; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0)
expect_exit 1
expect firewall-4791 FAIL 'rejected by iptables-nft table ip filter chain INPUT rule 1'
expect firewall-4791 FAIL 'iptables -I INPUT -i va -p udp --dport 4791 -j ACCEPT'
expect rxe-setup PASS
expect port-active PASS
expect device-present PASS
