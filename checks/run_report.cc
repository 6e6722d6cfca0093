#include "checks/run_report.h"

#include <algorithm>

#include "checks/exit_codes.h"

namespace rdmacheck {

int RunReport::Count(Verdict v) const {
  return static_cast<int>(std::count_if(results.begin(), results.end(),
                                        [v](const Result& r) { return r.verdict == v; }));
}

int ExitCodeFor(const std::vector<Result>& results) {
  bool any_fail = false, all_skip = !results.empty();
  for (const Result& r : results) {
    any_fail = any_fail || r.verdict == Verdict::kFail;
    all_skip = all_skip && r.verdict == Verdict::kSkip;
  }
  if (any_fail) return kExitFail;
  if (all_skip) return kExitNothingRan;
  return kExitOk;
}

}  // namespace rdmacheck
