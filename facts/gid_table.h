// ReadGid / ReadGidTable: a port's GID entries from sysfs
// (<sysfs>/class/infiniband/<dev>/ports/<port>/gids/N, gid_attrs/types/N,
// gid_attrs/ndevs/N), for the probe to pick its source GID without a full
// gather: rxe lists 1024 entries and reading them all costs seconds in a slow
// guest.
//
//   absl::StatusOr<GidEntry> g = ReadGid("/sys", "rxe0", 1, 1);  // ::ffff:198.18.0.1
#ifndef RDMACHECK_FACTS_GID_TABLE_H_
#define RDMACHECK_FACTS_GID_TABLE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"

namespace rdmacheck {

// NotFound "GID index 7 of rxe0 port 1 is empty" for an all-zero or missing
// entry.
absl::StatusOr<GidEntry> ReadGid(absl::string_view sysfs_root, absl::string_view dev, int port, int index);

// The non-empty entries among the first `limit`.
std::vector<GidEntry> ReadGidTable(absl::string_view sysfs_root, absl::string_view dev, int port, int limit);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_GID_TABLE_H_
