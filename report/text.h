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

#include "checks/run_report.h"

namespace rdmacheck {

// color=true adds ANSI colours (PASS green, WARN yellow, FAIL red, SKIP blue);
// color=false writes no escape sequence at all, and control characters inside
// the report's strings are always shown as "\xNN", never sent raw.
void RenderText(const RunReport& rep, std::ostream& out, bool color);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORT_TEXT_H_
