// bandwidth: RDMA WRITE bandwidth between the devices in use (the probes'
// pair: another local device on a different netdev, else the device to
// itself) meets the plan's [perf] min_write_bw_gbps, and on hardware 90 %
// of the port's rate (WARN below 95 %). A soft device's rate is nominal, so
// without a plan minimum the figure is evidence only. A run that stalls is
// classified as hung-qp classifies a stuck WR. Live only.
// Doc: docs/checks/bandwidth.md
#ifndef RDMACHECK_CHECKS_BANDWIDTH_H_
#define RDMACHECK_CHECKS_BANDWIDTH_H_

#include "checks/check.h"

namespace rdmacheck {

// Against the port's rate: FAIL below this fraction, WARN below the next.
inline constexpr double kBwFailFraction = 0.90;
inline constexpr double kBwWarnFraction = 0.95;

class BandwidthCheck : public Check {
 public:
  absl::string_view id() const override { return "bandwidth"; }
  absl::string_view summary() const override {
    return "RDMA WRITE bandwidth to a peer device meets the plan's minimum (hardware: 90 % of the port's rate)";
  }
  unsigned needs() const override { return kNeedsDevice | kNeedsQdiscs | kLoadsLink; }
  bool live_only() const override { return true; }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_BANDWIDTH_H_
