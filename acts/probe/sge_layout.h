// SgeLayout: where the SGEs of one probe WR sit in its send buffer. In
// straddle mode every SGE crosses its own boundary of `straddle` bytes (half
// before, half after), so n SGEs need a buffer of (n + 1) * straddle bytes
// aligned to `straddle`.
//
//   absl::StatusOr<SgeLayout> l = ComputeSgeLayout({.bytes = 256, .num_sge = 3,
//                                                   .straddle = kPage4K}, 3);
//   l->sges[0]  // {offset 3968, length 256}: bytes 3968..4223 cross 4096
//   l->buffer_bytes  // 16384
#ifndef RDMACHECK_ACTS_PROBE_SGE_LAYOUT_H_
#define RDMACHECK_ACTS_PROBE_SGE_LAYOUT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/probe_types.h"

namespace rdmacheck {

struct SgeSpan {
  uint64_t offset = 0;  // from the buffer's start
  uint32_t length = 0;
};

struct SgeLayout {
  std::vector<SgeSpan> sges;
  uint64_t buffer_bytes = 0;   // the send buffer must be at least this big
  uint64_t alignment = 4096;   // and aligned to this
  uint64_t total_bytes = 0;    // sum of the lengths: the message size
};

// num_sge is the resolved count (spec.num_sge, or the granted max when 0).
// InvalidArgument for a zero count or size, an SGE of 1 byte or one as long
// as the boundary (it could not straddle it on both sides).
absl::StatusOr<SgeLayout> ComputeSgeLayout(const WrSpec& spec, uint32_t num_sge);

// SGEs of the layout that really contain a multiple of `boundary` strictly
// inside them, given the buffer's base address (0 when aligned).
int CountCrossing(const SgeLayout& l, uint64_t base, uint64_t boundary);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_SGE_LAYOUT_H_
