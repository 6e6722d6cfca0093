// MonotonicSeconds: the one clock for deadlines and durations (steady, so a
// wall-clock step during a probe cannot end or stretch a wait).
//
//   const double deadline = MonotonicSeconds() + 2.0;
//   while (MonotonicSeconds() < deadline) { ... }
//
// FastSeconds: the same timeline read from the CPU's time-stamp counter
// (x86 rdtsc, scaled once against MonotonicSeconds), for the loops that read
// the clock at every turn (the bench's post/poll loop and ping-pong). Where
// the kernel's clocksource is not the TSC (a VM on hpet or acpi_pm), each
// clock_gettime is a system call and a device read: microseconds that would
// show in a latency sample, as they would not in perftest's, which reads the
// cycle counter (get_cycles). Elsewhere it is MonotonicSeconds.
#ifndef RDMACHECK_UTIL_CLOCK_H_
#define RDMACHECK_UTIL_CLOCK_H_

#include <chrono>

namespace rdmacheck {

inline double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double FastSeconds();

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_CLOCK_H_
