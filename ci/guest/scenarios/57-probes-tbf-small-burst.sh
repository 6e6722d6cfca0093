# The token bucket of scenario 52 (smaller than one RoCE frame) under the
# traffic probes: hung-qp's 64 KiB WRITE and sge-page-crossing's WRs fill
# packets of path MTU 4096, which tbf would drop and rxe retry without end.
# Both FAIL naming the qdisc, send nothing, and the run ends at once.
name="tbf burst 32kbit on va: hung-qp and sge-page-crossing FAIL naming the qdisc, nothing sent"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
QDISC_DEV=va QDISC=(tbf rate 50mbit burst 32kbit latency 400ms) SHOW=hung-qp
fault() { qdisc_fault; }
undo() { qdisc_undo; }
args=(-d rxe0 --checks hung-qp,sge-page-crossing)
expect_exit 1
expect hung-qp FAIL 'qdisc tbf root rate 50Mbit burst 409'
expect hung-qp FAIL 'not probed rxe0 -> rxe1'
expect hung-qp FAIL 'tc qdisc replace dev va root tbf rate 50mbit burst 64kb'
expect sge-page-crossing FAIL 'not probed rxe0 -> rxe1'
