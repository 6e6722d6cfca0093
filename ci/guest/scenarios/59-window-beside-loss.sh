# The counter window is watched while the other checks run (checks/session.h);
# it stands only when none of the counters link-health judges moved. Here
# netem drops a fifth of what vb sends (rxe1's ACKs and read responses), so
# the probes' own packets are retried: the window beside them moved, is not
# judged, and link-health judges a second window watched after the probes,
# with nothing of ours running.
name="netem loss 20% on vb under the probes: the window beside them saw their retries; link-health judges one after them"
mtu=9000
source "$SHARE/scenarios/probe-lib.bash"
QDISC_DEV=vb QDISC=(netem loss 20%) SHOW=link-health
fault() { qdisc_fault; }
undo() { qdisc_undo; }
# A window long enough to cover the probes (a 1 s one closed before their
# retries came).
args=(-d rxe0 --checks hung-qp,sge-page-crossing,link-health --window 4)
expect link-health PASS 'a first window, watched while the other checks ran, saw rxe0 port 1'
# It ended at the look that saw the move (facts/link_window.h give_up_when).
expect link-health PASS "while rdmacheck's own probes ran (in its first"
expect link-health PASS 'not judged; this one was watched after them'
