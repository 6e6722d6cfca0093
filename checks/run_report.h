// RunReport: everything a renderer needs about one run. Renderers
// (report/text.h, report/json.h, report/junit.h) make no decisions: they
// print what the checks decided.
//
//   RunReport rep = MakeRunReport(view, plan, results);
//   RenderText(rep, std::cout, /*color=*/isatty(1));
#ifndef RDMACHECK_CHECKS_RUN_REPORT_H_
#define RDMACHECK_CHECKS_RUN_REPORT_H_

#include <string>
#include <vector>

#include "checks/check.h"
#include "util/phase_log.h"

namespace rdmacheck {

// The version every output names; bump with each release.
inline constexpr char kToolVersion[] = "0.1.0";

// The schema of the JSON report (report/json.h) and of the support bundle
// (report/support_bundle.h), here below both their writers and their reader
// (tools/fleet). Bump when a field changes meaning or disappears; adding
// fields keeps them.
inline constexpr int kJsonSchemaVersion = 1;
inline constexpr char kSupportBundleSchema[] = "rdmacheck.report/1";

struct ReportDevice {
  std::string name;
  std::string driver;     // "" when unknown
  std::string fw_ver;     // "" when unknown
  std::string node_guid;  // "" when unknown
};

struct RunReport {
  std::string tool_version = kToolVersion;
  std::string host;        // hostname, "" when unknown
  std::string kernel;      // uname -r, "" when unknown
  std::string source;      // DeviceView::source: "live", "profile:<path>", ...
  std::string plan;        // plan path, or "<default>"
  std::string started_at;  // RFC 3339 UTC
  double seconds = 0;      // the checks, from the first's start to the last's end
  // Where the run's time went, in order: startup (exec to main), the
  // gather's parts or the profile, the plan, the checks (their sum is the
  // run's wall time but for the report's rendering).
  std::vector<Phase> phases;
  std::vector<ReportDevice> devices;
  std::vector<Result> results;

  int Count(Verdict v) const;
};

// Exit code for a finished run (checks/exit_codes.h): 1 if any FAIL, 3 if
// every check SKIPped, else 0. Beside the report so that a renderer whose
// format carries the status (report/npd.h) says the same.
int ExitCodeFor(const std::vector<Result>& results);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_RUN_REPORT_H_
