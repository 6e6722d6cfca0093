#include "report/npd.h"

#include <algorithm>
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
struct Finding {
  std::string subject;  // "" when the title or a bare value says it all
  std::string actual;
};

Finding FindingOf(const Result& r) {
  for (const Evidence& e : r.evidence) {
    if (e.verdict != r.verdict) continue;
    if (e.subject.empty() || e.actual.empty()) return {"", e.subject + e.actual};
    return {e.subject, e.actual};
  }
  return {"", r.title};
}

// A subject cut shorter than this loses what it is about (device, port,
// counter): the end of the line is cut instead.
constexpr size_t kMinSubjectBytes = 20;

// prefix + finding + tail on one line. Only the finding is cut: the counts
// in the tail always show, and a short value survives a long subject
// ("mlx5_0 port 1 link_error_r...: +2 in 2.0 s (0.998/s)").
std::string Fit(absl::string_view prefix, const Finding& f, absl::string_view tail) {
  constexpr absl::string_view kSep = ": ";
  const std::string subject = SingleLine(f.subject), actual = SingleLine(f.actual);
  const size_t room = kNpdMaxLineBytes - std::min(kNpdMaxLineBytes, prefix.size() + tail.size());
  std::string body = subject.empty() ? actual : absl::StrCat(subject, kSep, actual);
  if (body.size() > room && !subject.empty() &&
      kMinSubjectBytes + kSep.size() + actual.size() <= room) {
    body = absl::StrCat(TruncateUtf8(subject, room - kSep.size() - actual.size(), kMarker), kSep,
                        actual);
  }
  // The final cut only matters for a prefix too long on its own (an odd id).
  return TruncateUtf8(absl::StrCat(prefix, TruncateUtf8(body, room, kMarker), tail),
                      kNpdMaxLineBytes, kMarker);
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
    s.line = Fit(absl::StrCat(VerdictName(worst->verdict), " ", SingleLine(worst->id), ": "),
                 FindingOf(*worst), OthersTail(rep, worst));
    return s;
  }
  const int passed = rep.Count(Verdict::kPass), skipped = rep.Count(Verdict::kSkip);
  if (s.exit_code == kExitNothingRan) {
    const std::string& why = rep.results.front().skip_reason;
    s.line = Fit(absl::StrCat("UNKNOWN: ", Checks(skipped), " skipped: "),
                 {"", why.empty() ? "(no reason given)" : why}, "");
    return s;
  }
  s.line = Fit("OK: ", {"", absl::StrCat(Checks(passed), " passed",
                                         skipped > 0 ? absl::StrCat(", ", skipped, " skipped") : "")},
               "");
  return s;
}

std::string NpdErrorLine(absl::string_view message) {
  return Fit("UNKNOWN: ", {"", std::string(message)}, "");
}

}  // namespace rdmacheck
