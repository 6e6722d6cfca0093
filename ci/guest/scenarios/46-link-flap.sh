# The netdev under rxe0 goes down and up inside link-health's window, as a
# flapping cable or a script toggling the interface would: rxe raises
# IBV_EVENT_PORT_ERR then PORT_ACTIVE on rxe0 (drivers/infiniband/sw/rxe/
# rxe_net.c, rxe_port_down / rxe_port_up), and its link_downed counter moves.
# The flap starts 2.5 s after rdmacheck does, well after the window opens
# (gathering takes about 1 s under emulation), and is over 2 s before it ends.
name="ip link set va down; up inside the window: link-health FAIL, link flapped, with the times"
mtu=9000
fault() {
  ( sleep 2.5; ip link set va down; sleep 0.5; ip link set va up ) &
  FLAP=$!
}
undo() {
  wait "$FLAP" 2>/dev/null
  ip link set va up
}
args=(-d rxe0 --checks link-health --window 5)
expect_exit 1
expect link-health FAIL 'link flapped: PORT_ERR at +'
expect link-health FAIL 'PORT_ACTIVE at +'
expect link-health FAIL 'link_downed'
expect link-health FAIL 'ip monitor link dev va'
