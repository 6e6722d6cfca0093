// Text renderer (kube-bench / NHC style): a header line naming the run, one
// block per check ("[FAIL] id  title", evidence and notes indented under it),
// a "== Remediations ==" section for FAIL and WARN, and a summary line.
// It prints what the checks decided and decides nothing itself.
//
//   RenderText(rep, std::cout, /*color=*/isatty(STDOUT_FILENO));
//
// The exact layout is documented in docs/output-formats.md.
#ifndef RDMACHECK_REPORT_TEXT_H_
#define RDMACHECK_REPORT_TEXT_H_

#include <ostream>
#include <string>
#include <vector>

#include "checks/run_report.h"

namespace rdmacheck {

// color=true adds ANSI colours (PASS green, WARN yellow, FAIL red, SKIP blue);
// color=false writes no escape sequence at all, and control characters inside
// the report's strings are always shown as "\xNN", never sent raw.
void RenderText(const RunReport& rep, std::ostream& out, bool color);

// --timing: where the run's time went, one phase per line, then the checks
// slowest first (results may be empty: a capture has none).
//   timing: startup 0.012 s
//   timing: gather.sysfs rxe0 0.410 s
//   timing: check sge-page-crossing 2.013 s
std::string RenderTiming(const std::vector<Phase>& phases, const std::vector<Result>& results);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORT_TEXT_H_
