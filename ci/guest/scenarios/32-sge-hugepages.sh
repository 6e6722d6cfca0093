# Huge pages reserved (vm.nr_hugepages=8, 16 MiB): sge-page-crossing also
# posts SGEs that straddle 2 MiB boundaries (1 and 3 SGEs of 4 KiB each).
source "$SHARE/scenarios/probe-lib.bash"
name="sge-page-crossing with huge pages: 2 MiB boundaries too"
mtu=9000
fault() {
  HP_BEFORE=$(cat /proc/sys/vm/nr_hugepages)
  sysctl -qw vm.nr_hugepages=8 && res_begin
}
undo() { res_end; sysctl -qw vm.nr_hugepages="${HP_BEFORE:-0}"; }
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks sge-page-crossing)
expect_exit 0
expect sge-page-crossing PASS 'crossing a 2 MiB boundary'
expect sge-page-crossing PASS '2 of 2 completed and verified, up to 3 SGEs'
