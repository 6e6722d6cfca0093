# `capture --window` records the two samples and the port events, so
# link-health on the profile says what it said live: the flap of 46, taken
# as a capture (kept in the guest's output as captures/rxe_flap.profile) and
# judged from the file. A capture reads the firewall rulesets before the
# window opens (nft and four iptables-save, about 3 s under emulation), so
# the flap starts 5 s in.
name="capture --window during a flap, then link-health on the profile: FAIL, link flapped"
mtu=9000
fault() {
  ( sleep 5; ip link set va down; sleep 0.5; ip link set va up ) &
  local flap=$!
  timeout 60 "$RDMACHECK" capture -d rxe0 --window 8 -o "$OUT/captures/rxe_flap.profile" || return 1
  wait "$flap" 2>/dev/null
}
undo() { ip link set va up; }
args=(--profile "$OUT/captures/rxe_flap.profile" -d rxe0 --checks link-health,pcie)
expect_exit 1
expect link-health FAIL 'link flapped: PORT_ERR at +'
expect pcie SKIP 'rxe0 is a rxe device'
