// cap-readback: every plan QP class is created on the device (the real one
// live, the driver model on a profile) and its caps are read back. Evidence:
// one requested -> granted row per field, the overshoot, and the queue memory
// it costs. WARN when a depth is granted >= 1.5x what was asked (rxe turns
// 1024 into 2047), with the request that gets exactly what it needs computed
// from the device; FAIL when the create fails, with the create-QP bisector's
// finding (acts/create_qp.h). Doc: docs/checks/cap-readback.md
//
//   CapReadbackCheck check;
//   Result r = check.Run(ctx);  // ctx.device_for gives the Device to create on
#ifndef RDMACHECK_CHECKS_CAP_READBACK_H_
#define RDMACHECK_CHECKS_CAP_READBACK_H_

#include "checks/check.h"

namespace rdmacheck {

class CapReadbackCheck : public Check {
 public:
  absl::string_view id() const override { return "cap-readback"; }
  absl::string_view summary() const override {
    return "Each plan QP class is created and the driver grants its caps as asked "
           "(no large overshoot, no EINVAL)";
  }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext& ctx) const override;

  // A depth granted at or above this multiple of the request WARNs.
  static constexpr double kWarnRatio = 1.5;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_CAP_READBACK_H_
