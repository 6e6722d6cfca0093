// device-limits: every plan QP class, SRQ and CQ fits the device's limits
// (max_qp_wr, max_sge, max_srq_wr, max_srq_sge, max_cqe, max_qp, max_cq,
// max_srq, max_mr_size). FAIL over a limit, WARN above 90% of one. Evidence
// names each limiting field with both numbers. Doc: docs/checks/device-limits.md
#ifndef RDMACHECK_CHECKS_DEVICE_LIMITS_H_
#define RDMACHECK_CHECKS_DEVICE_LIMITS_H_

#include "checks/check.h"

namespace rdmacheck {

class DeviceLimitsCheck : public Check {
 public:
  absl::string_view id() const override { return "device-limits"; }
  absl::string_view summary() const override {
    return "The plan's QPs, SRQs and CQs fit the device limits (max_qp_wr, max_sge, max_cqe, ...)";
  }
  Result Run(const CheckContext& ctx) const override;

  // Above this share of a limit the check WARNs.
  static constexpr double kWarnRatio = 0.9;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_DEVICE_LIMITS_H_
