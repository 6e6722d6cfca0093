#include "report/npd.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checks/exit_codes.h"
#include "report/internal/text_util.h"

namespace rdmacheck {
namespace {

using report_internal::SingleLine;
using report_internal::TruncateUtf8;

constexpr absl::string_view kMarker = "...";

// What the line says about the worst check: its first row of that verdict,
// as the text report would show the culprit, or its title.
std::string Finding(const Result& r) {
  for (const Evidence& e : r.evidence) {
    if (e.verdict != r.verdict) continue;
    if (e.subject.empty()) return e.actual;
    if (e.actual.empty()) return e.subject;
    return absl::StrCat(e.subject, ": ", e.actual);
  }
  return r.title;
}

// Head and tail on one line; only the head is cut, so the counts after it
// always show.
std::string Fit(absl::string_view head, absl::string_view tail) {
  const std::string h = SingleLine(head);
  return absl::StrCat(TruncateUtf8(h, kNpdMaxLineBytes - tail.size(), kMarker), tail);
}

std::string OthersTail(const RunReport& rep, const Result* named) {
  int fails = 0, warns = 0;
  for (const Result& r : rep.results) {
    if (&r == named) continue;
    fails += r.verdict == Verdict::kFail;
    warns += r.verdict == Verdict::kWarn;
  }
  std::vector<std::string> parts;
  if (fails > 0) parts.push_back(absl::StrCat(fails, " FAIL"));
  if (warns > 0) parts.push_back(absl::StrCat(warns, " WARN"));
  if (parts.empty()) return "";
  return absl::StrCat(" (+", absl::StrJoin(parts, ", "), ")");
}

std::string Checks(int n) { return absl::StrCat(n, n == 1 ? " check" : " checks"); }

}  // namespace

NpdStatus RenderNpd(const RunReport& rep) {
  NpdStatus s;
  s.exit_code = ExitCodeFor(rep.results);
  const Result* worst = nullptr;
  for (const Result& r : rep.results) {
    if (r.verdict != Verdict::kFail && r.verdict != Verdict::kWarn) continue;
    if (!worst || r.verdict > worst->verdict) worst = &r;
  }
  if (worst) {
    s.line = Fit(absl::StrCat(VerdictName(worst->verdict), " ", worst->id, ": ", Finding(*worst)),
                 OthersTail(rep, worst));
    return s;
  }
  const int passed = rep.Count(Verdict::kPass), skipped = rep.Count(Verdict::kSkip);
  if (s.exit_code == kExitNothingRan) {
    const std::string& why = rep.results.front().skip_reason;
    s.line = Fit(absl::StrCat("UNKNOWN: ", Checks(skipped), " skipped: ",
                              why.empty() ? "(no reason given)" : why),
                 "");
    return s;
  }
  s.line = Fit(absl::StrCat("OK: ", Checks(passed), " passed",
                            skipped > 0 ? absl::StrCat(", ", skipped, " skipped") : ""),
               "");
  return s;
}

std::string NpdErrorLine(absl::string_view message) {
  return Fit(absl::StrCat("UNKNOWN: ", message), "");
}

}  // namespace rdmacheck
