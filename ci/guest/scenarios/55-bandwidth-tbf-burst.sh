# A token bucket on va that holds a full-size packet (`tbf rate 50mbit burst
# 256kbit latency 400ms`: 32 KB): RoCE passes at 50 Mbit/s, short of the
# plan's 0.07 Gb/s minimum. bandwidth FAILs with the measured figure and
# the qdisc first among the causes.
name="tbf 50mbit burst 256kbit on va: bandwidth FAIL with the capped figure"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
QDISC_DEV=va QDISC=(tbf rate 50mbit burst 256kbit latency 400ms) SHOW=bandwidth
fault() { qdisc_fault; }
undo() { qdisc_undo; }
args=(--plan "$FIXTURES/plans/rxe_guest_perf.plan" -d rxe0 --checks bandwidth)
expect_exit 1
expect bandwidth FAIL 'rxe0 -> rxe1 RDMA WRITE bandwidth'
expect bandwidth FAIL 'rxe0 -> rxe1'
expect bandwidth FAIL 'tc qdisc show dev va'
