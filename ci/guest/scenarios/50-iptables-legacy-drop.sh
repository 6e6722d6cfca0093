# A legacy iptables rule (xtables-legacy, the ip_tables module) dropping UDP
# 4791. Until a legacy table exists /proc/net/ip_tables_names is absent and
# rdmacheck does not run iptables-legacy-save (nothing to list); once the
# rule loads ip_tables and iptable_filter it lists "filter", the tool runs
# and firewall-4791 names the legacy rule. undo unloads the legacy modules
# again, so later steps (the bench) see the guest as it was.
name="iptables-legacy drops UDP 4791 (legacy tables listed only when they exist)"
mtu=9000
fault() {
  echo "  /proc/net/ip_tables_names before: $(cat /proc/net/ip_tables_names 2>&1)"
  # No legacy table yet: the capture records the legacy ruleset empty
  # without running the tool, and says so.
  local f=$OUT/scenarios/$scn.before.profile
  timeout 60 "$RDMACHECK" capture -d rxe0 >"$f" 2>/dev/null
  if grep -q 'iptables-legacy-save was not run' "$f" && grep -q '^\[ruleset iptables-legacy\]' "$f"; then
    record PASS "$scn: with no legacy table, iptables-legacy-save is not run and its ruleset is recorded empty"
  else
    record FAIL "$scn: with no legacy table, iptables-legacy-save is not run and its ruleset is recorded empty" \
      "$(grep -E 'legacy' "$f" | head -3 | tr '\n' ' ')"
  fi
  iptables-legacy -A INPUT -p udp --dport 4791 -j DROP
}
undo() {
  iptables-legacy -F INPUT
  if grep -qx filter /proc/net/ip_tables_names; then
    record PASS "$scn: the kernel lists the legacy filter table once a rule is in it"
  else
    record FAIL "$scn: the kernel lists the legacy filter table once a rule is in it" "$(cat /proc/net/ip_tables_names 2>&1)"
  fi
  modprobe -r iptable_filter ip_tables 2>/dev/null
  echo "  /proc/net/ip_tables_names after undo: $(cat /proc/net/ip_tables_names 2>&1)"
}
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks firewall-4791)
expect_exit 1
expect firewall-4791 FAIL 'dropped by iptables-legacy table ip filter chain INPUT rule 1'
expect firewall-4791 FAIL 'iptables-legacy -I INPUT -i va -p udp --dport 4791 -j ACCEPT'
