#include "tools/fleet/fleet_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checks/run_report.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {
namespace {

using Json = nlohmann::ordered_json;

std::string Plural(int n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string Heading(const FleetReport& rep) {
  return absl::StrCat("== rdmacheck fleet: ", Plural(rep.nodes, "node", "nodes"), " from ",
                      Plural(rep.files, "file", "files"), " ==\n");
}

void TextInputs(const FleetReport& rep, std::string* out) {
  for (const FileProblem& p : rep.unreadable) absl::StrAppend(out, "unreadable: ", p.message, "\n");
  for (const FileProblem& p : rep.duplicates) absl::StrAppend(out, "duplicate: ", p.message, "\n");
}

void TextChecks(const FleetReport& rep, std::string* out) {
  if (rep.checks.empty()) return;
  const int profiles = rep.nodes - rep.nodes_with_verdicts;
  absl::StrAppend(out, "\n== Checks: verdicts of ", Plural(rep.nodes_with_verdicts, "node", "nodes"),
                  profiles ? absl::StrCat(" (", Plural(profiles, "profile carries", "profiles carry"), " none)") : "",
                  " ==\n");
  size_t w = 5;
  for (const CheckTally& t : rep.checks) w = std::max(w, t.id.size());
  absl::StrAppend(out, absl::StrFormat("%-*s  PASS  WARN  FAIL  SKIP  FAIL on\n", static_cast<int>(w), "check"));
  for (const CheckTally& t : rep.checks) {
    std::string line = absl::StrFormat("%-*s  %4d  %4d  %4d  %4d", static_cast<int>(w), t.id, t.pass, t.warn,
                                       t.fail, t.skip);
    if (!t.failing.empty()) absl::StrAppend(&line, "  ", FirstNames(t.failing, kMaxFailNames));
    absl::StrAppend(out, line, "\n");
  }
}

// "    gpu-node03  1500" per node, the first kMaxListed.
void TextNodes(const std::vector<std::pair<std::string, std::string>>& rows, std::string* out) {
  size_t w = 0;
  for (const auto& [node, value] : rows) w = std::max(w, node.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<int>(i) == kMaxListed) {
      absl::StrAppend(out, "    +", rows.size() - i, " more (--format=json lists every node)\n");
      break;
    }
    absl::StrAppend(out, absl::StrFormat("    %-*s  %s\n", static_cast<int>(w), rows[i].first, rows[i].second));
  }
}

void TextFacts(const FleetReport& rep, std::string* out) {
  absl::StrAppend(out, "\n== Facts that differ: ", rep.facts.size(), " of ", rep.facts_compared, " compared ==\n");
  for (const FactFinding& f : rep.facts) {
    absl::StrAppend(out, FactCaption(f), "\n");
    std::vector<std::pair<std::string, std::string>> rows;
    for (const NodeValue& v : f.differ) rows.emplace_back(v.node, v.value);
    TextNodes(rows, out);
  }
}

void TextFigures(const FleetReport& rep, std::string* out) {
  if (rep.figures.empty()) return;
  absl::StrAppend(out, "\n== Figures outside their peers ==\n");
  for (const FigureFinding& f : rep.figures) {
    absl::StrAppend(out, FigureCaption(f), "\n");
    std::vector<std::pair<std::string, std::string>> rows;
    for (const NodeNumber& v : f.outliers) rows.emplace_back(v.node, FormatFigure(v.value));
    TextNodes(rows, out);
  }
}

void TextGroups(const FleetReport& rep, std::string* out) {
  absl::StrAppend(out, "\n== Nodes by what is wrong: ", Plural(static_cast<int>(rep.groups.size()), "group", "groups"),
                  " ==\n");
  for (const NodeGroup& g : rep.groups) {
    absl::StrAppend(out, "[", Plural(static_cast<int>(g.nodes.size()), "node", "nodes"), "] ",
                    absl::StrJoin(g.problems, "; "), "\n    nodes: ", absl::StrJoin(g.nodes, ", "), "\n");
    for (const std::string& n : g.notes) absl::StrAppend(out, "    note: ", n, "\n");
    if (g.remediation.empty()) continue;
    absl::StrAppend(out, "    remediation:\n");
    for (const std::string& l : g.remediation) absl::StrAppend(out, "      ", l, "\n");
  }
  if (!rep.healthy.empty()) absl::StrAppend(out, "healthy: ", FirstNames(rep.healthy, kMaxListed), "\n");
}

std::string Summary(const FleetReport& rep) {
  std::string s = absl::StrCat("== Summary: ", Plural(rep.nodes, "node", "nodes"), ", ", rep.odd, " odd, ",
                               rep.healthy.size(), " healthy");
  if (!rep.unreadable.empty()) absl::StrAppend(&s, "; ", Plural(static_cast<int>(rep.unreadable.size()), "file", "files"), " unreadable");
  if (!rep.duplicates.empty()) absl::StrAppend(&s, "; ", Plural(static_cast<int>(rep.duplicates.size()), "duplicate", "duplicates"), " left out");
  return absl::StrCat(s, " ==\n");
}

Json Strings(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const std::string& s : v) a.push_back(s);
  return a;
}

Json Problems(const std::vector<FileProblem>& v) {
  Json a = Json::array();
  for (const FileProblem& p : v) a.push_back(Json{{"file", p.file}, {"message", p.message}});
  return a;
}

Json Numbers(const std::vector<NodeNumber>& v) {
  Json a = Json::array();
  for (const NodeNumber& n : v) a.push_back(Json{{"node", n.node}, {"value", n.value}});
  return a;
}

}  // namespace

std::string FormatFigure(double v) {
  if (v >= 100 || v <= -100) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.3g", v);
}

std::string FirstNames(const std::vector<std::string>& names, int max) {
  const size_t n = std::min(names.size(), static_cast<size_t>(max));
  std::string s = absl::StrJoin(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(n), ", ");
  if (names.size() > n) absl::StrAppend(&s, " +", names.size() - n, " more");
  return s;
}

std::string FactCaption(const FactFinding& f) {
  if (f.majority.empty()) return absl::StrCat(f.fact, ": no majority among ", f.nodes, " nodes");
  return absl::StrCat(f.fact, ": ", f.majority_nodes, " of ", f.nodes, " nodes ", f.majority);
}

std::string FigureCaption(const FigureFinding& f) {
  const bool lower = f.better == Better::kLower;
  return absl::StrCat(f.figure, " on ", f.hardware, ": median ", FormatFigure(f.median), " over ", f.nodes,
                      " nodes; odd ",
                      lower ? absl::StrCat("above ", FormatFigure(kHighFactor)) : absl::StrCat("below ", FormatFigure(kLowFactor)),
                      " x the median (", lower ? "lower" : "higher", " is better)");
}

std::string RenderFleetText(const FleetReport& rep) {
  std::string out = Heading(rep);
  TextInputs(rep, &out);
  if (rep.nodes > 0) {
    TextChecks(rep, &out);
    TextFacts(rep, &out);
    TextFigures(rep, &out);
    TextGroups(rep, &out);
  }
  absl::StrAppend(&out, "\n", Summary(rep));
  return out;
}

std::string RenderFleetJson(const FleetReport& rep) {
  Json checks = Json::array();
  for (const CheckTally& t : rep.checks) {
    checks.push_back(Json{{"id", t.id}, {"pass", t.pass}, {"warn", t.warn}, {"fail", t.fail}, {"skip", t.skip},
                          {"failing", Strings(t.failing)}});
  }
  Json facts = Json::array();
  for (const FactFinding& f : rep.facts) {
    Json differ = Json::array();
    for (const NodeValue& v : f.differ) differ.push_back(Json{{"node", v.node}, {"value", v.value}});
    facts.push_back(Json{{"fact", f.fact},
                         {"majority", f.majority.empty() ? Json() : Json(f.majority)},
                         {"majority_nodes", f.majority_nodes},
                         {"nodes", f.nodes},
                         {"differ", std::move(differ)}});
  }
  Json figures = Json::array();
  for (const FigureFinding& f : rep.figures) {
    figures.push_back(Json{{"figure", f.figure},
                           {"unit", f.unit},
                           {"hardware", f.hardware},
                           {"better", f.better == Better::kLower ? "lower" : "higher"},
                           {"median", f.median},
                           {"nodes", f.nodes},
                           {"outliers", Numbers(f.outliers)}});
  }
  Json groups = Json::array();
  for (const NodeGroup& g : rep.groups) {
    groups.push_back(Json{{"problems", Strings(g.problems)},
                          {"nodes", Strings(g.nodes)},
                          {"remediation", Strings(g.remediation)},
                          {"notes", Strings(g.notes)}});
  }
  Json j;
  j["schema"] = kFleetSchema;
  j["tool_version"] = kToolVersion;
  j["files"] = rep.files;
  j["nodes"] = rep.nodes;
  j["nodes_with_verdicts"] = rep.nodes_with_verdicts;
  j["unreadable"] = Problems(rep.unreadable);
  j["duplicates"] = Problems(rep.duplicates);
  j["checks"] = std::move(checks);
  j["facts_compared"] = rep.facts_compared;
  j["facts"] = std::move(facts);
  j["figures"] = std::move(figures);
  j["groups"] = std::move(groups);
  j["healthy"] = Strings(rep.healthy);
  j["exit"] = FleetExitCode(rep);
  // Node names and remediation come from the nodes' files: never throw on
  // bytes that are not UTF-8.
  return j.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

}  // namespace rdmacheck
