# The plan's GID index points at GID 0, the fe80:: IPv6 link-local entry,
# instead of the IPv4-mapped GID 1: gid-table FAILs and names GID 1.
name="plan gid_index 0 (IPv6 link-local)"
mtu=9000
args=(--plan "$PLANS/gid_link_local.plan" -d rxe0)
expect_exit 1
expect gid-table FAIL 'fe80'
expect gid-table FAIL 'link-local'
expect gid-table FAIL '-x 1'
expect gid-table FAIL 'gid_index = 1'
expect mtu-chain PASS
expect rxe-sysctls PASS
expect device-present PASS
