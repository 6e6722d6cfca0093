# A token bucket on va: `tbf rate 50mbit burst 32kbit latency 400ms`. Its
# bucket holds 4000 bytes, and tbf drops every packet larger than its bucket,
# so at path MTU 4096 no full-size RoCE packet ever leaves va (measured: send_err
# climbs, sent_pkts stays 0): the bandwidth run stalls, and FAILs with the
# qdisc named among the causes. (55-bandwidth-tbf-burst gives the bucket
# room for a packet and measures the capped rate.)
name="tbf 50mbit burst 32kbit on va: bandwidth FAIL, the qdisc named"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
fault() { res_begin; tc qdisc add dev va root tbf rate 50mbit burst 32kbit latency 400ms; }
undo() {
  tc qdisc del dev va root 2>/dev/null
  res_end
  echo "  bandwidth: $(jq -r '.checks[] | select(.id == "bandwidth") | [.evidence[].actual] | join(" | ")' "$json")"
}
args=(--plan "$FIXTURES/plans/rxe_guest_perf.plan" -d rxe0 --checks bandwidth)
expect_exit 1
expect bandwidth FAIL 'rxe0 -> rxe1 bandwidth run'
expect bandwidth FAIL 'send_err'
expect bandwidth FAIL 'tc qdisc show dev va'
