#include "util/clock.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RDMACHECK_HAVE_RDTSC 1
#endif

namespace rdmacheck {

#ifdef RDMACHECK_HAVE_RDTSC
namespace {

// The counter's rate, measured once over 5 ms of MonotonicSeconds: a few
// clock reads of error in 5 ms, well under 0.1 % on any clocksource.
struct TscScale {
  double base_s;
  uint64_t base_c;
  double s_per_cycle;
};

TscScale Calibrate() {
  const double t0 = MonotonicSeconds();
  const uint64_t c0 = __rdtsc();
  double t1 = t0;
  while (t1 - t0 < 0.005) t1 = MonotonicSeconds();
  const uint64_t c1 = __rdtsc();
  // A counter that did not move (or went back) is no clock: fall back.
  if (c1 <= c0) return {t0, c0, 0};
  return {t0, c0, (t1 - t0) / static_cast<double>(c1 - c0)};
}

}  // namespace

double FastSeconds() {
  static const TscScale scale = Calibrate();
  if (scale.s_per_cycle == 0) return MonotonicSeconds();
  // Signed: a thread moved to a CPU whose counter lags reads a little back,
  // not 2^64 cycles ahead.
  const int64_t d = static_cast<int64_t>(__rdtsc() - scale.base_c);
  return scale.base_s + static_cast<double>(d) * scale.s_per_cycle;
}
#else
double FastSeconds() { return MonotonicSeconds(); }
#endif

}  // namespace rdmacheck
