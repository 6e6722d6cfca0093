// latency: RDMA WRITE latency (half a ping-pong round trip, as ib_write_lat
// measures it; the median judged) between the devices in use is within the
// plan's [perf] max_write_lat_us. Without a plan maximum the figures are
// evidence only: no port attribute says what a latency should be. A run
// that stalls is classified as hung-qp classifies a stuck WR. Live only.
// Doc: docs/checks/latency.md
#ifndef RDMACHECK_CHECKS_LATENCY_H_
#define RDMACHECK_CHECKS_LATENCY_H_

#include "checks/check.h"

namespace rdmacheck {

class LatencyCheck : public Check {
 public:
  absl::string_view id() const override { return "latency"; }
  absl::string_view summary() const override {
    return "RDMA WRITE latency to a peer device is within the plan's maximum";
  }
  unsigned needs() const override { return kNeedsDevice | kNeedsQdiscs; }
  bool live_only() const override { return true; }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_LATENCY_H_
