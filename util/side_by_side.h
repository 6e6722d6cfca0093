// SideBySide: runs fn(0) .. fn(n - 1) at once, fn(0) on the calling thread
// and each other on a thread of its own, and returns when all have. For work
// per device that mostly waits (on the kernel, on a quiet period), so that
// devices cost the longest one's time instead of the sum.
//
//   std::vector<std::string> thrown =
//       SideBySide(jobs.size(), [&](size_t i) { jobs[i].got = Probe(jobs[i]); });
//
// An exception escaping fn(i) is caught, as the runner catches one escaping
// a check, and its message returned as thrown[i] ("" when fn(i) returned):
// one device's failure is reported like any other instead of ending the
// process from a thread.
#ifndef RDMACHECK_UTIL_SIDE_BY_SIDE_H_
#define RDMACHECK_UTIL_SIDE_BY_SIDE_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace rdmacheck {

std::vector<std::string> SideBySide(size_t n, const std::function<void(size_t)>& fn);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_SIDE_BY_SIDE_H_
