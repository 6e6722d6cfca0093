// port-active: every port in use is ACTIVE with phys_state LinkUp, and its
// link layer is the plan's. For rxe/siw the port follows its netdev, so the
// remedy names that netdev. Doc: docs/checks/port-active.md
#ifndef RDMACHECK_CHECKS_PORT_ACTIVE_H_
#define RDMACHECK_CHECKS_PORT_ACTIVE_H_

#include "checks/check.h"

namespace rdmacheck {

class PortActiveCheck : public Check {
 public:
  absl::string_view id() const override { return "port-active"; }
  absl::string_view summary() const override {
    return "Each port in use is ACTIVE, its physical link is LinkUp, link layer as planned";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_PORT_ACTIVE_H_
