// The one reader of a port's GID table in sysfs
// (<sysfs>/class/infiniband/<dev>/ports/<port>/gids/N, gid_attrs/types/N,
// gid_attrs/ndevs/N): the gather reads every entry with ReadPortGid; the
// probe picks its source GID with ReadGid / ReadGidTable without a full
// gather (rxe lists 1024 entries and reading them all costs seconds in a
// slow guest).
//
//   absl::StatusOr<GidEntry> g = ReadGid("/sys", "rxe0", 1, 1);  // ::ffff:198.18.0.1
//   SysfsReader sys("/sys");
//   std::optional<GidEntry> e =
//       ReadPortGid(sys, "class/infiniband/rxe0/ports/1", 1, /*ib_link=*/false);
#ifndef RDMACHECK_FACTS_GID_TABLE_H_
#define RDMACHECK_FACTS_GID_TABLE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"
#include "facts/sysfs.h"

namespace rdmacheck {

// A sysfs GID ("fe80:0000:...:0001", 8 groups) in compressed text
// ("fe80::1", "::ffff:198.18.0.1"); nullopt for the all-zero (empty) entry
// or text that is not an IPv6 address.
std::optional<std::string> GidText(absl::string_view sysfs_gid);

// Entry `index` under `port_dir` (relative to fs's root,
// "class/infiniband/rxe0/ports/1"); nullopt when it is empty or unreadable.
// The kernel names the IB GID type and RoCE v1 alike "IB/RoCE v1"
// (drivers/infiniband/core/cache.c, gid_type_str): with ib_link (the port's
// link_layer is InfiniBand) that, or no readable type, is GidType::kIb.
std::optional<GidEntry> ReadPortGid(const SysfsReader& fs, absl::string_view port_dir, int index,
                                    bool ib_link);

// NotFound "GID index 7 of rxe0 port 1 is empty" for an all-zero or missing
// entry. The type is as sysfs spells it (no link-layer reading).
absl::StatusOr<GidEntry> ReadGid(absl::string_view sysfs_root, absl::string_view dev, int port, int index);

// The non-empty entries among the first `limit`.
std::vector<GidEntry> ReadGidTable(absl::string_view sysfs_root, absl::string_view dev, int port, int limit);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_GID_TABLE_H_
