// MonotonicSeconds: the one clock for deadlines and durations (steady, so a
// wall-clock step during a probe cannot end or stretch a wait).
//
//   const double deadline = MonotonicSeconds() + 2.0;
//   while (MonotonicSeconds() < deadline) { ... }
#ifndef RDMACHECK_UTIL_CLOCK_H_
#define RDMACHECK_UTIL_CLOCK_H_

#include <chrono>

namespace rdmacheck {

inline double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_CLOCK_H_
