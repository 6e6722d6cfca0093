#include "report/junit.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/text_util.h"

namespace rdmacheck {
namespace {

using report_internal::EvidenceLine;
using report_internal::FormatSeconds;
using report_internal::XmlEscape;

constexpr char kClassName[] = "rdmacheck";

std::string Attr(absl::string_view name, absl::string_view value) {
  return absl::StrCat(" ", name, "=\"", XmlEscape(value, /*attribute=*/true), "\"");
}
std::string Time(double s) { return FormatSeconds(s, 6); }

// The body of <failure> / <system-out>: the same lines the text report shows
// for the check, so a CI page reads like the terminal.
std::string Details(const Result& r, bool with_remediation) {
  std::string s = absl::StrCat(VerdictName(r.verdict), " ", r.id, ": ", r.title, "\n");
  for (const Evidence& e : r.evidence) {
    absl::StrAppend(&s, EvidenceLine(e));
    if (e.verdict == Verdict::kFail || e.verdict == Verdict::kWarn) {
      absl::StrAppend(&s, "  <- ", VerdictName(e.verdict));
    }
    s += '\n';
  }
  for (const std::string& note : r.notes) absl::StrAppend(&s, "note: ", note, "\n");
  if (with_remediation && !r.remediation.empty()) {
    s += "Remediation:\n";
    for (const std::string& step : r.remediation) absl::StrAppend(&s, "    ", step, "\n");
  }
  return s;
}

void AppendTestcase(const Result& r, std::string* x) {
  absl::StrAppend(x, "    <testcase", Attr("classname", kClassName), Attr("name", r.id),
                  Attr("time", Time(r.seconds)), ">\n");
  switch (r.verdict) {
    case Verdict::kFail:
      absl::StrAppend(x, "      <failure", Attr("message", r.title), Attr("type", "FAIL"), ">",
                      XmlEscape(Details(r, /*with_remediation=*/true), false),
                      "</failure>\n");
      break;
    case Verdict::kSkip:
      absl::StrAppend(x, "      <skipped", Attr("message", r.skip_reason), "/>\n");
      if (!r.evidence.empty() || !r.notes.empty()) {
        absl::StrAppend(x, "      <system-out>", XmlEscape(Details(r, false), false),
                        "</system-out>\n");
      }
      break;
    case Verdict::kWarn:
    case Verdict::kPass:
      absl::StrAppend(x, "      <system-out>",
                      XmlEscape(Details(r, r.verdict == Verdict::kWarn), false),
                      "</system-out>\n");
      break;
  }
  absl::StrAppend(x, "    </testcase>\n");
}

}  // namespace

std::string RenderJunit(const RunReport& rep) {
  const std::string tests = absl::StrCat(rep.results.size());
  const std::string failures = absl::StrCat(rep.Count(Verdict::kFail));
  const std::string skipped = absl::StrCat(rep.Count(Verdict::kSkip));
  const std::string time = Time(rep.seconds);

  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&x, "<testsuites", Attr("name", kClassName), Attr("tests", tests),
                  Attr("failures", failures), Attr("errors", "0"), Attr("skipped", skipped),
                  Attr("time", time), ">\n");
  absl::StrAppend(&x, "  <testsuite", Attr("name", kClassName), Attr("tests", tests),
                  Attr("failures", failures), Attr("skipped", skipped), Attr("errors", "0"),
                  Attr("time", time), Attr("timestamp", rep.started_at),
                  Attr("hostname", rep.host), ">\n");
  absl::StrAppend(&x, "    <properties>\n");
  const auto prop = [&](absl::string_view name, absl::string_view value) {
    absl::StrAppend(&x, "      <property", Attr("name", name), Attr("value", value), "/>\n");
  };
  prop("tool_version", rep.tool_version);
  prop("source", rep.source);
  prop("plan", rep.plan);
  prop("kernel", rep.kernel);
  for (const ReportDevice& d : rep.devices) {
    prop("device", absl::StrCat(d.name, " driver=", d.driver, " fw_ver=", d.fw_ver,
                                " node_guid=", d.node_guid));
  }
  absl::StrAppend(&x, "    </properties>\n");
  for (const Result& r : rep.results) AppendTestcase(r, &x);
  absl::StrAppend(&x, "  </testsuite>\n</testsuites>\n");
  return x;
}

}  // namespace rdmacheck
