// MonotonicSeconds: the one clock for deadlines and durations (steady, so a
// wall-clock step during a probe cannot end or stretch a wait).
//
//   const double deadline = MonotonicSeconds() + 2.0;
//   while (MonotonicSeconds() < deadline) { ... }
//
// WallNow: the wall clock, for timestamps only (a report's started_at).
// Not absl::Now(): its slow path retries clock_gettime(CLOCK_REALTIME) until
// one call completes within about a million TSC cycles
// (absl/time/clock.cc, GetCurrentTimeNanosFromKernel), so where every system
// call is that slow (rdmacheck under `strace -f` in an emulated guest, each
// call a ptrace stop) it never returns: a run hung at its first timestamp.
//
// FastSeconds: the CPU's time-stamp counter (x86 rdtsc) in seconds, for the
// loops that read the clock at every turn (the bench's post/poll loop and
// ping-pong). Where the kernel's clocksource is not the TSC (a VM on hpet or
// acpi_pm), each clock_gettime is a system call and a device read:
// microseconds that would show in a latency sample, as they would not in
// perftest's, which reads the cycle counter (get_cycles). Its scale is
// measured once over 5 ms, so it is provisional: in the TCG guest it ran 4 %
// off CLOCK_MONOTONIC. Figures are corrected over their own interval with
// FastClockCorrection. Without a TSC it is MonotonicSeconds.
//
//   FastClockCorrection corr;
//   ... loop on FastSeconds() ...
//   seconds *= corr.Factor();  // MonotonicSeconds per FastSeconds over the interval
#ifndef RDMACHECK_UTIL_CLOCK_H_
#define RDMACHECK_UTIL_CLOCK_H_

#include <chrono>

#include "absl/time/time.h"

namespace rdmacheck {

inline double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline absl::Time WallNow() { return absl::FromChrono(std::chrono::system_clock::now()); }

double FastSeconds();

class FastClockCorrection {
 public:
  FastClockCorrection() : m0_(MonotonicSeconds()), f0_(FastSeconds()) {}
  // MonotonicSeconds elapsed per FastSeconds elapsed since construction; 1
  // when either has not moved.
  double Factor() const {
    const double m = MonotonicSeconds() - m0_, f = FastSeconds() - f0_;
    return m > 0 && f > 0 ? m / f : 1.0;
  }

 private:
  double m0_, f0_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_CLOCK_H_
