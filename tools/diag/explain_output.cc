#include "tools/diag/explain_output.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {
namespace {

std::string Where(const LinePosition& p) {
  return absl::StrCat(p.source, ":", p.line);
}

std::string Span(const Finding& f) {
  if (f.count == 1) return Where(f.first);
  if (f.first.source == f.last.source) {
    return absl::StrCat(f.first.source, ":", f.first.line, "..", f.last.line);
  }
  return absl::StrCat(Where(f.first), " .. ", Where(f.last));
}

nlohmann::json Position(const LinePosition& p) {
  return {{"source", p.source}, {"line", p.line}};
}

}  // namespace

void RenderExplainText(const Explainer& explainer, std::ostream& out) {
  const ExplainStats& st = explainer.stats();
  for (const Finding& f : explainer.findings()) {
    out << "[FINDING] " << f.rule->id << "  x" << f.count << "  " << Span(f)
        << "\n";
    out << "  line: " << f.first_line << "\n";
    out << "  diagnosis: " << f.Diagnosis() << "\n";
    out << "  likely causes:\n";
    int i = 0;
    for (const std::string& c : f.Causes()) out << "    " << ++i << ". " << c << "\n";
    out << "  remediation:\n";
    for (const std::string& r : f.Remediation()) out << "    " << r << "\n";
    std::string confirm = f.ConfirmCommand();
    out << "  confirm with: "
        << (confirm.empty() ? "(no rdmacheck check covers this; use the commands above)"
                            : confirm)
        << "\n\n";
  }
  out << "explain: " << explainer.findings().size() << " finding"
      << (explainer.findings().size() == 1 ? "" : "s") << " from "
      << st.matched_lines << " matching line" << (st.matched_lines == 1 ? "" : "s")
      << " in " << st.lines << " lines";
  if (st.truncated_lines > 0) {
    out << "; " << st.truncated_lines << " line"
        << (st.truncated_lines == 1 ? " was" : "s were")
        << " over the length cap and cut";
  }
  if (st.dropped_findings > 0) {
    out << "; " << st.dropped_findings
        << " matches dropped (too many distinct findings)";
  }
  out << "\n";
}

void RenderExplainJson(const Explainer& explainer, std::ostream& out) {
  const ExplainStats& st = explainer.stats();
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : explainer.findings()) {
    nlohmann::json caps = nlohmann::json::object();
    for (const auto& [k, v] : f.captures) caps[k] = v;
    std::string confirm = f.ConfirmCommand();
    findings.push_back({
        {"rule", f.rule->id},
        {"family", f.rule->family},
        {"captures", caps},
        {"count", f.count},
        {"first", Position(f.first)},
        {"last", Position(f.last)},
        {"line", f.first_line},
        {"diagnosis", f.Diagnosis()},
        {"causes", f.Causes()},
        {"remediation", f.Remediation()},
        {"confirm_checks", f.rule->confirm},
        {"confirm_command", confirm.empty() ? nlohmann::json(nullptr)
                                            : nlohmann::json(confirm)},
    });
  }
  nlohmann::json doc = {
      {"schema", "rdmacheck.explain/1"},
      {"sources", st.sources},
      {"lines", st.lines},
      {"bytes", st.bytes},
      {"matched_lines", st.matched_lines},
      {"truncated_lines", st.truncated_lines},
      {"dropped_findings", st.dropped_findings},
      {"findings", findings},
  };
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
      << "\n";
}

}  // namespace rdmacheck
