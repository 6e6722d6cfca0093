// rxe-sysctls: when two RDMA devices of one host are bound to netdevs with
// addresses in one IPv4 subnet (the Soft-RoCE pair rxe0/va <-> rxe1/vb), the
// kernel must deliver packets whose source is one of its own addresses:
// accept_local on (all OR netdev) and rp_filter off (max of all and netdev)
// on every such netdev. arp_ignore=1 / arp_announce=2 are recommended (a
// note) where netdevs share a subnet. Reads host.sysctls only.
// Doc: docs/checks/rxe-sysctls.md
//
//   std::vector<LocalPair> pairs = FindLocalPairs(view);
//   // {rxe0 on va 198.18.0.1/24, rxe1 on vb 198.18.0.2/24, "198.18.0.0/24"}
#ifndef RDMACHECK_CHECKS_RXE_SYSCTLS_H_
#define RDMACHECK_CHECKS_RXE_SYSCTLS_H_

#include <string>
#include <vector>

#include "checks/check.h"

namespace rdmacheck {

struct LocalPair {
  std::string dev_a, netdev_a, addr_a;  // "rxe0", "va", "198.18.0.1/24"
  std::string dev_b, netdev_b, addr_b;
  std::string subnet;                   // "198.18.0.0/24"
};
// Pairs of RDMA devices on distinct netdevs whose IPv4 addresses share a
// subnet (same prefix length and network). Netdevs without recorded
// addresses are left out.
std::vector<LocalPair> FindLocalPairs(const DeviceView& view);

class RxeSysctlsCheck : public Check {
 public:
  absl::string_view id() const override { return "rxe-sysctls"; }
  absl::string_view summary() const override {
    return "Local RDMA pairs over IP: accept_local=1 and rp_filter=0 on their netdevs";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_RXE_SYSCTLS_H_
