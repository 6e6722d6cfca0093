// gid-table: every usable GID of the ports in use with its index, type,
// netdev and address; names the RoCE v2 IPv4-mapped entry (::ffff:a.b.c.d)
// as the one to use (perftest -x N, ibv_rc_pingpong -g N) and FAILs when the
// GID index in use (-x, else the plan's gid_index) is empty, IPv6 link-local
// while an IPv4 entry exists, or of another type than the plan's gid_type;
// FAILs when a RoCE port has no GID carrying an address (no IP on the netdev).
// Doc: docs/checks/gid-table.md
//
#ifndef RDMACHECK_CHECKS_GID_TABLE_H_
#define RDMACHECK_CHECKS_GID_TABLE_H_

#include <string>

#include "absl/strings/string_view.h"
#include "checks/check.h"

namespace rdmacheck {

class GidTableCheck : public Check {
 public:
  absl::string_view id() const override { return "gid-table"; }
  absl::string_view summary() const override {
    return "The GID index in use is the IPv4 RoCE v2 entry; every port has a GID with an address";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_GID_TABLE_H_
