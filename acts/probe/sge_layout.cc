#include "acts/probe/sge_layout.h"

#include "absl/strings/str_cat.h"

namespace rdmacheck {

absl::StatusOr<SgeLayout> ComputeSgeLayout(const WrSpec& spec, uint32_t num_sge) {
  SgeLayout l;
  if (num_sge == 0 || spec.bytes == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("SGE layout: num_sge=", num_sge, " bytes=", spec.bytes, ": both must be > 0"));
  }
  if (spec.straddle == 0) {
    // Contiguous: the message split evenly (the last SGE takes the rest).
    if (spec.bytes < num_sge) {
      return absl::InvalidArgumentError(
          absl::StrCat("SGE layout: ", spec.bytes, " bytes cannot fill ", num_sge, " SGEs"));
    }
    uint32_t each = spec.bytes / num_sge;
    uint64_t off = 0;
    for (uint32_t i = 0; i < num_sge; ++i) {
      uint32_t len = i + 1 == num_sge ? spec.bytes - each * (num_sge - 1) : each;
      l.sges.push_back({off, len});
      off += len;
    }
    l.total_bytes = spec.bytes;
    l.buffer_bytes = (off + 4095) / 4096 * 4096;
    return l;
  }
  if (spec.bytes < 2 || spec.bytes >= spec.straddle) {
    return absl::InvalidArgumentError(absl::StrCat("SGE layout: an SGE of ", spec.bytes,
                                                   " bytes cannot straddle a ", spec.straddle,
                                                   "-byte boundary (need 2 <= bytes < boundary)"));
  }
  const uint32_t before = spec.bytes / 2;
  for (uint32_t i = 0; i < num_sge; ++i) {
    uint64_t boundary = (static_cast<uint64_t>(i) + 1) * spec.straddle;
    l.sges.push_back({boundary - before, spec.bytes});
  }
  l.total_bytes = static_cast<uint64_t>(spec.bytes) * num_sge;
  l.buffer_bytes = (static_cast<uint64_t>(num_sge) + 1) * spec.straddle;
  l.alignment = spec.straddle;
  return l;
}

int CountCrossing(const SgeLayout& l, uint64_t base, uint64_t boundary) {
  if (boundary == 0) return 0;
  int n = 0;
  for (const SgeSpan& s : l.sges) {
    uint64_t first = base + s.offset, last = first + s.length - 1;
    // A boundary strictly inside: some multiple m with first < m <= last.
    if (s.length > 1 && (last / boundary) > (first / boundary)) ++n;
  }
  return n;
}

}  // namespace rdmacheck
