#!/usr/bin/env bash
# Checks the container examples without a container engine: the YAML files
# (and the NPD config's JSON) parse (python3-yaml) into the documents they
# should be, wired to each other; the shell in the
# workflow's `run:` steps and the DaemonSet's loop passes `bash -n`, and
# shellcheck when it is installed. Runs from the workspace root (bazel test).
set -uo pipefail
D=ci/container
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }

command -v python3 >/dev/null || { echo "FAIL: python3 missing (ci/deps.sh)"; exit 1; }
python3 -c 'import yaml' 2>/dev/null || { echo "FAIL: python3-yaml missing (ci/deps.sh)"; exit 1; }

tmp=${TEST_TMPDIR:-$(mktemp -d)}
# Parse each file, assert its structure, and write the shell scripts it
# carries to $tmp/<name>.N.sh.
python3 - "$D" "$tmp" <<'PY' || fails=$((fails + 1))
import sys, yaml
d, tmp = sys.argv[1], sys.argv[2]
bad = 0
def check(cond, what):
    global bad
    print(("PASS: " if cond else "FAIL: ") + what)
    bad += 0 if cond else 1

wf = yaml.safe_load(open(f"{d}/github-actions.yml"))
steps = wf["jobs"]["softroce"]["steps"]
runs = [s["run"] for s in steps if "run" in s]
check(len(runs) == 3, f"github-actions.yml: 3 run steps (got {len(runs)})")
check(any("rdma link add rxe0 type rxe" in r for r in runs), "github-actions.yml adds an rxe link")
check(any("--format=junit" in r for r in runs), "github-actions.yml writes JUnit")
up = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
check(len(up) == 1 and up[0].get("if") == "always()" and up[0]["with"]["path"] == "out/rdmacheck.xml",
      "github-actions.yml keeps out/rdmacheck.xml even when rdmacheck fails")
for i, r in enumerate(runs):
    open(f"{tmp}/workflow.{i}.sh", "w").write(r)

for name, kind in (("job", "Job"), ("daemonset", "DaemonSet")):
    doc = yaml.safe_load(open(f"{d}/kubernetes/{name}.yaml"))
    check(doc["kind"] == kind, f"{name}.yaml is a {kind}")
    pod = doc["spec"]["template"]["spec"]
    c = pod["containers"][0]
    check(pod.get("hostNetwork") is True, f"{name}.yaml: hostNetwork true")
    check(c["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"], f"{name}.yaml: IPC_LOCK added")
    check(c["resources"]["limits"].get("rdma/hca_shared_devices_a") == 1,
          f"{name}.yaml: one rdma/hca_shared_devices_a")
    if c.get("command", [])[:2] == ["/bin/sh", "-c"]:
        open(f"{tmp}/{name}.0.sh", "w").write(c["args"][0])
    if kind == "DaemonSet":
        check(doc["spec"]["selector"]["matchLabels"] == doc["spec"]["template"]["metadata"]["labels"],
              "daemonset.yaml: selector matches the pod labels")

# node-problem-detector with rdmacheck as its plugin (kubernetes/npd/).
import json, os
npd = f"{d}/kubernetes/npd"
docs = list(yaml.safe_load_all(open(f"{npd}/node-problem-detector.yaml")))
check([x["kind"] for x in docs] == ["ServiceAccount", "ClusterRoleBinding", "DaemonSet"],
      "npd: a ServiceAccount, its ClusterRoleBinding and a DaemonSet")
sa, crb, ds = docs
check(crb["roleRef"]["name"] == "system:node-problem-detector" and
      crb["subjects"][0] == {"kind": "ServiceAccount", "name": sa["metadata"]["name"],
                             "namespace": sa["metadata"]["namespace"]},
      "npd: the binding gives the ServiceAccount node-problem-detector's role")
pod = ds["spec"]["template"]["spec"]
c, init = pod["containers"][0], pod["initContainers"][0]
check(pod["serviceAccountName"] == sa["metadata"]["name"], "npd: the pod runs as that ServiceAccount")
check(ds["spec"]["selector"]["matchLabels"] == ds["spec"]["template"]["metadata"]["labels"],
      "npd: selector matches the pod labels")
check(pod.get("hostNetwork") is True and c["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"] and
      c["resources"]["limits"].get("rdma/hca_shared_devices_a") == 1,
      "npd: host network, IPC_LOCK, one rdma/hca_shared_devices_a")
check(init["command"][:2] == ["cp", "/node-problem-detector"] and init["command"][2] == c["command"][0],
      "npd: the init container copies node-problem-detector to the path the container runs")
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
check(mounts.get("npd-bin") == os.path.dirname(c["command"][0]), "npd: the copied binary is mounted")
kust = yaml.safe_load(open(f"{npd}/kustomization.yaml"))
gen = kust["configMapGenerator"][0]
vols = {v["name"]: v for v in pod["volumes"]}
check(vols["config"]["configMap"]["name"] == gen["name"], "npd: the config volume is the generated ConfigMap")
check(all(os.path.exists(f"{npd}/{f}") for f in kust["resources"] + gen["files"]),
      "npd: every file kustomization.yaml names exists")
flag = [a.split("=", 1)[1] for a in c["command"] if a.startswith("--config.custom-plugin-monitor=")]
check(flag == [f"{mounts['config']}/{gen['files'][0]}"],
      "npd: --config.custom-plugin-monitor names the mounted config")
cfg = json.load(open(f"{npd}/rdmacheck-npd.json"))
check(cfg["plugin"] == "custom" and cfg["rules"][0]["path"] == "/usr/local/bin/rdmacheck",
      "npd: a custom plugin config running /usr/local/bin/rdmacheck")
check("--port=0" in c["command"] and "--prometheus-port=0" in c["command"],
      "npd: its ports are off (the host network may hold the cluster's own NPD)")
sys.exit(1 if bad else 0)
PY

cp "$D/slurm/rdmacheck-healthcheck.sh" "$tmp/slurm.0.sh"
for f in "$tmp"/*.sh; do
  [[ -e "$f" ]] || { fail "no shell extracted from the examples"; break; }
  if bash -n "$f"; then pass "bash -n $(basename "$f")"; else fail "bash -n $(basename "$f")"; fi
  if command -v shellcheck >/dev/null; then
    # SC2016: the workflow's ${{ }} expressions are not shell.
    if shellcheck -s bash -e SC2016 "$f"; then pass "shellcheck $(basename "$f")"; else fail "shellcheck $(basename "$f")"; fi
  fi
done
grep -q '^FROM debian:bookworm' "$D/Dockerfile" && pass "Dockerfile: Debian bookworm" || fail "Dockerfile: not FROM debian:bookworm"
grep -q 'ENTRYPOINT \["/usr/local/bin/rdmacheck"\]' "$D/Dockerfile" && pass "Dockerfile: rdmacheck entrypoint" ||
  fail "Dockerfile: no rdmacheck entrypoint"
for p in ibverbs-providers libibverbs1 ibverbs-utils libstdc++6; do
  grep -q "$p" "$D/Dockerfile" && pass "Dockerfile installs $p" || fail "Dockerfile lacks $p"
done
echo "$fails failed"
((fails == 0))
