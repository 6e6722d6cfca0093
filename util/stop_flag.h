// StopFlag: the one flag that every bounded wait of a probe polls. SIGINT
// raises it (acts/probe/probe.h SigintGuard), and so does the check runner
// when a check overruns its deadline (checks/runner.h): the probe then
// releases everything it holds and returns at once, so the next check never
// shares a device with it.
//
//   while (!StopFlag().load() && MonotonicSeconds() < end) { ...poll... }
#ifndef RDMACHECK_UTIL_STOP_FLAG_H_
#define RDMACHECK_UTIL_STOP_FLAG_H_

#include <atomic>

namespace rdmacheck {

std::atomic<bool>& StopFlag();

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_STOP_FLAG_H_
