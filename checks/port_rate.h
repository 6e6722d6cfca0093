// port-rate: every ACTIVE port in use runs at the rate and width expected of
// it. FAIL below the plan's min_rate, and on InfiniBand below 4X (or the
// plan's link_width); WARN for an InfiniBand speed below the best of the
// adapter's part, or a port slower than a port of the same part on the node.
// Soft devices (rxe, siw) SKIP: their rate only mirrors the netdev's.
// Doc: docs/checks/port-rate.md
#ifndef RDMACHECK_CHECKS_PORT_RATE_H_
#define RDMACHECK_CHECKS_PORT_RATE_H_

#include "checks/check.h"

namespace rdmacheck {

class PortRateCheck : public Check {
 public:
  absl::string_view id() const override { return "port-rate"; }
  absl::string_view summary() const override {
    return "Each port in use runs at its expected rate and width";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_PORT_RATE_H_
