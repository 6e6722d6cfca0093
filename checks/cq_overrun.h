// cq-overrun: what this device does when a CQ is overrun. Live only. A CQ of
// 4 entries (as asked; the granted depth is read back) takes a burst of
// signaled RDMA WRITEs it cannot hold, not polled until the burst is done;
// the evidence reports the IBV_EVENT_CQ_ERR async event and when it came,
// the QP state afterwards, the completions still there and their statuses
// (IBV_WC_WR_FLUSH_ERR), how many were lost, and whether a WR posted after
// it works. Informational: PASS when the overrun was signalled and
// reported, WARN when it went unnoticed (no event, completions silently
// lost). The notes tie it to the plan's CQs (cq-depth).
// Doc: docs/checks/cq-overrun.md
//
//   Result r = CqOverrunCheck().Run(ctx);
//   // [PASS] "rxe0 signals a CQ overrun: IBV_EVENT_CQ_ERR after 3.10 ms;
//   //         QP ERR; 7 completions kept, 9 lost"
#ifndef RDMACHECK_CHECKS_CQ_OVERRUN_H_
#define RDMACHECK_CHECKS_CQ_OVERRUN_H_

#include <string>

#include "checks/check.h"
#include "acts/cq_overrun_types.h"

namespace rdmacheck {

class CqOverrunCheck : public Check {
 public:
  absl::string_view id() const override { return "cq-overrun"; }
  absl::string_view summary() const override {
    return "A CQ overrun on this device is signalled (IBV_EVENT_CQ_ERR), not silent; reports what the "
           "device does then";
  }
  unsigned needs() const override { return kNeedsDevice; }
  bool live_only() const override { return true; }
  Result Run(const CheckContext& ctx) const override;

  // The CQ depth the probe asks for.
  static constexpr uint32_t kSmallCqe = 4;
};

// "rxe0 signals a CQ overrun with IBV_EVENT_CQ_ERR after 3.10 ms; QP moved to
// ERR; 7 completions kept, 9 lost": the one-line finding.
std::string CqOverrunFinding(const CqOverrunResult& r);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_CQ_OVERRUN_H_
