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
# Under the same tbf, `rdmacheck bench` runs at -m 2048 and says why; asked
# for -m 4096 it runs nothing (exit 3) and names the qdisc.
undo() {
  local out rc=0
  out=$(timeout 60 "$RDMACHECK" bench -d rxe0 --peer-dev rxe1 -x 1 -n 200 --format csv 2>&1) || rc=$?
  if ((rc == 0)) && grep -q 'Running at -m 2048' <<<"$out"; then
    record PASS "$scn: rdmacheck bench moves to -m 2048 under the tbf and says why"
  else
    record FAIL "$scn: rdmacheck bench moves to -m 2048 under the tbf" "exit $rc: $(tail -c 300 <<<"$out")"
  fi
  rc=0
  out=$(timeout 60 "$RDMACHECK" bench -d rxe0 --peer-dev rxe1 -x 1 -n 200 -m 4096 2>&1) || rc=$?
  if ((rc == 3)) && grep -q 'va has qdisc tbf root rate 50Mbit burst' <<<"$out"; then
    record PASS "$scn: rdmacheck bench -m 4096 under the tbf runs nothing (exit 3), naming the qdisc"
  else
    record FAIL "$scn: rdmacheck bench -m 4096 under the tbf" "exit $rc: $(tail -c 300 <<<"$out")"
  fi
  qdisc_undo
}
args=(--plan "$FIXTURES/plans/rxe_guest_perf.plan" -d rxe0 --checks bandwidth)
expect_exit 1
expect bandwidth FAIL 'qdisc tbf root rate 50Mbit burst 409'
expect bandwidth FAIL 'path MTU 4096'
expect bandwidth FAIL 'measured at path MTU 2048'
expect bandwidth FAIL 'tc qdisc show dev va'
