// Runner: runs selected checks, each under its own deadline, and times them.
// A check that throws or overruns its deadline becomes WARN "could not carry
// out", never a crash and never a silent PASS.
//
// A check never outlives what it reads: the runner hands each check's thread
// its own shared copy of the context. At the deadline the runner raises the
// stop flag (util/stop_flag.h) that every probe wait polls, and waits up to
// Options::stop_grace_s for the check to release what it holds and return,
// so the next check never shares a device with it. A check that still has
// not returned then (it ignores the flag) is left to finish on its own; the
// checks after it that act on a device (kNeedsDevice) are not started.
//
//   std::vector<Result> results = RunChecks(*SelectChecks("", ""), ctx);
#ifndef RDMACHECK_CHECKS_RUNNER_H_
#define RDMACHECK_CHECKS_RUNNER_H_

#include <string>
#include <vector>

#include "checks/check.h"

namespace rdmacheck {

// Runs each check in order; ctx.options.check_deadline_s bounds each one.
// `stuck_before`, when given, carries "a check is still running past its deadline"
// (its id) from one call to the next: a run made of several calls
// (checks/session.h) starts no device check after it either.
std::vector<Result> RunChecks(const std::vector<const Check*>& checks, const CheckContext& ctx,
                              std::string* stuck_before = nullptr);

// Runs one check under the deadline (what RunChecks does for each).
Result RunOneCheck(const Check& check, const CheckContext& ctx);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_RUNNER_H_
