// QpMemoryRequest / QpMemoryMeasurement: the measured side of memory-budget.
// Create N QPs of a plan class on a live device and read the process's
// memory (/proc/self/status VmPin, VmLck, VmRSS; /proc/meminfo VmallocUsed,
// where rxe puts its queues) before and after. Plain data; the probe is
// acts/probe/qp_memory.h, reached through Device::MeasureQpMemory.
//
//   QpMemoryRequest req{.device = "rxe0", .caps = cls.caps, .count = 16};
//   absl::StatusOr<QpMemoryMeasurement> m = dev->MeasureQpMemory(req);
//   m->PerQp(m->before.vm_rss, m->after.vm_rss);  // bytes per QP, if both known
#ifndef RDMACHECK_ACTS_QP_MEMORY_TYPES_H_
#define RDMACHECK_ACTS_QP_MEMORY_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "facts/rdma_types.h"

namespace rdmacheck {

// Memory figures in bytes; unset when the kernel does not report the field.
struct MemorySnapshot {
  std::optional<uint64_t> vm_rss;        // /proc/self/status VmRSS
  std::optional<uint64_t> vm_pin;        // VmPin: pages pinned (ib_umem, mlx5 queues)
  std::optional<uint64_t> vm_lck;        // VmLck: mlock()ed
  std::optional<uint64_t> vmalloc_used;  // /proc/meminfo VmallocUsed (system-wide)
  // Bytes of /proc/self/maps mappings of /dev/infiniband/uverbs*: queues a
  // driver allocates in the kernel and maps in (rxe). VmRSS may not show
  // them at once (6.1 batches a task's RSS counts).
  std::optional<uint64_t> uverbs_mapped;
};

struct QpMemoryRequest {
  std::string device;
  QpType type = QpType::kRc;
  QpCaps caps;
  bool with_srq = false;
  // QPs to create; the probe refuses more than kMaxQps.
  uint32_t count = 1;
  // Creation stops once this much time has passed (the QPs made so far are
  // measured).
  double deadline_s = 5.0;
  static constexpr uint32_t kMaxQps = 64;
};

struct QpMemoryMeasurement {
  std::string device;
  uint32_t requested = 0;  // count asked
  uint32_t created = 0;    // QPs alive at the second snapshot
  QpCaps granted;          // of the first QP
  MemorySnapshot before;   // after the PD and CQ, before the first QP
  MemorySnapshot after;    // with all `created` QPs alive
  std::string stopped;     // why fewer than asked: the create's error, "deadline", "interrupted"
  double seconds = 0;

  // (after - before) / created, when both are known and created > 0;
  // negative growth (memory returned elsewhere meanwhile) gives 0.
  std::optional<uint64_t> PerQp(const std::optional<uint64_t>& b,
                                const std::optional<uint64_t>& a) const {
    if (!b || !a || created == 0) return std::nullopt;
    return *a > *b ? (*a - *b) / created : 0;
  }
};

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_QP_MEMORY_TYPES_H_
