# A probe across the container boundary: `rdmacheck serve` on rxe1 inside
# the container (the README's flags, rxe1's node), `rdmacheck --peer` on
# rxe0 on the guest itself. The two agree over the side channel and the
# probes' SENDs and WRITEs cross va -> vb into the container's buffers.
source "$SHARE/scenarios/probe-lib.bash"
source "$SHARE/scenarios/peer-lib.bash"
name="$ENGINE: serve in the container on rxe1, --peer from the guest on rxe0"
mtu=9000
fault() {
  res_begin
  serve_start bash "$SHARE/container/run-checks.sh" --readme "$SHARE/README.md" --engine "$ENGINE" \
    --device rxe1 --no-args --with "--name rdmacheck-serve-$ENGINE" --
}
undo() {
  serve_end 0 'this end verdict: PASS peer-match'
  timeout 30 "$ENGINE" rm -f "rdmacheck-serve-$ENGINE" >/dev/null 2>&1
  res_end
}
args=(--peer 198.18.0.2 -d rxe0 --checks hung-qp,sge-page-crossing)
expect_exit 0
expect peer-match PASS 'far end 198.18.0.2: PASS peer-match'
expect hung-qp PASS 'rxe0 -> rxe1@198.18.0.2'
expect hung-qp PASS 'verified'
expect sge-page-crossing PASS 'completed and verified'
