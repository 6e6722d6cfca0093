// JUnit XML renderer, for CI systems (Jenkins, GitLab, GitHub test reporters).
// One <testsuite name="rdmacheck"> with the run's properties and one
// <testcase classname="rdmacheck" name="<check id>"> per check:
//   FAIL -> <failure message="<title>" type="FAIL"> with evidence and remediation
//   SKIP -> <skipped message="<reason>"/>
//   WARN, PASS -> a passing testcase; evidence (and for WARN the warning and its
//                 remediation) in <system-out>.
//
//   WriteFile(path, RenderJunit(rep));
#ifndef RDMACHECK_REPORT_JUNIT_H_
#define RDMACHECK_REPORT_JUNIT_H_

#include <string>

#include "checks/run_report.h"

namespace rdmacheck {

// Always well-formed XML 1.0 in UTF-8: markup characters are escaped,
// characters XML 1.0 forbids (C0 controls but tab/LF/CR, U+FFFE/U+FFFF) are
// shown as "\xNN", bytes that are not UTF-8 become U+FFFD.
std::string RenderJunit(const RunReport& rep);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORT_JUNIT_H_
