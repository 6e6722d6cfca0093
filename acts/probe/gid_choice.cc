#include "acts/probe/gid_choice.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {

int GidRank(const GidEntry& g, bool prefer_ipv6) {
  const bool mapped = absl::StartsWithIgnoreCase(g.gid, "::ffff:");
  const bool link_local = absl::StartsWithIgnoreCase(g.gid, "fe80:");
  switch (g.type) {
    case GidType::kRoceV2:
      if (prefer_ipv6) return mapped ? 1 : (link_local ? 2 : 0);
      return mapped ? 0 : (link_local ? 2 : 1);
    case GidType::kRoceV1:
      return mapped ? 3 : (link_local ? 5 : 4);
    case GidType::kIb:
      return 6;
    case GidType::kUnknown:
      return 7;
  }
  return 8;
}

absl::StatusOr<GidEntry> ChooseGid(const std::vector<GidEntry>& gids, std::optional<int> forced,
                                   absl::string_view where, bool prefer_ipv6) {
  std::vector<std::string> have;
  for (const GidEntry& g : gids) have.push_back(absl::StrCat(g.index));
  if (forced) {
    for (const GidEntry& g : gids)
      if (g.index == *forced) return g;
    return absl::NotFoundError(absl::StrCat("GID index ", *forced, " of ", where, " is empty (entries: ",
                                            have.empty() ? "none" : absl::StrJoin(have, ", "), ")"));
  }
  if (gids.empty()) return absl::NotFoundError(absl::StrCat("no GID on ", where));
  const GidEntry* best = &gids[0];
  for (const GidEntry& g : gids) {
    int r = GidRank(g, prefer_ipv6), b = GidRank(*best, prefer_ipv6);
    if (r < b || (r == b && g.index < best->index)) best = &g;
  }
  return *best;
}

}  // namespace rdmacheck
