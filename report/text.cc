#include "report/text.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "report/internal/text_util.h"

namespace rdmacheck {
namespace {

using report_internal::EvidenceLine;
using report_internal::FormatSeconds;
using report_internal::TerminalSafe;
using report_internal::WrapLines;

// Evidence sits under the id, past the "[FAIL]" tag; commands in the
// remediation section are indented 4, as in a shell snippet to copy.
constexpr absl::string_view kIndent = "      ";
constexpr absl::string_view kCommandIndent = "    ";
constexpr int kWidth = 80;

constexpr absl::string_view kReset = "\033[0m";

absl::string_view ColorOf(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "\033[32m";  // green
    case Verdict::kWarn: return "\033[33m";  // yellow
    case Verdict::kFail: return "\033[31m";  // red
    case Verdict::kSkip: return "\033[34m";  // blue
  }
  return "";
}

class Printer {
 public:
  Printer(std::ostream& out, bool color) : out_(out), color_(color) {}

  std::string Paint(Verdict v, absl::string_view s) const {
    if (!color_) return std::string(s);
    return absl::StrCat(ColorOf(v), s, kReset);
  }
  std::string Tag(Verdict v) const {
    return Paint(v, absl::StrCat("[", VerdictName(v), "]"));
  }

  // Writes first + text + suffix; a newline inside text continues on a new
  // line under `indent`, so a multi-line field never breaks the block.
  void Line(absl::string_view first, absl::string_view text, absl::string_view indent,
            absl::string_view suffix = "") {
    std::vector<absl::string_view> parts = absl::StrSplit(text, '\n');
    for (size_t i = 0; i < parts.size(); ++i) {
      out_ << (i == 0 ? first : indent) << TerminalSafe(parts[i]);
      if (i + 1 == parts.size()) out_ << suffix;
      out_ << '\n';
    }
  }

  // Prose: wrapped to the terminal width with a hanging indent.
  void Wrapped(absl::string_view first, absl::string_view text, absl::string_view indent) {
    const std::vector<std::string> lines =
        WrapLines(TerminalSafe(text), kWidth - static_cast<int>(first.size()));
    for (size_t i = 0; i < lines.size(); ++i) {
      out_ << (i == 0 ? first : indent) << lines[i] << '\n';
    }
  }

  void Header(const RunReport& rep) {
    std::vector<std::string> devices;
    for (const ReportDevice& d : rep.devices) devices.push_back(d.name);
    const auto or_unknown = [](const std::string& s) {
      return s.empty() ? std::string("(unknown)") : s;
    };
    Line("", absl::StrCat("== rdmacheck ", rep.tool_version, " on ", or_unknown(rep.host),
                          " | source ", or_unknown(rep.source), " | plan ",
                          or_unknown(rep.plan), " | devices ",
                          devices.empty() ? "none" : absl::StrJoin(devices, " "), " =="),
         "   ");
  }

  void Block(const Result& r) {
    const std::string first = absl::StrCat(Tag(r.verdict), " ", TerminalSafe(r.id), "  ");
    Line(first, r.title, kIndent);
    for (const Evidence& e : r.evidence) {
      // Mark the rows that made the verdict, so a long list shows its culprit.
      std::string mark;
      if (e.verdict == Verdict::kFail || e.verdict == Verdict::kWarn) {
        mark = absl::StrCat("  ", Paint(e.verdict, absl::StrCat("<- ", VerdictName(e.verdict))));
      }
      Line(kIndent, EvidenceLine(e), kIndent, mark);
    }
    for (const std::string& note : r.notes) {
      Wrapped(absl::StrCat(kIndent, "note: "), note, absl::StrCat(kIndent, "      "));
    }
    if (r.verdict == Verdict::kSkip || !r.skip_reason.empty()) {
      Line(absl::StrCat(kIndent, "skipped: "),
           r.skip_reason.empty() ? "(no reason given)" : r.skip_reason, kIndent);
    }
  }

  void Remediations(const RunReport& rep) {
    bool any = false;
    for (const Result& r : rep.results) {
      if (r.verdict != Verdict::kFail && r.verdict != Verdict::kWarn) continue;
      if (!any) out_ << "\n== Remediations ==\n";
      any = true;
      Line(absl::StrCat(Tag(r.verdict), " "), r.id, kCommandIndent);
      if (r.remediation.empty()) {
        out_ << kCommandIndent << "(no remediation given)\n";
      }
      for (const std::string& step : r.remediation) {
        Line(kCommandIndent, step, kCommandIndent);
      }
    }
  }

  void Summary(const RunReport& rep) {
    const auto count = [&](Verdict v, absl::string_view word) {
      const int n = rep.Count(v);
      std::string s = absl::StrCat(n, " ", word);
      return n > 0 ? Paint(v, s) : s;
    };
    const size_t total = rep.results.size();
    out_ << "\n== Summary: " << count(Verdict::kPass, "passed") << ", "
         << count(Verdict::kWarn, "warned") << ", " << count(Verdict::kFail, "failed") << ", "
         << count(Verdict::kSkip, "skipped") << " (" << total
         << (total == 1 ? " check, " : " checks, ") << FormatSeconds(rep.seconds, 2)
         << " s) ==\n";
  }

 private:
  std::ostream& out_;
  bool color_;
};

}  // namespace

void RenderText(const RunReport& rep, std::ostream& out, bool color) {
  Printer p(out, color);
  p.Header(rep);
  for (const Result& r : rep.results) p.Block(r);
  p.Remediations(rep);
  p.Summary(rep);
}

std::string RenderTiming(const std::vector<Phase>& phases, const std::vector<Result>& results) {
  std::string out;
  for (const Phase& p : phases) absl::StrAppend(&out, "timing: ", p.name, " ", FormatSeconds(p.seconds, 3), " s\n");
  std::vector<const Result*> slow;
  for (const Result& r : results) slow.push_back(&r);
  std::stable_sort(slow.begin(), slow.end(), [](const Result* a, const Result* b) { return a->seconds > b->seconds; });
  for (const Result* r : slow) absl::StrAppend(&out, "timing: check ", r->id, " ", FormatSeconds(r->seconds, 3), " s\n");
  return out;
}

}  // namespace rdmacheck
