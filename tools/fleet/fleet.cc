#include "tools/fleet/fleet.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "checks/exit_codes.h"

namespace rdmacheck {
namespace {

using Problems = std::map<std::string, std::vector<std::string>>;  // node -> what is wrong

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void TallyChecks(const FleetInput& in, FleetReport* rep) {
  std::map<std::string, CheckTally> by_id;
  for (const NodeSummary& n : in.nodes) {
    if (n.verdicts.empty()) continue;
    ++rep->nodes_with_verdicts;
    for (const auto& [id, v] : n.verdicts) {
      CheckTally& t = by_id[id];
      t.id = id;
      switch (v) {
        case Verdict::kPass: ++t.pass; break;
        case Verdict::kWarn: ++t.warn; break;
        case Verdict::kSkip: ++t.skip; break;
        case Verdict::kFail: ++t.fail; t.failing.push_back(n.name); break;
      }
    }
  }
  for (auto& [id, t] : by_id) {
    std::sort(t.failing.begin(), t.failing.end());
    rep->checks.push_back(std::move(t));
  }
}

void CompareFacts(const FleetInput& in, FleetReport* rep, Problems* problems) {
  // fact -> value -> nodes
  std::map<std::string, std::map<std::string, std::vector<std::string>>> seen;
  for (const NodeSummary& n : in.nodes)
    for (const auto& [fact, value] : n.facts) seen[fact][value].push_back(n.name);
  for (const auto& [fact, values] : seen) {
    FactFinding f;
    f.fact = fact;
    int top = 0, tied = 0;
    for (const auto& [value, nodes] : values) {
      f.nodes += static_cast<int>(nodes.size());
      const int c = static_cast<int>(nodes.size());
      if (c > top) {
        top = c;
        tied = 1;
        f.majority = value;
      } else if (c == top) {
        ++tied;
      }
    }
    if (f.nodes < 2) continue;  // nothing to compare it with
    ++rep->facts_compared;
    if (values.size() == 1) continue;
    if (tied > 1) f.majority.clear();
    f.majority_nodes = f.majority.empty() ? 0 : top;
    for (const auto& [value, nodes] : values) {
      if (value == f.majority) continue;
      for (const std::string& node : nodes) {
        f.differ.push_back(NodeValue{node, value});
        (*problems)[node].push_back(f.majority.empty() ? absl::StrCat(fact, " has no majority")
                                                       : absl::StrCat(fact, " is not ", f.majority));
      }
    }
    std::sort(f.differ.begin(), f.differ.end(),
              [](const NodeValue& a, const NodeValue& b) { return a.node < b.node; });
    rep->facts.push_back(std::move(f));
  }
  std::stable_sort(rep->facts.begin(), rep->facts.end(), [](const FactFinding& a, const FactFinding& b) {
    return absl::AsciiStrToLower(a.fact) < absl::AsciiStrToLower(b.fact);
  });
}

struct FigureKey {
  std::string name, hardware;
  bool operator<(const FigureKey& o) const { return std::tie(name, hardware) < std::tie(o.name, o.hardware); }
};

void JudgeFigures(const FleetInput& in, FleetReport* rep, Problems* problems) {
  std::map<FigureKey, std::pair<NodeFigure, std::vector<NodeNumber>>> seen;
  for (const NodeSummary& n : in.nodes) {
    for (const NodeFigure& f : n.figures) {
      auto& [first, values] = seen[FigureKey{f.name, f.hardware}];
      if (values.empty()) first = f;
      values.push_back(NodeNumber{n.name, f.value});
    }
  }
  std::vector<Distribution> drawn_only;
  for (const auto& [key, entry] : seen) {
    const auto& [fig, values] = entry;
    Distribution d{fig.name, fig.unit, fig.hardware, values, {}};
    std::sort(d.values.begin(), d.values.end(), [](const NodeNumber& a, const NodeNumber& b) { return a.node < b.node; });
    if (!fig.judged) {
      drawn_only.push_back(std::move(d));
      continue;
    }
    if (static_cast<int>(values.size()) < kMinPeers) continue;
    std::vector<double> v;
    for (const NodeNumber& x : values) v.push_back(x.value);
    FigureFinding f{fig.name, fig.unit, fig.hardware, fig.better, Median(v), static_cast<int>(values.size()), {}};
    for (const NodeNumber& x : values)
      if (IsOutlier(x.value, f.median, f.better)) f.outliers.push_back(x);
    if (f.outliers.empty()) continue;
    const bool lower = f.better == Better::kLower;
    std::sort(f.outliers.begin(), f.outliers.end(), [lower](const NodeNumber& a, const NodeNumber& b) {
      return lower ? a.value > b.value : a.value < b.value;
    });
    for (const NodeNumber& x : f.outliers) {
      (*problems)[x.node].push_back(
          absl::StrCat(f.figure, lower ? " above" : " below", " its peers (", f.hardware, ")"));
      d.odd.push_back(x.node);
    }
    rep->figures.push_back(std::move(f));
    rep->distributions.push_back(std::move(d));
  }
  // A figure drawn only (active_mtu) marks the nodes whose fact of that
  // name differs.
  for (Distribution& d : drawn_only) {
    for (const FactFinding& f : rep->facts)
      if (f.fact == d.figure)
        for (const NodeValue& nv : f.differ) d.odd.push_back(nv.node);
    rep->distributions.push_back(std::move(d));
  }
}

void GroupNodes(const FleetInput& in, const Problems& found, FleetReport* rep) {
  std::map<std::string, NodeGroup> by_key;
  for (const NodeSummary& n : in.nodes) {
    std::vector<std::string> problems;
    std::vector<const std::vector<std::string>*> remedies;
    for (const auto& [id, v] : n.verdicts) {
      if (v != Verdict::kFail) continue;
      problems.push_back(absl::StrCat("FAIL ", id));
      auto r = n.remediation.find(id);
      if (r != n.remediation.end()) remedies.push_back(&r->second);
    }
    if (auto it = found.find(n.name); it != found.end())
      problems.insert(problems.end(), it->second.begin(), it->second.end());
    if (problems.empty()) {
      rep->healthy.push_back(n.name);
      continue;
    }
    NodeGroup& g = by_key[absl::StrJoin(problems, "\n")];
    g.problems = problems;
    g.nodes.push_back(n.name);
    if (n.kind == NodeSummary::Kind::kProfile) {
      g.notes.push_back(absl::StrCat(n.name, " is a profile, facts only: `rdmacheck --profile ", n.file,
                                     " --plan PLAN` runs the checks on it"));
    }
    for (const std::vector<std::string>* lines : remedies)
      for (const std::string& l : *lines)
        if (std::find(g.remediation.begin(), g.remediation.end(), l) == g.remediation.end())
          g.remediation.push_back(l);
  }
  for (auto& [key, g] : by_key) {
    std::sort(g.nodes.begin(), g.nodes.end());
    rep->odd += static_cast<int>(g.nodes.size());
    rep->groups.push_back(std::move(g));
  }
  std::stable_sort(rep->groups.begin(), rep->groups.end(), [](const NodeGroup& a, const NodeGroup& b) {
    if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
    return a.nodes.front() < b.nodes.front();
  });
  std::sort(rep->healthy.begin(), rep->healthy.end());
}

}  // namespace

bool IsOutlier(double value, double median, Better better) {
  if (better == Better::kHigher) return value < kLowFactor * median;
  return value > kHighFactor * median && value > median;
}

FleetReport AnalyzeFleet(const FleetInput& in) {
  FleetReport rep;
  rep.files = in.files;
  rep.nodes = static_cast<int>(in.nodes.size());
  rep.unreadable = in.unreadable;
  rep.duplicates = in.duplicates;
  Problems problems;
  TallyChecks(in, &rep);
  CompareFacts(in, &rep, &problems);
  JudgeFigures(in, &rep, &problems);
  GroupNodes(in, problems, &rep);
  return rep;
}

int FleetExitCode(const FleetReport& rep) {
  if (rep.nodes == 0) return kExitUsage;
  const bool odd = !rep.groups.empty() || !rep.unreadable.empty() || !rep.duplicates.empty();
  return odd ? kExitFail : kExitOk;
}

}  // namespace rdmacheck
