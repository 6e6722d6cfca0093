# netem delays what va sends by 5 ms: each WRITE from rxe0 reaches rxe1 5 ms
# late, so half a round trip is about 2.5 ms, over the plan's 1 ms: latency
# FAILs with the median and the qdisc first among the causes.
name="netem delay 5ms on va: latency FAIL"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
QDISC_DEV=va QDISC=(netem delay 5ms) SHOW=latency
fault() { qdisc_fault; }
undo() { qdisc_undo; }
args=(--plan "$FIXTURES/plans/rxe_guest_perf.plan" -d rxe0 --checks latency)
expect_exit 1
expect latency FAIL 'RDMA WRITE latency (median)'
expect latency FAIL 'tc qdisc show dev va'
