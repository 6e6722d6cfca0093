// memlock: RLIMIT_MEMLOCK covers what the plan will pin: its memory regions
// (count x mr_bytes of every QP class, plus the plan's mr_bytes) and the queue
// buffers the driver pins in user memory (driver model; rxe's queues live in
// the kernel and are not charged). Unlimited passes; FAIL when the need is
// over the soft limit, WARN above 90%. Remediation for a shell, Docker or
// Kubernetes, by host.in_container. Doc: docs/checks/memlock.md
//
//   Result r = MemlockCheck().Run(ctx);
//   // rxe0: pinned memory: expected <= 64 KiB (RLIMIT_MEMLOCK soft), actual 128 MiB
#ifndef RDMACHECK_CHECKS_MEMLOCK_H_
#define RDMACHECK_CHECKS_MEMLOCK_H_

#include "checks/check.h"

namespace rdmacheck {

class MemlockCheck : public Check {
 public:
  absl::string_view id() const override { return "memlock"; }
  absl::string_view summary() const override {
    return "RLIMIT_MEMLOCK covers the plan's registered memory and pinned queue buffers";
  }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext& ctx) const override;

  static constexpr double kWarnRatio = 0.9;
};

// Whether `driver`'s QP/CQ buffers are pinned through ib_umem_get (charged to
// RLIMIT_MEMLOCK), with the reason. Unknown drivers: assumed pinned.
struct QueuePinning {
  bool charged;
  const char* why;
};
QueuePinning QueuePinningOf(absl::string_view driver);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_MEMLOCK_H_
