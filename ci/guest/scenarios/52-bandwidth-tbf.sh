# A token bucket on va caps what rxe0 sends at 50 Mbit/s (rxe transmits
# through the netdev's qdisc like any UDP socket): under a plan minimum of
# 0.1 Gb/s the bandwidth check FAILs with the measured figure, and names the
# qdisc first among the causes.
name="tbf 50mbit on va: bandwidth FAIL naming the qdisc"
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
expect bandwidth FAIL 'rxe0 -> rxe1'
expect bandwidth FAIL 'tc qdisc show dev va'
