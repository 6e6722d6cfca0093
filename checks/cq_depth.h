// cq-depth: every CQ of the plan holds the completions of the queues that
// share it. For each CQ spec, its cqe as granted (Device::CreateCq) against
// the send and receive depths, as granted (Device::CreateQp), of every QP
// class (and SRQ) completing into it, spread evenly over the spec's count.
// No driver enforces this (rxe, mlx5, mlx4 create the QP and the CQ overflows
// later): the rule is this tool's. Doc: docs/checks/cq-depth.md
//
//   Result r = CqDepthCheck().Run(ctx);
//   // [FAIL] "CQ small_cq holds 4095 completions; QPs worker x1 can have
//   //         4095 + 4095 = 8190 outstanding"
#ifndef RDMACHECK_CHECKS_CQ_DEPTH_H_
#define RDMACHECK_CHECKS_CQ_DEPTH_H_

#include "checks/check.h"

namespace rdmacheck {

class CqDepthCheck : public Check {
 public:
  absl::string_view id() const override { return "cq-depth"; }
  absl::string_view summary() const override {
    return "Every CQ (granted cqe) holds the send + receive WRs (granted) of the QPs and SRQs "
           "completing into it";
  }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_CQ_DEPTH_H_
