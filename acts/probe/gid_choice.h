// ChooseGid: the GID an operator would pick for RoCE traffic on a port: a
// RoCE v2 IPv4-mapped entry (::ffff:a.b.c.d) first, then another RoCE v2
// global one, then RoCE v2 link-local, then RoCE v1, then IB. A forced index
// (-x) wins when the table has it.
//
//   absl::StatusOr<GidEntry> g = ChooseGid(port.gids, options.gid_index);
//   g->index  // 1 on rxe: ::ffff:198.18.0.1
#ifndef RDMACHECK_ACTS_PROBE_GID_CHOICE_H_
#define RDMACHECK_ACTS_PROBE_GID_CHOICE_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "facts/device_view.h"

namespace rdmacheck {

// NotFound when the table is empty or the forced index is not in it
// ("GID index 5 of rxe0 port 1 is empty (entries: 0, 1)").
// prefer_ipv6 (a plan's ip_version = 6): a global IPv6 RoCE v2 entry ranks
// before the IPv4-mapped one.
absl::StatusOr<GidEntry> ChooseGid(const std::vector<GidEntry>& gids, std::optional<int> forced,
                                   absl::string_view where, bool prefer_ipv6 = false);

// The rank ChooseGid sorts by (lower is better), exposed for tests.
int GidRank(const GidEntry& g, bool prefer_ipv6 = false);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_GID_CHOICE_H_
