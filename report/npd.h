// NPD renderer: a run as a Kubernetes node-problem-detector custom plugin
// reports it (`rdmacheck --format=npd`): one line on stdout naming the worst
// finding, and an exit status NPD reads as OK, problem or unknown. The
// contract and the config that runs it: docs/output-formats.md, section NPD.
//
//   NpdStatus s = RenderNpd(rep);
//   std::cout << s.line << "\n";
//   return s.exit_code;   // 0 OK, 1 problem (a FAIL), 3 unknown (all SKIP)
//
//   FAIL firewall-4791: UDP 4791 in on va (rxe0) to 198.18.0.1: dropped... (+1 WARN)
//   WARN pcie: mlx5_0 PCIe 0000:3b:00.0 AER correctable errors: +3 (15 since boot)
//   OK: 12 checks passed, 7 skipped
//   UNKNOWN: 2 checks skipped: no RDMA device to look at (see device-present)
#ifndef RDMACHECK_REPORT_NPD_H_
#define RDMACHECK_REPORT_NPD_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "checks/run_report.h"

namespace rdmacheck {

// NPD's default max_output_length, which it applies in bytes: a longer line
// would be cut there, possibly inside a UTF-8 character.
inline constexpr size_t kNpdMaxLineBytes = 80;

struct NpdStatus {
  // One line of valid UTF-8, at most kNpdMaxLineBytes, without its newline;
  // cut with "..." when longer.
  std::string line;
  // ExitCodeFor(results): NPD takes 0 as OK, 1 as a problem and any other
  // code (3: every check SKIPped) as unknown.
  int exit_code = 0;
};

// The worst verdict first (FAIL, then WARN), the first such check in run
// order: "<VERDICT> <id>: <subject>: <actual>" of its first row with that
// verdict (its title when none has), then how many other checks FAILed and
// WARNed. A WARN-only run is exit 0 and still names its warning.
NpdStatus RenderNpd(const RunReport& rep);

// The line for a run that could not start (a bad plan, profile or flag):
// "UNKNOWN: <message>"; its exit code 2 is unknown to NPD as well.
std::string NpdErrorLine(absl::string_view message);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORT_NPD_H_
