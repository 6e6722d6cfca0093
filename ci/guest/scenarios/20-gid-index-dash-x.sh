# The healthy plan (gid_index 1) but -x 0 on the command line: -x wins over
# the plan, and GID 0 is rxe0's fe80:: link-local entry.
name="-x 0 (IPv6 link-local) over a plan with gid_index 1"
mtu=9000
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 -x 0)
expect_exit 1
expect gid-table FAIL 'GID index 0 (-x)'
expect gid-table FAIL 'ib_write_bw -d rxe0 -i 1 -x 1'
expect mtu-chain PASS
expect rxe-sysctls PASS
