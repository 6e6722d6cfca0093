# memory-budget on the healthy pair, live: beside the rxe model's
# per-QP bytes it creates the plan's 2 QPs of 255/4/255/1 on rxe0 and shows
# the process's VmRSS/VmPin/VmLck growth per QP, its uverbs mappings (rxe
# maps its kernel-side queues into the process; 6.1 does not show them in
# VmRSS at once) and the kernel's VmallocUsed growth: measured 152 KiB per
# QP (135168 + 20480 B of queues) against the model's 156 KiB (the same
# queues plus a one-page context estimate).
source "$SHARE/scenarios/probe-lib.bash"
name="memory-budget measured beside the model on rxe0"
mtu=9000
fault() { res_begin; }
undo() { res_end; }
args=(--plan "$PLANS/rxe_healthy.plan" -d rxe0 --checks memory-budget)
expect_exit 0
expect memory-budget PASS 'QP class probe measured'
expect memory-budget PASS 'per QP over 2 QPs'
expect memory-budget PASS 'model 156 KiB per QP'
expect memory-budget PASS 'VmallocUsed +152 KiB per QP'
expect memory-budget PASS 'mapped from uverbs +'
