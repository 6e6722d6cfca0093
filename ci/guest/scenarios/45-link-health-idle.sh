# The healthy pair, idle: over a 2 s window rxe0's counters do not move and
# no port event arrives; the hardware checks say why they do not apply to a
# soft device.
name="idle healthy pair: link-health PASS over its window, pcie and port-rate SKIP for soft devices"
mtu=9000
args=(-d rxe0 --checks link-health,pcie,port-rate,firmware --window 2)
expect_exit 0
expect link-health PASS 'error counters'
expect link-health PASS 'over 2.0 s'
expect pcie SKIP 'rxe0 is a rxe device'
expect port-rate SKIP 'nominal'
