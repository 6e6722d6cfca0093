#include "checks/run_report.h"

#include <algorithm>

namespace rdmacheck {

int RunReport::Count(Verdict v) const {
  return static_cast<int>(std::count_if(results.begin(), results.end(),
                                        [v](const Result& r) { return r.verdict == v; }));
}

}  // namespace rdmacheck
