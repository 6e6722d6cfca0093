# faults.bash: rdmacheck stopped the ways an operator or a scheduler stops
# it, and its host never written (sourced by guest-main.sh).
#
# Step `faults` (run_faults), 100 signal trials and 13 others:
#   - SIGINT to the process group (Ctrl-C in a terminal) and SIGTERM to the
#     process alone (kill, docker stop, a pod's termination) at a random
#     moment of a live checklist run, a bench run and a peer run: exit 130
#     or 143 (or the run's own 0/1 when it ended first), nothing of the
#     session left running, no PD/CQ/QP/MR left on the devices;
#   - the far end of a peer run killed with SIGKILL mid-probe: this end ends
#     within its deadline, and its report names the peer it lost;
#   - `rdma link delete` of the far device in the middle of a run: a report
#     with verdicts, no crash; the device is added back after.
# Each trial is one line of out/faults.tsv; one result line per kind.
#
# The audit (audit_*): every scenario's rdmacheck run (run_scenario) with
# open_audit.so preloaded, which records opens for writing, file-system
# changes, programs started and netlink messages; the audit step's runs of
# each kind (run_audit) under `strace -f --seccomp-bpf` as well, which sees
# the raw system calls other than open. audit_check reads whichever records
# a run has. audit_selftest proves both fail on a write to /proc/sys and on
# a RTM_NEWLINK, and pass a listing.

# --- the audit ------------------------------------------------------------------

# The calls strace stops at: those that remove, rename or create anything
# other than by open, mount, start a program, or talk netlink (the only way
# to change links, addresses, rdma links and nftables). Opens for writing
# are recorded by the preload open_audit.so (ci/guest/audit/): a run makes
# thousands of opens, and a ptrace stop at each doubled its time here.
AUDIT_CALLS=truncate,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,symlink,symlinkat,link,linkat,chmod,fchmodat,chown,fchownat,lchown,mknod,mknodat,mount,umount2,execve,execveat,sendto,sendmsg
AUDIT_ENABLED=0
AUDIT_PRELOAD=$SHARE/bin/open_audit.so
command -v strace >/dev/null && [[ -f "$AUDIT_PRELOAD" ]] && AUDIT_ENABLED=1
AUDIT_DIR=/tmp/rdmacheck-audit  # traces; a failing one is copied to out/audit
if ((AUDIT_ENABLED)); then
  mkdir -p "$AUDIT_DIR" "$OUT/audit"
  # strace -yy learns a netlink socket's protocol (ROUTE, NETFILTER, RDMA)
  # from sock_diag, which needs netlink_diag; without it a RTM_NEWLINK is
  # printed as a bare number on a socket of unknown protocol.
  modprobe netlink_diag 2>/dev/null || echo "audit: modprobe netlink_diag failed: netlink protocols unnamed"
fi

# audit_wrap FILE: the command prefix that traces into FILE, and records
# opens for writing into FILE.opens.
audit_wrap() {
  printf '%s\n' strace -f --seccomp-bpf -qq -yy -s 200 -X abbrev -o "$1" -e "trace=$AUDIT_CALLS" -e signal=none \
    -E "LD_PRELOAD=$AUDIT_PRELOAD" -E "RDMACHECK_OPEN_AUDIT=$1.opens"
}

# audit_check TRACE ALLOWED_OUT: the violations in TRACE, one per line, as
# "what: the strace line". Allowed: writes under /tmp, to /dev/null, /dev/pts,
# the /dev/infiniband nodes (verbs commands are writes to uverbs), to the
# file named ALLOWED_OUT (-o), to pipes and sockets the process made (fd
# writes other than to files opened here are not paths); programs that only
# list: nft (-j) list, *tables-*save, tc/ip/rdma show, ethtool; netlink
# requests that only read (GET, dumps).
audit_check() {
  local trace=$1 allowed=${2:-/nonexistent} f
  local -a files=()
  for f in "$trace" "$trace.opens"; do [[ -e "$f" ]] && files+=("$f"); done
  ((${#files[@]})) || { echo "no record: neither $trace nor $trace.opens"; return 1; }
  awk -v allowed="$allowed" '
    function bad(what) { print what ": " $0; n++ }
    function hex(h,   i, v) { v = 0; h = tolower(h); for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
    BEGIN {
      # NFT_MSG_GET{TABLE,CHAIN,RULE,SET,SETELEM,GEN,OBJ,FLOWTABLE}: reads.
      split("1 4 7 10 13 16 19 23", g, " "); for (i in g) nft_get[g[i]] = 1
      # RDMA_NLDEV_CMD_{SET,NEWLINK,DELLINK,SYS_SET,STAT_SET,STAT_DEL}: changes.
      split("2 3 4 7 16 18", c, " "); for (i in c) rdma_set[c[i]] = 1
    }
    function allowed_path(p) {
      return p ~ /^\/tmp\// || p == "/dev/null" || p ~ /^\/dev\/pts\// || p == "/dev/tty" ||
             p ~ /^\/dev\/infiniband\// || p == allowed || index(p, allowed ".tmp.") == 1
    }
    FILENAME !~ /\.opens$/ { seen_trace = 1 }
    # The other records of open_audit.so: "PID fs CALL PATH", "PID spawn PROG
    # ARG...", "PID netlink PROTO TYPE FLAGS", "PID start EXE".
    FILENAME ~ /\.opens$/ && $2 == "start" { starts++; next }
    FILENAME ~ /\.opens$/ && $2 == "fs" {
      path = $0; sub(/^[0-9]+ fs [a-z]+ /, "", path)
      if (!allowed_path(path)) bad("changed the file system")
      next
    }
    FILENAME ~ /\.opens$/ && $2 == "spawn" {
      cmd = $0; sub(/^[0-9]+ spawn /, "", cmd)
      if (!listing(cmd)) bad("ran a program that is not a listing")
      next
    }
    FILENAME ~ /\.opens$/ && $2 == "netlink" {
      proto = $3 == 0 ? "ROUTE" : $3 == 12 ? "NETFILTER" : $3 == 20 ? "RDMA" : $3
      why = nl_change(proto, $4 + 0)
      if (why != "") bad(why)
      next
    }
    # open_audit.so: "123 openat 0x241 /sys/..." or "123 fopen w /path".
    FILENAME ~ /\.opens$/ {
      path = $0; sub(/^[0-9]+ [a-z]+ [^ ]+ /, "", path)
      if (!allowed_path(path)) bad("opened for writing")
      next
    }
    / (truncate|rename|renameat|renameat2|unlink|unlinkat|mkdir|mkdirat|rmdir|symlink|symlinkat|link|linkat|chmod|fchmodat|chown|fchownat|lchown|mknod|mknodat)\(/ {
      if (match($0, /"[^"]*"/) && allowed_path(substr($0, RSTART + 1, RLENGTH - 2))) next
      bad("changed the file system"); next
    }
    / (mount|umount2)\(/ { bad("mounted"); next }
    # A program started ("prog arg ..."): rdmacheck itself, or a listing.
    function listing(cmd,   prog) {
      prog = cmd; sub(/ .*/, "", prog)
      sub(/^.*\//, "", prog); sub(/^[^ ]*\//, "", cmd)
      if (prog == "rdmacheck") return 1
      if (cmd ~ /^nft (-j )?list ruleset$/) return 1
      if (prog ~ /^(ip6?tables-(nft|legacy)-save)$/ && cmd !~ / -[^c]/) return 1
      if (cmd ~ /^tc (-j )?(-s )?(-d )?qdisc show/) return 1
      if (cmd ~ /^ip (-j )?(-d )?(-s )?(link|addr|address|route|rule|neigh) (show|list)/) return 1
      if (cmd ~ /^rdma (-j )?(-d )?(-p )?(dev|link|res|system|statistic) show/) return 1
      if (cmd ~ /^ethtool (-i|-m|-S|--json -S|--module-info)? ?[A-Za-z0-9._-]+$/) return 1
      return 0
    }
    # A netlink message by protocol number and type, as numbers (the
    # preload) or as strace decodes them (0x.. when it could not name them).
    function nl_change(proto, ty) {
      if (proto == "ROUTE" && ty >= 16 && ty % 4 != 2) return "netlink change (rtnetlink type " ty ")"
      if (proto == "NETFILTER" && (ty == 16 || (int(ty / 256) == 10 && !((ty % 256) in nft_get)))) return "nftables change (type " ty ")"
      if (proto == "RDMA" && int(ty / 1024) == 5 && ((ty % 1024) in rdma_set)) return "rdma netlink change (op " ty % 1024 ")"
      return ""
    }
    / (execve|execveat)\(/ {
      if ($0 ~ /= -1 ENOENT/) next   # execvp trying PATH entries
      cmd = $0; sub(/^[^[]*\[/, "", cmd); sub(/\].*$/, "", cmd); gsub(/"/, "", cmd); gsub(/, /, " ", cmd)
      if (!listing(cmd)) bad("ran a program that is not a listing")
      next
    }
    # -yy names the socket: "sendto(3<NETLINK:[ROUTE:210]>, [{nlmsg_len=..,
    # nlmsg_type=RTM_NEWLINK or 0x10 /* NLMSG_??? */, ...". Numbers as in
    # linux/rtnetlink.h (RTM_BASE 16, then NEW/DEL/GET/SET per object),
    # linux/netfilter/nf_tables.h (subsystem 10 << 8 | NFT_MSG_*) and
    # rdma/rdma_netlink.h (RDMA_NL_NLDEV 5 << 10 | RDMA_NLDEV_CMD_*).
    / (sendto|sendmsg)\(/ {
      if ($0 !~ /nlmsg_type=/) next
      if ($0 ~ /NLM_F_(CREATE|REPLACE|EXCL|APPEND)/) { bad("netlink request that creates"); next }
      proto = ""
      if (match($0, /<NETLINK:\[[A-Z_0-9]+/)) proto = substr($0, RSTART + 10, RLENGTH - 10)
      rest = $0
      while (match(rest, /nlmsg_type=[^,]+/)) {
        t = substr(rest, RSTART + 11, RLENGTH - 11)
        sub(/ .*/, "", t)  # "0x10 /* NLMSG_??? */" -> "0x10"
        rest = substr(rest, RSTART + RLENGTH)
        if (t ~ /^RTM_(NEW|DEL|SET)/) { bad("netlink change (" t ")"); next }
        if (t ~ /RDMA_NLDEV_CMD_(SET|NEWLINK|DELLINK|SYS_SET|STAT_SET|STAT_DEL|NEWDEV|DELDEV)([^A-Z_]|$)/) { bad("rdma netlink change (" t ")"); next }
        if (t ~ /NFT_MSG_(NEW|DEL|DESTROY|GETOBJ_RESET|GETRULE_RESET|GETSETELEM_RESET)|NFNL_MSG_BATCH_BEGIN/) { bad("nftables change (" t ")"); next }
        if (t !~ /^0x/) continue
        why = nl_change(proto, hex(substr(t, 3)))
        if (why != "") { bad(why); next }
      }
      next
    }
    # With only the record of the preload, it must show it was loaded.
    END {
      if (!seen_trace && !starts) { print "no record: the preload was not loaded (no start line)"; n++ }
      exit (n > 0)
    }
  ' "${files[@]}"
}

# audit_summary TRACE: what the records hold, by kind.
audit_summary() {
  cat "$1" "$1.opens" 2>/dev/null | awk -v traced="$([[ -e "$1" ]] && echo 1 || echo 0)" '
    $2 == "start" { p++; next } $2 == "spawn" { e++; next } $2 == "netlink" { m++; next }
    $2 == "fs" { f++; next } $2 ~ /^(open|openat|creat|fopen|freopen)$/ { o++; next }
    / (execve|execveat)\(/ && !/ENOENT/ { e++ } { n++ }
    END { printf "%s%d programs under the preload, %d started, %d opens for writing, %d file-system changes, %d netlink messages",
                 traced ? n " calls traced by strace, " : "", p, e, o, f, m }'
}

# audit_selftest: the audit must catch what it is for. Each bad command
# rewrites a value with what it already holds, so the guest is unchanged.
audit_selftest() {
  ((AUDIT_ENABLED)) || { record FAIL "audit: strace in the guest" "strace not found"; return; }
  local d=$AUDIT_DIR v mtu
  mkdir -p "$d" "$OUT/audit"
  v=$(cat /proc/sys/net/ipv4/conf/va/rp_filter 2>/dev/null || echo 0)
  mtu=$(cat /sys/class/net/va/mtu)
  local -a wrap
  mapfile -t wrap < <(audit_wrap "$d/selftest-sysctl.trace")
  "${wrap[@]}" sh -c "echo $v > /proc/sys/net/ipv4/conf/va/rp_filter" 2>/dev/null
  mapfile -t wrap < <(audit_wrap "$d/selftest-link.trace")
  "${wrap[@]}" ip link set va mtu "$mtu"
  mapfile -t wrap < <(audit_wrap "$d/selftest-list.trace")
  "${wrap[@]}" nft -j list ruleset >/dev/null
  # What the wrapper costs calls it does not trace (seccomp-bpf should let
  # them run without a stop): 20,000 one-byte writes, bare and wrapped.
  local c0 c1 c2 warn
  c0=${EPOCHREALTIME/./}
  dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
  c1=${EPOCHREALTIME/./}
  mapfile -t wrap < <(audit_wrap "$d/selftest-dd.trace")
  "${wrap[@]}" dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
  c2=${EPOCHREALTIME/./}
  warn=$(strace -f --seccomp-bpf -o /dev/null -e trace=execve true 2>&1 | head -c 200)
  echo "TIME: audit: 20000 untraced write(2)s: $(((c1 - c0) / 1000)) ms bare, $(((c2 - c1) / 1000)) ms under the audit's strace${warn:+ (strace says: $warn)}"
  # What the preload costs a whole run (it audits every scenario's): the
  # live checklist without the traffic probes (every sysfs read an open),
  # bare and preloaded, alternating; the medians.
  local -a bare=() pre=() chk=("$RDMACHECK" --plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --skip hung-qp,sge-page-crossing,cq-overrun,memory-budget,bandwidth,latency)
  local t i
  for i in 1 2 3; do
    t=${EPOCHREALTIME/./}; "${chk[@]}" >/dev/null 2>&1; bare+=($(((${EPOCHREALTIME/./} - t) / 1000)))
    t=${EPOCHREALTIME/./}; env LD_PRELOAD="$AUDIT_PRELOAD" RDMACHECK_OPEN_AUDIT="$d/cost.opens" "${chk[@]}" >/dev/null 2>&1; pre+=($(((${EPOCHREALTIME/./} - t) / 1000)))
  done
  echo "TIME: audit: the static checklist, median of 3: $(printf '%s\n' "${bare[@]}" | sort -n | sed -n 2p) ms bare, $(printf '%s\n' "${pre[@]}" | sort -n | sed -n 2p) ms with the preload (bare ${bare[*]}; preloaded ${pre[*]})"
  # Each bad command with strace and the preload, then with the preload's
  # record alone (what audits every scenario).
  local k
  for k in sysctl link list; do cp "$d/selftest-$k.trace.opens" "$d/selftest-$k-preload.trace.opens" 2>/dev/null; done
  selftest_expect "audit: a write to /proc/sys is a violation" "$d/selftest-sysctl.trace" '^opened for writing'
  selftest_expect "audit: ip link set is a violation (RTM_NEWLINK)" "$d/selftest-link.trace" 'netlink change'
  selftest_expect "audit: nft -j list ruleset is not a violation" "$d/selftest-list.trace"
  selftest_expect "audit: the preload alone catches a write to /proc/sys" "$d/selftest-sysctl-preload.trace" '^opened for writing'
  selftest_expect "audit: the preload alone catches ip link set (RTM_NEWLINK)" "$d/selftest-link-preload.trace" 'netlink change'
  selftest_expect "audit: the preload alone passes nft -j list ruleset" "$d/selftest-list-preload.trace"
}

# selftest_expect TITLE TRACE [PATTERN]: one result. With PATTERN the audit of
# TRACE must fail with a line matching it; without, it must pass. A failing
# self-test keeps its records in out/audit.
selftest_expect() {
  local title=$1 trace=$2 want=${3:-} out=$2.out
  if [[ -n "$want" ]]; then
    if audit_check "$trace" >"$out" || ! grep -q -- "$want" "$out"; then
      cp "$trace"* "$OUT/audit/" 2>/dev/null
      record FAIL "$title" "not caught: $(head -c 300 "$out")"
    else
      record PASS "$title" "$(grep -m1 -- "$want" "$out" | head -c 200)"
    fi
  elif audit_check "$trace" >"$out"; then
    record PASS "$title" "$(audit_summary "$trace")"
  else
    cp "$trace"* "$OUT/audit/" 2>/dev/null
    record FAIL "$title" "$(head -c 300 "$out")"
  fi
}

# audit_scenario SCN TRACE: one result for the scenario's rdmacheck run.
AUDIT_RUNS=0 AUDIT_BAD=0
audit_scenario() {
  local scn=$1 trace=$2 out allowed=""
  [[ -s "$trace" || -s "$trace.opens" ]] || { record FAIL "$scn: rdmacheck wrote nothing on the host (audit)" "no record"; return; }
  local i
  for ((i = 0; i < ${#args[@]}; i++)); do
    [[ "${args[i]}" == -o ]] && allowed=${args[i + 1]}
    [[ "${args[i]}" == --output=* ]] && allowed=${args[i]#--output=}
  done
  AUDIT_RUNS=$((AUDIT_RUNS + 1))
  if out=$(audit_check "$trace" "$allowed"); then
    record PASS "$scn: rdmacheck wrote nothing on the host (audit)" "$(audit_summary "$trace")"
    rm -f "$trace" "$trace.opens"
  else
    AUDIT_BAD=$((AUDIT_BAD + 1))
    record FAIL "$scn: rdmacheck wrote nothing on the host (audit)" "$(head -c 400 <<<"$out")"
    cp "$trace" "$trace.opens" "$OUT/audit/" 2>/dev/null
    rm -f "$trace" "$trace.opens"
  fi
}

# --- the fault trials -------------------------------------------------------------

# trial KIND SIGNAL DELAY CMD...: one run stopped by SIGNAL (INT to the
# group, TERM to the process, none) after DELAY s. Sets TRIAL_RC,
# TRIAL_ALIVE (processes of its session left after it exited) and
# TRIAL_LEAK (empty, or the counts before/after).
trial() {
  local kind=$1 sig=$2 delay=$3; shift 3
  local before=$FAULT_BASELINE pid i log=$OUT/faults/$kind.$TRIALS
  # bash starts a background command with SIGINT ignored (no job control),
  # and an ignored signal stays ignored across exec: env puts it back, as a
  # terminal's foreground job has it.
  setsid env --default-signal=INT "$@" >"$log.out" 2>"$log.err" &
  pid=$!
  sleep "$delay"
  case "$sig" in
    INT) kill -INT -- "-$pid" 2>/dev/null ;;
    TERM) kill -TERM "$pid" 2>/dev/null ;;
  esac
  TRIAL_RC=""
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null
    TRIAL_RC=timeout
  fi
  local rc=0
  wait "$pid" || rc=$?
  [[ -n "$TRIAL_RC" ]] || TRIAL_RC=$rc
  TRIAL_ALIVE=$(pgrep -s "$pid" -a 2>/dev/null | head -3 | tr '\n' ';')
  [[ -n "$TRIAL_ALIVE" ]] && kill -KILL -- "-$pid" 2>/dev/null
  TRIAL_LEAK=""
  res_settle "$before" || TRIAL_LEAK="before: $before; after: $RES_AFTER"
  TRIALS=$((TRIALS + 1))
}

# trial_ok SIG: whether the last trial ended as it should.
trial_ok() {
  local want=143
  [[ "$1" == INT ]] && want=130
  [[ -z "$TRIAL_ALIVE" && -z "$TRIAL_LEAK" ]] || return 1
  [[ "$TRIAL_RC" == "$want" || "$TRIAL_RC" == 0 || "$TRIAL_RC" == 1 ]]
}

# rand_delay MAX_MS: a delay in seconds, 0.02..MAX_MS/1000.
rand_delay() {
  local ms=$((20 + RANDOM % ($1 - 20)))
  printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

# fault_kind KIND N MAX_MS CMD...: N trials, alternating the signal. With
# FAULT_PRE set, it runs before each trial (outside the trial's session) and
# FAULT_POST after.
fault_kind() {
  local kind=$1 n=$2 max=$3; shift 3
  local k sig d ok=0 stopped=0 bad=() t0=$SECONDS
  # Every trial must leave the devices as the kind found them.
  FAULT_BASELINE=$(res_counts)
  for ((k = 0; k < n; k++)); do
    sig=INT
    ((k % 2)) && sig=TERM
    d=$(rand_delay "$max")
    # The far end's own objects count in the baseline.
    [[ -n "${FAULT_PRE:-}" ]] && $FAULT_PRE && FAULT_BASELINE=$(res_counts)
    trial "$kind" "$sig" "$d" "$@"
    [[ -n "${FAULT_POST:-}" ]] && $FAULT_POST
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$sig" "$d" "$TRIAL_RC" "${TRIAL_ALIVE:--}" "${TRIAL_LEAK:--}" \
      >>"$OUT/faults.tsv"
    if trial_ok "$sig"; then
      ok=$((ok + 1))
      [[ "$TRIAL_RC" == 130 || "$TRIAL_RC" == 143 ]] && stopped=$((stopped + 1))
    else
      bad+=("SIG$sig at ${d}s: exit $TRIAL_RC${TRIAL_ALIVE:+, left running: $TRIAL_ALIVE}${TRIAL_LEAK:+, $TRIAL_LEAK}")
    fi
  done
  local detail="$ok/$n ended clean ($stopped by the signal, $((ok - stopped)) finished first), $((SECONDS - t0))s"
  if ((${#bad[@]} == 0)); then
    record PASS "faults: $kind stopped by SIGINT/SIGTERM at random moments" "$detail"
  else
    record FAIL "faults: $kind stopped by SIGINT/SIGTERM at random moments" "$detail; ${bad[0]}"
  fi
}

# The far end killed mid-run: once serve has logged the client's hello,
# SIGKILL at a random moment up to 2 s later: while the far end holds the
# bandwidth run's QPs (its bench session comes first and lasts about 1.2 s),
# or during hung-qp or sge-page-crossing, which follow. serve flushes each
# session line as it is written, so the hello line shows while the session
# runs (measured: 10 of 10 kills landed mid-probe).
# This end must end within its deadline; a kill that landed before the far
# end logged "done" must give a report whose failing check names the lost
# peer, unless every probe had already completed and verified (a run that
# passes). No kill landing is an XFAIL.
fault_peer_kill() {
  local n=$1 k ok=0 bad=() t0=$SECONDS d rc log i
  NAMED_LOST=0
  local mid=0
  for ((k = 0; k < n; k++)); do
    log=$OUT/faults/peer-kill.$k
    fault_serve_start "$RDMACHECK" "$log.serve"
    local spid=$FAULT_SERVE
    local before
    before=$(res_counts)
    d=$(rand_delay 2000)
    timeout -k 5 40 "$RDMACHECK" --peer 198.18.0.2 -d rxe0 --checks hung-qp,sge-page-crossing,bandwidth \
      --format=json >"$log.json" 2>"$log.err" &
    local cpid=$!
    for ((i = 0; i < 200; i++)); do
      grep -q '^client .*: rdmacheck .*, device ' "$log.serve" && break
      sleep 0.05
    done
    sleep "$d"
    local killed=0 at
    kill -KILL "$spid" 2>/dev/null && killed=1
    # What the far end had logged last: where the kill landed.
    at=$(tail -1 "$log.serve" | sed -E 's/^client [^ ]+ //; s/[[:space:]]+/ /g' | cut -c1-40)
    local start=$SECONDS
    rc=0
    wait "$cpid" || rc=$?
    wait "$spid" 2>/dev/null
    # Mid-probe: serve was killed before it logged the session done.
    local landed=0
    ((killed)) && ! grep -q '^client .*: done' "$log.serve" && landed=1
    local took=$((SECONDS - start)) named=0 lost=0
    if ((rc <= 1)) && jq -e '[.checks[] | select(.verdict != "PASS") | tostring | test("198\\.18\\.0\\.2")] | any' \
      "$log.json" >/dev/null 2>&1; then
      named=1 lost=1
    elif ((rc == 0)) && jq -e '.checks | length > 0 and all(.verdict == "PASS")' "$log.json" >/dev/null 2>&1; then
      # Every probe completed and verified its data through the far end, so
      # the far end had done its part even if the kill beat its log line
      # (seen: killed after "probe 2 served", before "done").
      named=1 landed=0
    fi
    NAMED_LOST=$((NAMED_LOST + lost))
    mid=$((mid + landed))
    local leak=""
    res_settle "$before" || leak="left $RES_AFTER"
    printf 'peer-kill\tKILL far\t%s\t%s\t%s\t%s\n' "$d" "$rc" "killed=$killed mid-probe=$landed after '$at' took ${took}s named=$named" "${leak:--}" >>"$OUT/faults.tsv"
    if ((named)) && ((took <= 40)) && [[ -z "$leak" ]] && jq -e '.checks | length > 0' "$log.json" >/dev/null 2>&1; then
      ok=$((ok + 1))
    else
      bad+=("SIGKILL of the far end ${d}s after its hello (mid-probe: $landed): exit $rc after ${took}s, peer named: $named ${leak}")
    fi
  done
  local detail="$ok/$n ended within the deadline: $mid kills landed mid-probe and $NAMED_LOST of those FAILed naming 198.18.0.2, $((ok - NAMED_LOST)) passed (the far end had done its part), $((SECONDS - t0))s"
  if ((${#bad[@]} == 0 && mid > 0)); then record PASS "faults: the far end killed (SIGKILL) mid-probe" "$detail"
  elif ((${#bad[@]} == 0)); then record XFAIL "faults: the far end killed (SIGKILL) mid-probe" "$detail; no kill landed mid-probe"
  else record FAIL "faults: the far end killed (SIGKILL) mid-probe" "$detail; ${bad[0]}"; fi
}

# The far device deleted mid-run (`rdma link delete rxe1`): a report, no crash.
fault_link_delete() {
  local n=$1 k ok=0 bad=() t0=$SECONDS d rc log
  for ((k = 0; k < n; k++)); do
    log=$OUT/faults/link-delete.$k
    topo_ensure 9000 0
    d=$(rand_delay 2500)
    timeout -k 5 60 "$RDMACHECK" -d rxe0 --checks hung-qp,sge-page-crossing,bandwidth --plan "$FIXTURES/plans/rxe_guest.plan" \
      --format=json >"$log.json" 2>"$log.err" &
    local pid=$!
    sleep "$d"
    rdma link delete rxe1 2>/dev/null
    rc=0
    wait "$pid" || rc=$?
    printf 'link-delete\trdma link delete rxe1\t%s\t%s\t-\t-\n' "$d" "$rc" >>"$OUT/faults.tsv"
    if ((rc < 128)) && jq -e '.checks | length > 0' "$log.json" >/dev/null 2>&1; then
      ok=$((ok + 1))
    else
      bad+=("rdma link delete at ${d}s: exit $rc: $(head -c 160 "$log.err")")
    fi
    topo_ensure 9000 1
  done
  local detail="$ok/$n ended with a report, $((SECONDS - t0))s"
  if ((${#bad[@]} == 0)); then record PASS "faults: rdma link delete of the far device mid-run" "$detail"
  else record FAIL "faults: rdma link delete of the far device mid-run" "$detail; ${bad[0]}"; fi
}

# fault_serve_start [BIN [LOG [SECONDS]]]: `serve --once` on rxe1, its pid in
# FAULT_SERVE; returns once it listens (30 s at most). Not under timeout: a
# signal sent to FAULT_SERVE must reach serve itself, which bounds its own
# wait and client (SECONDS each, default 30).
fault_serve_start() {
  local bin=${1:-$RDMACHECK} log=${2:-$OUT/faults/serve.log} secs=${3:-30} i
  "$bin" serve --once -d rxe1 --bind 198.18.0.2 --wait "$secs" --client-deadline "$secs" >"$log" 2>&1 &
  FAULT_SERVE=$!
  for ((i = 0; i < 300; i++)); do
    grep -q '^rdmacheck serve: rxe1 on' "$log" && return 0
    sleep 0.1
  done
}
fault_serve_end() {
  kill -TERM "$FAULT_SERVE" 2>/dev/null
  wait "$FAULT_SERVE" 2>/dev/null
}

# Step `audit`: the self-test, then runs covering each kind of work rdmacheck
# does (the live checklist with every probe and its report to -o, bench,
# watch, the EINVAL bisector, a peer run), each under strace with the open
# preload; one result per run.
run_audit() {
  ((AUDIT_ENABLED)) || { record FAIL "audit: strace and open_audit.so in the guest" "missing"; return; }
  mkdir -p "$OUT/audit" "$AUDIT_DIR" "$OUT/faults"
  topo_ensure 9000 1
  audit_selftest
  local plan=$FIXTURES/plans/rxe_guest.plan
  audit_one() { # audit_one NAME CMD...
    local name=$1 trace=$AUDIT_DIR/$1.trace
    shift
    local -a w
    mapfile -t w < <(audit_wrap "$trace")
    args=("$@")
    timeout -k 5 120 "${w[@]}" "$@" >"$OUT/audit/$name.out" 2>"$OUT/audit/$name.err"
    audit_scenario "audit $name" "$trace"
  }
  # The checklist's report goes to a file outside /tmp: -o's own path is the
  # one write allowed there.
  audit_one checklist "$RDMACHECK" --plan "$plan" -d rxe0 --format=json -o /root/rdmacheck-report.json
  rm -f /root/rdmacheck-report.json
  audit_one bench "$RDMACHECK" bench -d rxe0 --peer-dev rxe1 -D 1
  audit_one watch "$RDMACHECK" watch --count 2 --interval 1
  audit_one diag "$RDMACHECK" diag create-qp -d rxe0 --plan "$FIXTURES/plans/over_sge_limit.plan"
  fault_serve_start
  audit_one peer "$RDMACHECK" --peer 198.18.0.2 -d rxe0 --checks hung-qp,sge-page-crossing
  fault_serve_end
  echo "audit: $AUDIT_RUNS runs traced, $AUDIT_BAD with a write to the host"
}

run_faults() {
  [[ -x "$RDMACHECK" ]] || return 0
  mkdir -p "$OUT/faults"
  printf 'kind\tsignal\tdelay_s\texit\tleft running\tleak\n' >"$OUT/faults.tsv"
  TRIALS=0
  topo_ensure 9000 1
  local plan=$FIXTURES/plans/rxe_guest.plan
  # Without `timeout`: trial bounds each run itself (30 s, then SIGKILL),
  # and the signal goes to rdmacheck, not to a wrapper.
  # The live checklist: gather (nft, iptables-save, tc as children), then
  # the probes.
  fault_kind checklist 50 2000 "$RDMACHECK" --plan "$plan" -d rxe0
  fault_kind bench 30 1500 "$RDMACHECK" bench -d rxe0 --peer-dev rxe1 -D 2
  # A peer run: serve on rxe1 for each (its own session), ended after it.
  FAULT_PRE=fault_serve_start FAULT_POST=fault_serve_end \
    fault_kind peer 20 2000 "$RDMACHECK" --peer 198.18.0.2 -d rxe0 --checks hung-qp,sge-page-crossing
  fault_peer_kill 10
  fault_link_delete 5
  topo_ensure 9000 1
  echo "faults: $TRIALS signal trials, 10 far-end kills, 5 link deletes (out/faults.tsv)"
}

# --- ASan and UBSan on the real device -----------------------------------------
# Step `asan` (run_asan): rdmacheck built with --config=asan (run.sh copies
# it as bin/rdmacheck-asan) runs the live checklist with every probe, bench,
# a peer run with both ends under ASan, watch, and a Ctrl-C mid-probe. Any
# sanitizer report fails the step. libibverbs and its provider (librxe,
# dlopen'ed by libibverbs) are not instrumented; ASan intercepts malloc for
# them too, so their use of our buffers is checked at the calls we make.
run_asan() {
  local bin=$SHARE/bin/rdmacheck-asan
  if [[ ! -x "$bin" ]]; then
    record SKIP "asan: rdmacheck under ASan on the real pair" "no bin/rdmacheck-asan (run.sh built none)"
    return 0
  fi
  local d=$OUT/asan plan=$FIXTURES/plans/rxe_guest.plan
  mkdir -p "$d"
  topo_ensure 9000 1
  export ASAN_OPTIONS="detect_leaks=1:log_path=$d/report:halt_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$d/report"
  asan_run() { # asan_run NAME WANT_RC CMD...
    local name=$1 want=$2 rc=0 before after
    shift 2
    before=$(res_counts)
    timeout -k 5 120 "$@" >"$d/$name.out" 2>"$d/$name.err" || rc=$?
    after=$(res_counts)
    local reports
    reports=$(ls "$d"/report.* 2>/dev/null | head -3)
    if [[ -n "$reports" ]]; then
      record FAIL "asan: $name" "$(grep -m3 -h 'ERROR\|runtime error\|SUMMARY' $reports | head -c 400)"
      mkdir -p "$d/$name.reports" && mv "$d"/report.* "$d/$name.reports/"
    elif [[ ! " $want " == *" $rc "* ]]; then
      record FAIL "asan: $name" "exit $rc (want $want): $(head -c 200 "$d/$name.err")"
    else
      record PASS "asan: $name" "exit $rc, no sanitizer report"
    fi
  }
  asan_run checklist "0 1" "$bin" --plan "$plan" -d rxe0 --format=json
  asan_run bench-write "0" "$bin" bench -d rxe0 --peer-dev rxe1 -D 2
  asan_run bench-lat "0" "$bin" bench -d rxe0 --peer-dev rxe1 --lat -n 500
  asan_run watch "0 1" "$bin" watch --count 2 --interval 1
  fault_serve_start "$bin" "$d/serve.out" 60
  asan_run peer "0 1" "$bin" --peer 198.18.0.2 -d rxe0 --checks hung-qp,sge-page-crossing,bandwidth
  wait "$FAULT_SERVE"
  asan_run serve-side "0 1" true
  # Ctrl-C in the middle of the hung-qp probe: released, then 130.
  ( sleep 1.5; pkill -INT -f 'rdmacheck-asan -d rxe0 --checks hung-qp' ) &
  asan_run sigint-mid-probe "130" "$bin" -d rxe0 --checks hung-qp --plan "$plan"
  unset ASAN_OPTIONS UBSAN_OPTIONS
}
