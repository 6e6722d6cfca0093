#include "tools/diag/explain_output.h"

#include <string>
#include <vector>

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
  const std::vector<Finding>& all = explainer.findings();
  for (size_t fi = 0; fi < all.size(); ++fi) {
    const Finding& f = all[fi];
    if (f.grouped_under >= 0) continue;  // shown under its root
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
        << "\n";
    bool header = false;
    for (const Finding& g : all) {
      if (g.grouped_under != static_cast<int>(fi)) continue;
      if (!header) {
        out << "  followed by (consequences of the above, not separate causes):\n";
        header = true;
      }
      out << "    " << g.rule->id << "  x" << g.count << "  " << Span(g) << ": "
          << g.first_line << "\n";
    }
    out << "\n";
  }
  if (!explainer.unexplained().empty()) {
    const int64_t n = st.unexplained_lines;
    out << "[UNEXPLAINED] " << n << " line" << (n == 1 ? " reads" : "s read")
        << " like an error that no rule knows";
    if (static_cast<size_t>(n) > explainer.unexplained().size()) {
      out << " (the first " << explainer.unexplained().size() << ")";
    }
    out << ":\n";
    for (const UnexplainedLine& u : explainer.unexplained()) {
      out << "  " << Where(u.at) << ": " << u.text << "\n";
    }
    out << "  (no diagnosis for these: search the message in the stack's own "
           "documentation; docs/explain.md says how to add a rule)\n\n";
  }
  const size_t roots = explainer.root_findings();
  out << "explain: " << roots << " finding" << (roots == 1 ? "" : "s");
  if (roots != all.size()) {
    out << " (and " << all.size() - roots << " follow-on finding"
        << (all.size() - roots == 1 ? "" : "s") << " grouped under them)";
  }
  out << " from " << st.matched_lines << " matching line"
      << (st.matched_lines == 1 ? "" : "s") << " in " << st.lines << " lines";
  if (st.truncated_lines > 0) {
    out << "; " << st.truncated_lines << " line"
        << (st.truncated_lines == 1 ? " was" : "s were")
        << " over the length cap and cut";
  }
  if (st.dropped_findings > 0) {
    out << "; " << st.dropped_findings
        << " matches dropped (too many distinct findings)";
  }
  if (st.unexplained_lines > 0) {
    out << "; " << st.unexplained_lines << " error-like line"
        << (st.unexplained_lines == 1 ? "" : "s") << " unexplained";
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
        {"grouped_under", f.grouped_under < 0 ? nlohmann::json(nullptr)
                                              : nlohmann::json(f.grouped_under)},
    });
  }
  nlohmann::json unexplained = nlohmann::json::array();
  for (const UnexplainedLine& u : explainer.unexplained()) {
    nlohmann::json at = Position(u.at);
    at["text"] = u.text;
    unexplained.push_back(at);
  }
  nlohmann::json doc = {
      {"schema", "rdmacheck.explain/1"},
      {"sources", st.sources},
      {"lines", st.lines},
      {"bytes", st.bytes},
      {"matched_lines", st.matched_lines},
      {"truncated_lines", st.truncated_lines},
      {"dropped_findings", st.dropped_findings},
      {"root_findings", explainer.root_findings()},
      {"findings", findings},
      {"unexplained_lines", st.unexplained_lines},
      {"unexplained", unexplained},
  };
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
      << "\n";
}

}  // namespace rdmacheck
