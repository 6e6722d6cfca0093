# nftables drops RoCE v2 leaving the host: an output-hook chain with `udp
# dport 4791 drop`. Requests and ACKs both go to UDP 4791, so rxe0 -> rxe1
# stops as surely as with an input drop. Measured: rxe's very first packet is
# refused by ip_local_out, so its send_err climbs (176307 in 2 s) while
# sent_pkts stays at 0; hung-qp calls that a blocked path (a 64-byte SEND
# cannot be too big for any MTU) and firewall-4791 names the output chain
# (before, it looked at the input path only and PASSed).
name="nftables output chain drops UDP 4791"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
fault() {
  res_begin
  nft add table inet rdmacheck_fault &&
    nft add chain inet rdmacheck_fault out '{ type filter hook output priority 0; }' &&
    nft add rule inet rdmacheck_fault out udp dport 4791 drop
}
undo() { nft delete table inet rdmacheck_fault; res_end; expect_seconds hung-qp 2.2; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks firewall-4791,hung-qp)
expect_exit 1
expect firewall-4791 FAIL 'UDP 4791 out of va (rxe0) from 198.18.0.1 to the peer'
expect firewall-4791 FAIL 'dropped by nft table inet rdmacheck_fault chain out rule 1'
expect firewall-4791 FAIL 'nft insert rule inet rdmacheck_fault out oifname "va" udp dport 4791 accept'
expect firewall-4791 FAIL 'on the output path'
expect hung-qp FAIL 'path blocked'
expect hung-qp FAIL 'refused to send packets of only 64 B (send_err): an output firewall rule'
expect hung-qp FAIL 'nft list ruleset | grep 4791'
