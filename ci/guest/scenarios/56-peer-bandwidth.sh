# Peer mode and the performance checks: `rdmacheck serve --once` on rxe1
# (198.18.0.2) holds the far end's QPs, and the checklist on rxe0 measures
# bandwidth and latency across the link (the far end's `rdmacheck serve`
# keeps its QPs and region; this end posts every WR), under
# rxe_guest_perf.plan. Both PASS, naming the far host's device.
source "$SHARE/scenarios/probe-lib.bash"
source "$SHARE/scenarios/peer-lib.bash"
name="peer mode: bandwidth and latency rxe0 -> rxe1@198.18.0.2 PASS"
mtu=9000
fault() { res_begin; serve_start; }
undo() { serve_end 0 'bench session 2 served'; res_end; }
args=(--peer 198.18.0.2 -d rxe0 --plan "$FIXTURES/plans/rxe_guest_perf.plan" --checks bandwidth,latency)
expect_exit 0
expect bandwidth PASS 'rxe0 -> rxe1@198.18.0.2 RDMA WRITE bandwidth'
expect bandwidth PASS 'rxe_guest_perf.plan:34 min_write_bw_gbps'
expect latency PASS 'rxe0 -> rxe1@198.18.0.2 RDMA WRITE latency (median)'
expect latency PASS 'rxe_guest_perf.plan:35 max_write_lat_us'
