// device-present: at least one RDMA device, or the one named with -d / the
// plan's device. On a machine with none, names the likely cause from the host
// facts (no rdma_rxe, no rxe link, no provider library, /dev/infiniband not
// passed into a container) and the commands that fix it.
// Doc: docs/checks/device-present.md
#ifndef RDMACHECK_CHECKS_DEVICE_PRESENT_H_
#define RDMACHECK_CHECKS_DEVICE_PRESENT_H_

#include "checks/check.h"

namespace rdmacheck {

class DevicePresentCheck : public Check {
 public:
  absl::string_view id() const override { return "device-present"; }
  absl::string_view summary() const override {
    return "At least one RDMA device (or the one named with -d) is present and usable";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_DEVICE_PRESENT_H_
