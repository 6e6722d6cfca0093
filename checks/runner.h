// Runner: runs selected checks, each under its own deadline, and times them.
// A check that throws or overruns its deadline becomes WARN "could not carry
// out", never a crash and never a silent PASS.
//
//   std::vector<Result> results = RunChecks(*SelectChecks("", ""), ctx);
#ifndef RDMACHECK_CHECKS_RUNNER_H_
#define RDMACHECK_CHECKS_RUNNER_H_

#include <vector>

#include "checks/check.h"

namespace rdmacheck {

// Runs each check in order; ctx.options.check_deadline_s bounds each one.
// ctx must outlive the process' use of any check that overran (its thread
// is left to finish on its own; the caller then exits).
std::vector<Result> RunChecks(const std::vector<const Check*>& checks, const CheckContext& ctx);

// Runs one check under the deadline (what RunChecks does for each).
Result RunOneCheck(const Check& check, const CheckContext& ctx);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_RUNNER_H_
