// StopFlag: the one flag that every bounded wait of a probe polls. SIGINT
// raises it (SigintGuard, below), and so does the check runner
// when a check overruns its deadline (checks/runner.h): the probe then
// releases everything it holds and returns at once, so the next check never
// shares a device with it.
//
//   while (!StopFlag().load() && MonotonicSeconds() < end) { ...poll... }
#ifndef RDMACHECK_UTIL_STOP_FLAG_H_
#define RDMACHECK_UTIL_STOP_FLAG_H_

#include <signal.h>

#include <atomic>

namespace rdmacheck {

std::atomic<bool>& StopFlag();

// Installs a SIGINT handler that raises StopFlag() for its lifetime (unless
// SIGINT is ignored); on destruction restores the previous one and, if
// SIGINT arrived, raises it again (exit status 130 once everything is
// released). Declared first in a scope, so it is destroyed last.
class SigintGuard {
 public:
  SigintGuard();
  ~SigintGuard();
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  bool installed_ = false;
  struct sigaction old_{};
};

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_STOP_FLAG_H_
