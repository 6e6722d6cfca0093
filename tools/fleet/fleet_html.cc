// RenderFleetHtml (tools/fleet/fleet_output.h): one page that opens from a
// ticket or a file share offline, so everything is inline and nothing runs.
#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checks/run_report.h"
#include "tools/fleet/fleet_output.h"
#include "util/html_escape.h"

namespace rdmacheck {
namespace {

constexpr char kStyle[] = R"(body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1d1d1f;max-width:80em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.4em 0 1.4em}
caption{text-align:left;font-weight:600;padding:.2em 0;white-space:nowrap}
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f2f2f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.odd td{background:#fdeaea}td.fail{color:#b00020;font-weight:600}
table.group{width:100%}table.group caption{white-space:normal}
pre{background:#f6f6f8;padding:.5em .8em;margin:0;white-space:pre-wrap}
svg{display:block;margin:.4em 0 1.4em}svg .bar{fill:#6e8fcf}svg .bar.odd{fill:#d64545}
svg text{font:11px system-ui,sans-serif;fill:#333}svg line{stroke:#888})";

// Every text of the page comes from the nodes' files.
std::string Esc(absl::string_view s) { return HtmlEscape(s); }

std::string Cell(absl::string_view text, absl::string_view cls = "") {
  return absl::StrCat("<td", cls.empty() ? "" : absl::StrCat(" class=\"", cls, "\""), ">", Esc(text), "</td>");
}

std::string Num(int n, bool fail = false) {
  return absl::StrCat("<td class=\"num", fail && n > 0 ? " fail" : "", "\">", n, "</td>");
}

void Inputs(const FleetReport& rep, std::string* out) {
  if (rep.unreadable.empty() && rep.duplicates.empty()) return;
  absl::StrAppend(out, "<h2 id=\"files\">Files left out</h2>\n<table id=\"files-left-out\"><thead><tr><th>file</th>"
                       "<th>why</th><th>problem</th></tr></thead><tbody>\n");
  for (const auto& [what, list] : {std::make_pair("unreadable", &rep.unreadable), std::make_pair("duplicate", &rep.duplicates)})
    for (const FileProblem& p : *list)
      absl::StrAppend(out, "<tr class=\"odd\">", Cell(p.file), Cell(what), Cell(p.message), "</tr>\n");
  absl::StrAppend(out, "</tbody></table>\n");
}

void Checks(const FleetReport& rep, std::string* out) {
  if (rep.checks.empty()) return;
  absl::StrAppend(out, "<h2 id=\"checks\">Checks</h2>\n<table id=\"checks-table\"><caption>verdicts of ",
                  rep.nodes_with_verdicts, " nodes (profiles carry none)</caption><thead><tr><th>check</th>"
                  "<th>PASS</th><th>WARN</th><th>FAIL</th><th>SKIP</th><th>FAIL on</th></tr></thead><tbody>\n");
  for (const CheckTally& t : rep.checks) {
    absl::StrAppend(out, "<tr", t.fail ? " class=\"odd\"" : "", " data-check=\"", Esc(t.id), "\">", Cell(t.id),
                    Num(t.pass), Num(t.warn), Num(t.fail, true), Num(t.skip),
                    Cell(FirstNames(t.failing, kMaxFailNames)), "</tr>\n");
  }
  absl::StrAppend(out, "</tbody></table>\n");
}

void Facts(const FleetReport& rep, std::string* out) {
  absl::StrAppend(out, "<h2 id=\"facts\">Facts that differ: ", rep.facts.size(), " of ", rep.facts_compared,
                  " compared</h2>\n");
  for (const FactFinding& f : rep.facts) {
    absl::StrAppend(out, "<table class=\"fact\" data-fact=\"", Esc(f.fact), "\"><caption>", Esc(FactCaption(f)),
                    "</caption><thead><tr><th>node</th><th>value</th></tr></thead><tbody>\n");
    for (const NodeValue& v : f.differ)
      absl::StrAppend(out, "<tr class=\"odd\" data-node=\"", Esc(v.node), "\">", Cell(v.node), Cell(v.value), "</tr>\n");
    absl::StrAppend(out, "</tbody></table>\n");
  }
}

void Figures(const FleetReport& rep, std::string* out) {
  if (rep.figures.empty()) return;
  absl::StrAppend(out, "<h2 id=\"figures\">Figures outside their peers</h2>\n");
  for (const FigureFinding& f : rep.figures) {
    absl::StrAppend(out, "<table class=\"figure\" data-figure=\"", Esc(f.figure), "\"><caption>", Esc(FigureCaption(f)),
                    "</caption><thead><tr><th>node</th><th>", Esc(f.figure), "</th></tr></thead><tbody>\n");
    for (const NodeNumber& v : f.outliers) {
      absl::StrAppend(out, "<tr class=\"odd\" data-node=\"", Esc(v.node), "\">", Cell(v.node),
                      Cell(FormatFigure(v.value), "num"), "</tr>\n");
    }
    absl::StrAppend(out, "</tbody></table>\n");
  }
}

void Groups(const FleetReport& rep, std::string* out) {
  absl::StrAppend(out, "<h2 id=\"groups\">Nodes by what is wrong</h2>\n");
  for (size_t i = 0; i < rep.groups.size(); ++i) {
    const NodeGroup& g = rep.groups[i];
    absl::StrAppend(out, "<table class=\"group\" data-group=\"", i + 1, "\"><caption>", g.nodes.size(),
                    g.nodes.size() == 1 ? " node: " : " nodes: ", Esc(absl::StrJoin(g.problems, "; ")),
                    "</caption><tbody>\n<tr><th>nodes</th>", Cell(absl::StrJoin(g.nodes, ", ")), "</tr>\n");
    for (const std::string& n : g.notes) absl::StrAppend(out, "<tr><th>note</th>", Cell(n), "</tr>\n");
    if (!g.remediation.empty())
      absl::StrAppend(out, "<tr><th>remediation</th><td><pre>", Esc(absl::StrJoin(g.remediation, "\n")), "</pre></td></tr>\n");
    absl::StrAppend(out, "</tbody></table>\n");
  }
  if (!rep.healthy.empty())
    absl::StrAppend(out, "<p id=\"healthy\">healthy: ", Esc(FirstNames(rep.healthy, kMaxListed)), "</p>\n");
}

struct Bin {
  std::string label;
  std::vector<std::string> nodes;
  bool odd = false;
};

// One bar per value when there are few (MTUs, rates), else ten of equal width.
std::vector<Bin> Bins(const Distribution& d) {
  std::set<double> distinct;
  for (const NodeNumber& v : d.values) distinct.insert(v.value);
  const std::set<std::string> odd(d.odd.begin(), d.odd.end());
  std::vector<Bin> bins;
  std::vector<double> lows;
  if (distinct.size() <= 12) {
    for (double x : distinct) {
      bins.push_back(Bin{FormatFigure(x), {}, false});
      lows.push_back(x);
    }
  } else {
    const double lo = *distinct.begin(), hi = *distinct.rbegin(), step = (hi - lo) / 10;
    for (int i = 0; i < 10; ++i) {
      bins.push_back(Bin{absl::StrCat(FormatFigure(lo + i * step), "-", FormatFigure(lo + (i + 1) * step)), {}, false});
      lows.push_back(lo + i * step);
    }
  }
  for (const NodeNumber& v : d.values) {
    // The last bin whose low end is at or below the value.
    size_t i = static_cast<size_t>(std::upper_bound(lows.begin(), lows.end(), v.value) - lows.begin());
    Bin& b = bins[i == 0 ? 0 : i - 1];
    b.nodes.push_back(v.node);
    b.odd = b.odd || odd.count(v.node) > 0;
  }
  return bins;
}

std::string Histogram(const Distribution& d) {
  const std::vector<Bin> bins = Bins(d);
  size_t most = 1;
  for (const Bin& b : bins) most = std::max(most, b.nodes.size());
  constexpr int kBar = 44, kGap = 12, kLeft = 10, kTop = 20, kPlot = 140;
  const int width = kLeft * 2 + static_cast<int>(bins.size()) * (kBar + kGap);
  const int height = kTop + kPlot + 40;
  // "symbol_error /s" names its unit already; "active_mtu" does not.
  const bool named = absl::EndsWith(d.figure, d.unit);
  const std::string title = absl::StrCat(d.figure, named ? "" : absl::StrCat(" (", d.unit, ")"),
                                         d.hardware.empty() ? "" : absl::StrCat(" on ", d.hardware),
                                         ": nodes per value");
  std::string s = absl::StrFormat(
      "<figure class=\"distribution\" data-figure=\"%s\"><figcaption>%s</figcaption>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
      "aria-label=\"%s\">\n",
      Esc(d.figure), Esc(title), width, height, width, height, Esc(title));
  for (size_t i = 0; i < bins.size(); ++i) {
    const Bin& b = bins[i];
    const int x = kLeft + static_cast<int>(i) * (kBar + kGap);
    const int h = b.nodes.empty() ? 0 : std::max(2, static_cast<int>(kPlot * b.nodes.size() / most));
    const int y = kTop + kPlot - h;
    absl::StrAppend(&s, absl::StrFormat("<rect class=\"bar%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\">"
                                        "<title>%s: %s</title></rect>\n",
                                        b.odd ? " odd" : "", x, y, kBar, h, Esc(b.label),
                                        Esc(FirstNames(b.nodes, kMaxListed))));
    absl::StrAppend(&s, absl::StrFormat("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x + kBar / 2,
                                        y - 4, static_cast<int>(b.nodes.size())));
    absl::StrAppend(&s, absl::StrFormat("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + kBar / 2,
                                        kTop + kPlot + 16, Esc(b.label)));
  }
  absl::StrAppend(&s, absl::StrFormat("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", kLeft / 2, kTop + kPlot,
                                      width - kLeft / 2, kTop + kPlot));
  absl::StrAppend(&s, "</svg></figure>\n");
  return s;
}

}  // namespace

std::string RenderFleetHtml(const FleetReport& rep) {
  const std::string title = absl::StrCat("rdmacheck fleet: ", rep.nodes, " nodes from ", rep.files, " files");
  std::string out = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", Esc(title),
                                 "</title>\n<style>", kStyle, "</style></head><body>\n<h1>", Esc(title), "</h1>\n",
                                 "<p id=\"summary\">", rep.odd, " odd, ", rep.healthy.size(), " healthy; ",
                                 rep.unreadable.size(), " unreadable, ", rep.duplicates.size(),
                                 " duplicate files left out. rdmacheck ", kToolVersion,
                                 "; what is compared: docs/fleet.md</p>\n");
  Inputs(rep, &out);
  if (rep.nodes > 0) {
    Checks(rep, &out);
    Facts(rep, &out);
    Figures(rep, &out);
    Groups(rep, &out);
    if (!rep.distributions.empty()) {
      absl::StrAppend(&out, "<h2 id=\"distributions\">Distributions</h2>\n");
      for (const Distribution& d : rep.distributions) absl::StrAppend(&out, Histogram(d));
    }
  }
  absl::StrAppend(&out, "</body></html>\n");
  return out;
}

}  // namespace rdmacheck
