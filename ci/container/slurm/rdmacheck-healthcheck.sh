#!/bin/bash
# Slurm HealthCheckProgram: runs rdmacheck's static checks on this node and,
# when one FAILs, drains the node with rdmacheck's one line as the reason.
# slurm.conf on every compute node:
#
#   HealthCheckProgram=/usr/local/sbin/rdmacheck-healthcheck.sh
#   HealthCheckInterval=300
#   HealthCheckNodeState=ANY
#
# rdmacheck itself changes nothing on the host; draining is this script's
# doing, the operator's choice. An unknown result (exit 2: bad input, 3:
# every check skipped) only logs, so a broken install never drains a
# cluster. docs/output-formats.md, section NPD (the line and its statuses).
set -u
RDMACHECK=${RDMACHECK:-/usr/local/bin/rdmacheck}
# The NPD config's selection (ci/container/kubernetes/npd/rdmacheck-npd.json):
# no live probe, a 1 s counter window.
RDMACHECK_ARGS=(
  --format=npd
  "--skip=hung-qp,sge-page-crossing,cq-overrun,memory-budget,bandwidth,latency"
  --window=1
  --check-deadline=3
)
# The deployment's plan, when there is one.
[[ -r /etc/rdmacheck/node.plan ]] && RDMACHECK_ARGS+=(--plan=/etc/rdmacheck/node.plan)

# A bound of its own: slurmd waits for this program (124: timed out).
line=$(timeout 20 "$RDMACHECK" "${RDMACHECK_ARGS[@]}" 2>/dev/null)
rc=$?
case $rc in
  0) exit 0 ;;
  1)
    scontrol update nodename="$(hostname -s)" state=drain reason="rdmacheck: $line"
    logger -t rdmacheck-healthcheck "drained: $line"
    exit 0
    ;;
  *)
    logger -t rdmacheck-healthcheck "rdmacheck exit $rc (no verdict): ${line:-no output}"
    exit 0
    ;;
esac
