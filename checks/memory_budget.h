// memory-budget: the queue memory of the whole plan (send queue, receive
// queue, CQ share and driver context of every QP class, plus CQs and SRQs),
// sized by the device's driver model with granted caps, against the plan's
// memory_budget and the host's MemTotal. FAIL over either, WARN above 90%.
// On a live device it also measures: creates up to 64 QPs of each class and
// shows the process's VmRSS/VmPin/VmLck growth per QP beside the model.
// Doc: docs/checks/memory-budget.md
//
// Also exports the plan memory model the memlock check reuses:
//
//   std::unique_ptr<Device> dev = ctx.device_for(info);
//   PlanMemory m = ModelPlanMemory(ctx.plan, *dev);
//   uint64_t all = m.total;             // every queue byte of the plan
//   uint64_t bufs = m.queue_buffers;    // the same without driver context
#ifndef RDMACHECK_CHECKS_MEMORY_BUDGET_H_
#define RDMACHECK_CHECKS_MEMORY_BUDGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "checks/check.h"

namespace rdmacheck {

// One QP class of the plan as the driver sizes it.
struct QpClassMemory {
  const QpClass* qp = nullptr;
  bool create_ok = true;    // false: CreateQp failed; sized with the requested caps
  std::string create_error;
  QpCaps granted;
  QueueMemory per_qp;       // one QP's send queue, receive queue, context
  uint64_t cq_share = 0;    // bytes of the CQs it completes into, its share (all QPs)
  uint64_t total() const {  // all QPs of the class, with their CQ share
    return per_qp.total() * qp->count + cq_share;
  }
};

struct CqMemoryRow {
  const CqSpec* cq = nullptr;
  bool create_ok = true;
  std::string create_error;
  uint32_t granted_cqe = 0;
  uint64_t bytes_each = 0;
  uint64_t total() const { return bytes_each * cq->count; }
};

struct SrqMemoryRow {
  const SrqSpec* srq = nullptr;
  uint64_t bytes_each = 0;  // sized as a receive queue of max_wr x max_sge
  uint64_t total() const { return bytes_each * srq->count; }
};

struct PlanMemory {
  std::vector<QpClassMemory> classes;
  std::vector<CqMemoryRow> cqs;
  std::vector<SrqMemoryRow> srqs;
  uint64_t total = 0;          // queues + CQs + SRQs + driver context
  uint64_t queue_buffers = 0;  // the same without driver context
};

// Sizes every QP class, CQ and SRQ of `plan` with `dev`'s answers.
PlanMemory ModelPlanMemory(const Plan& plan, Device& dev);

class MemoryBudgetCheck : public Check {
 public:
  absl::string_view id() const override { return "memory-budget"; }
  absl::string_view summary() const override {
    return "The plan's queue memory (driver model, granted caps) fits its memory_budget and the "
           "host's memory";
  }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext& ctx) const override;

  static constexpr double kWarnRatio = 0.9;
  // Live: the measured QPs of a class take at most this much by the model
  // (and at most QpMemoryRequest::kMaxQps of them are made).
  static constexpr uint64_t kMeasureBytes = 256ull << 20;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_MEMORY_BUDGET_H_
