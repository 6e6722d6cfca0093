# A token bucket on va smaller than one RoCE packet (`tbf rate 50mbit burst
# 32kbit latency 400ms`: a 4000-byte bucket; the first packet of a WRITE at
# path MTU 4096 is a 4170-byte frame). tbf drops every full-size packet, and
# rxe (kernel 6.1) retries a packet its qdisc refused without end: traffic at
# MTU 4096 would leave the QP stuck in the kernel. The gather reads the qdisc
# (tc -j qdisc show); bandwidth FAILs naming it, without sending a full-size
# packet into it, and measures at the largest path MTU whose frames fit
# (2048), where the tbf's 50 Mbit/s rate shows against the plan's minimum.
name="tbf burst 32kbit on va (smaller than a packet): bandwidth FAIL naming the qdisc, measured at path MTU 2048"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
QDISC_DEV=va QDISC=(tbf rate 50mbit burst 32kbit latency 400ms) SHOW=bandwidth
fault() { qdisc_fault; }
undo() { qdisc_undo; }
args=(--plan "$FIXTURES/plans/rxe_guest_perf.plan" -d rxe0 --checks bandwidth)
expect_exit 1
expect bandwidth FAIL 'qdisc tbf root rate 50Mbit burst 409'
expect bandwidth FAIL 'path MTU 4096'
expect bandwidth FAIL 'measured at path MTU 2048'
expect bandwidth FAIL 'tc qdisc show dev va'
