# fleet.bash: a simulated fleet in the guest, for `rdmacheck fleet` and the
# cluster outputs (npd, prometheus). Sourced by guest-main.sh (stage 5).
#
# Six "nodes", each an rxe device of its own (fleet1..fleet6) on its own veth
# pair (fn<N>a/fn<N>b, 198.18.<20+N>.1/24), each run in a UTS namespace whose
# hostname is node<N>, with `-d fleet<N>`, so its report and the profile in
# its bundle are about that device alone (capture/report -d). Four nodes
# are made odd, each in one way an operator meets:
#   node3  netdev MTU 1500 (the others 9000): mtu-chain FAIL, MTU differs
#   node4  nftables drops UDP 4791 arriving on fn4a: firewall-4791 FAIL
#   node5  RLIMIT_MEMLOCK 64 KiB: memlock FAIL, memlock differs
#   node6  run with -x 0 (the link-local GID): gid-table FAIL
# Outputs in out/fleet/: node<N>.bundle.json (`report --format=json`),
# node<N>.npd (the one line, and the exit status in node<N>.npd.rc),
# node1.prom and node6.prom (`--format=prometheus -o`, checked with promtool on the host
# side by run.sh), fleet.txt / fleet.json / fleet.html (`rdmacheck fleet`).

FLEET_NODES=(1 2 3 4 5 6)
# Static checks, as a cluster's periodic run would have them (the traffic
# probes are the pre-production run's), and a 1 s counter window.
FLEET_ARGS=(--plan "$PLANS/fleet_node.plan" --skip 'hung-qp,sge-page-crossing,cq-overrun,memory-budget,bandwidth,latency' --window 1)

fleet_up() {
  local n a b mtu
  for n in "${FLEET_NODES[@]}"; do
    a=fn${n}a b=fn${n}b mtu=9000
    [[ $n == 3 ]] && mtu=1500
    ip link add "$a" type veth peer name "$b" || return 1
    ip link set "$a" mtu "$mtu" && ip link set "$b" mtu "$mtu" || return 1
    sysctl -qw "net.ipv4.conf.$a.accept_local=1" "net.ipv4.conf.$a.rp_filter=0"
    ip addr add "198.18.$((20 + n)).1/24" dev "$a" || return 1
    ip addr add "198.18.$((20 + n)).2/24" dev "$b" || return 1
    ip link set "$a" up && ip link set "$b" up || return 1
    rdma link add "fleet$n" type rxe netdev "$a" || return 1
  done
  for n in "${FLEET_NODES[@]}"; do wait_active "fleet$n" || return 1; done
  nft add table inet rdmacheck_fleet &&
    nft add chain inet rdmacheck_fleet in '{ type filter hook input priority 0; }' &&
    nft add rule inet rdmacheck_fleet in iifname fn4a udp dport 4791 drop
}

fleet_down() {
  local n
  nft delete table inet rdmacheck_fleet 2>/dev/null
  for n in "${FLEET_NODES[@]}"; do
    rdma link delete "fleet$n" 2>/dev/null
    ip link delete "fn${n}a" 2>/dev/null
  done
  return 0
}

# fleet_node N ARGS...: rdmacheck ARGS as node N (its hostname, its limits).
fleet_node() {
  local n=$1
  shift
  local lim=""
  [[ $n == 5 ]] && lim="ulimit -l 64;"
  # The guest has no hostname(1): the UTS namespace's name is set through
  # /proc.
  unshare --uts bash -c "echo node$n >/proc/sys/kernel/hostname && $lim exec timeout -k 5 60 \"\$@\"" _ "$RDMACHECK" "$@"
}

run_fleet() {
  [[ -x "$RDMACHECK" ]] || return 0
  local d=$OUT/fleet n x rc t0 secs
  mkdir -p "$d"
  topo_ensure 9000 0 && npd_budget
  if ! fleet_up; then
    record FAIL "fleet: six nodes set up" "see the console"
    fleet_down
    return
  fi
  for n in "${FLEET_NODES[@]}"; do
    x=1
    [[ $n == 6 ]] && x=0
    rc=0
    fleet_node "$n" report -d "fleet$n" -x "$x" "${FLEET_ARGS[@]}" --format=json -o "$d/node$n.bundle.json" \
      2>"$d/node$n.err" || rc=$?
    echo "fleet: node$n report exit $rc"
    rc=0
    t0=$(uptime_s)
    # The arguments of ci/container/kubernetes/npd/rdmacheck-npd.json: what
    # NPD runs within its 5 s timeout.
    fleet_node "$n" -d "fleet$n" -x "$x" --plan "$PLANS/fleet_node.plan" --format=npd \
      --skip=hung-qp,sge-page-crossing,cq-overrun,memory-budget,bandwidth,latency --window=1 --check-deadline=3 \
      >"$d/node$n.npd" 2>>"$d/node$n.err" || rc=$?
    secs=$(seconds_since "$t0")
    echo "$rc" >"$d/node$n.npd.rc"
    echo "TIME: fleet node$n npd run ${secs}s"
    echo "fleet: node$n npd exit $rc: $(head -c 100 "$d/node$n.npd")"
    # Prometheus files of a healthy and an odd node are enough for promtool
    # (each run costs several seconds under emulation).
    if [[ $n == 1 || $n == 6 ]]; then
      fleet_node "$n" -d "fleet$n" -x "$x" "${FLEET_ARGS[@]}" --format=prometheus -o "$d/node$n.prom" \
        2>>"$d/node$n.err" || true
    fi
  done
  fleet_down
  fleet_expect "$d"
}

# npd_budget: node-problem-detector kills its plugin after 5 s (the timeout
# of ci/container/kubernetes/npd/rdmacheck-npd.json). Its run, on the
# guest's own pair (rxe0, rxe1: the six fleet devices would make every
# gather read eight devices' GID tables), three times: the median must fit.
# Then where the time goes (TIME lines only).
npd_budget() {
  local t0 what
  local -a secs=()
  # shellcheck disable=SC2054  # the commas are --skip's list
  local -a npd=(-d rxe0 --format=npd --skip=hung-qp,sge-page-crossing,cq-overrun,memory-budget,bandwidth,latency --window=1 --check-deadline=3)
  for _ in 1 2 3; do
    t0=$(uptime_s)
    timeout 60 "$RDMACHECK" "${npd[@]}" >/dev/null 2>&1
    secs+=("$(seconds_since "$t0")")
  done
  local med
  med=$(printf '%s\n' "${secs[@]}" | median)
  echo "TIME: npd run on rxe0 ${secs[*]} s (median $med s)"
  if awk -v s="$med" 'BEGIN { exit !(s < 5) }'; then
    record PASS "fleet: the npd run fits node-problem-detector's 5 s timeout" "median ${med}s of ${secs[*]}"
  else
    record FAIL "fleet: the npd run fits node-problem-detector's 5 s timeout" "median ${med}s of ${secs[*]}"
  fi
  local -a runs=(
    "version|--version"
    "gather+device-present|-d rxe0 --checks device-present --format=npd"
    "gather+firewall-4791|-d rxe0 --checks firewall-4791 --format=npd"
    "gather+link-health-window-1s|-d rxe0 --checks link-health --window=1 --format=npd"
  )
  for what in "${runs[@]}"; do
    t0=$(uptime_s)
    # shellcheck disable=SC2086
    timeout 60 "$RDMACHECK" ${what#*|} >/dev/null 2>&1
    echo "TIME: npd breakdown ${what%%|*} $(seconds_since "$t0")s"
  done
}

# fleet_expect DIR: what the nodes' outputs and `rdmacheck fleet` over them
# must say: exactly the odd nodes, each with what is odd about it.
fleet_expect() {
  local d=$1 n rc line
  for n in "${FLEET_NODES[@]}"; do
    rc=$(cat "$d/node$n.npd.rc" 2>/dev/null)
    line=$(head -1 "$d/node$n.npd" 2>/dev/null)
    if [[ $(wc -l <"$d/node$n.npd") == 1 && ${#line} -le 80 && -n "$line" ]]; then
      record PASS "fleet: node$n npd prints one line of at most 80 characters" "$line"
    else
      record FAIL "fleet: node$n npd prints one line of at most 80 characters" "$(head -c 300 "$d/node$n.npd")"
    fi
    local want=1
    [[ $n == 1 || $n == 2 ]] && want=0
    if [[ "$rc" == "$want" ]]; then
      record PASS "fleet: node$n npd exits $want" "$line"
    else
      record FAIL "fleet: node$n npd exits $want" "exit $rc: $line"
    fi
  done
  check_npd_names() { grep -q "$2" "$d/node$1.npd" && record PASS "fleet: node$1 npd names $2" || record FAIL "fleet: node$1 npd names $2" "$(cat "$d/node$1.npd")"; }
  check_npd_names 3 mtu-chain
  check_npd_names 4 firewall-4791
  check_npd_names 5 memlock
  check_npd_names 6 gid-table
  fleet_expect_summary "$d"
}

# fleet_expect_summary DIR: `rdmacheck fleet` over the six bundles names
# node1 and node2 healthy and node3..node6 odd, each for its own fault.
fleet_expect_summary() {
  local d=$1 rc=0 got want n sub
  timeout 60 "$RDMACHECK" fleet "$d"/node*.bundle.json >"$d/fleet.txt" 2>&1
  timeout 60 "$RDMACHECK" fleet "$d"/node*.bundle.json --format=html -o "$d/fleet.html" 2>>"$d/fleet.txt"
  timeout 60 "$RDMACHECK" fleet "$d"/node*.bundle.json --format=json >"$d/fleet.json" 2>>"$d/fleet.txt" || rc=$?
  sed 's/^/  fleet: /' "$d/fleet.txt" | head -60
  if [[ $rc == 1 ]]; then record PASS "fleet: rdmacheck fleet exits 1 (odd nodes)"
  else record FAIL "fleet: rdmacheck fleet exits 1 (odd nodes)" "exit $rc"; fi
  got=$(jq -r '.healthy | join(" ")' "$d/fleet.json" 2>/dev/null)
  if [[ "$got" == "node1 node2" ]]; then record PASS "fleet: healthy nodes are node1 node2"
  else record FAIL "fleet: healthy nodes are node1 node2" "got '$got'"; fi
  got=$(jq -r '[.groups[].nodes[]] | sort | join(" ")' "$d/fleet.json" 2>/dev/null)
  if [[ "$got" == "node3 node4 node5 node6" ]]; then record PASS "fleet: odd nodes are exactly node3..node6"
  else record FAIL "fleet: odd nodes are exactly node3..node6" "got '$got'"; fi
  for want in "3:mtu-chain" "3:netdev MTU is not 9000" "4:firewall-4791" "5:memlock" "5:RLIMIT_MEMLOCK" "6:gid-table"; do
    n=${want%%:*} sub=${want#*:}
    got=$(jq -r --arg n "node$n" '[.groups[] | select(.nodes | index($n)) | .problems[]] | join("; ")' "$d/fleet.json" 2>/dev/null)
    if [[ "$got" == *"$sub"* ]]; then record PASS "fleet: node$n is odd for $sub" "$got"
    else record FAIL "fleet: node$n is odd for $sub" "got '$got'"; fi
  done
  if grep -q "node5" "$d/fleet.html" 2>/dev/null && grep -q "<svg" "$d/fleet.html"; then
    record PASS "fleet: the HTML page names the odd nodes and draws its chart" "out/fleet/fleet.html"
  else
    record FAIL "fleet: the HTML page names the odd nodes and draws its chart" "$(head -c 200 "$d/fleet.html" 2>&1)"
  fi
}
