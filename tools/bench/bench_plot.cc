#include "tools/bench/bench_plot.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "util/html_escape.h"

namespace rdmacheck {

namespace {

constexpr int kPanelW = 330, kPanelH = 230, kCols = 3, kLeft = 52, kRight = 34, kTop = 30, kBottom = 44;
constexpr int kHeader = 34;

// 65536 -> "64K", 1048576 -> "1M": sizes that fit under their point.
std::string ShortBytes(double v) {
  const uint64_t b = static_cast<uint64_t>(v);
  if (b >= (1u << 20) && b % (1u << 20) == 0) return absl::StrCat(b >> 20, "M");
  if (b >= 1024 && b % 1024 == 0) return absl::StrCat(b >> 10, "K");
  return absl::StrCat(b);
}

struct Pt {
  std::string label;  // under the point
  std::string tip;    // in its tooltip
  double y = 0;
  bool is_default = false;
};

double Figure(const BenchResult& r, bool gbits) {
  if (r.settings.mode == BenchMode::kLatency) return r.lat.median_us;
  return gbits ? r.bw_avg_gbps : r.bw_avg_gbps * 1e9 / 8 / (1 << 20);
}

// A round step for about four gridlines up to `top`.
double Step(double top) {
  if (top <= 0) return 1;
  double raw = top / 4, mag = 1;
  while (mag * 10 <= raw) mag *= 10;
  while (mag > raw) mag /= 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (mag * m >= raw) return mag * m;
  return mag * 10;
}

std::string Panel(int ox, int oy, const std::string& dim, const std::vector<Pt>& pts, const std::string& unit) {
  std::string s = absl::StrFormat("<g class=\"panel\" data-dimension=\"%s\" transform=\"translate(%d,%d)\">\n",
                                  HtmlEscape(dim), ox, oy);
  absl::StrAppend(&s, absl::StrFormat("<text class=\"title\" x=\"%d\" y=\"18\">%s</text>\n", kLeft,
                                      HtmlEscape(absl::StrCat(dim, " (", unit, ")"))));
  const int pw = kPanelW - kLeft - kRight, ph = kPanelH - kTop - kBottom;
  if (pts.empty()) {
    absl::StrAppend(&s, absl::StrFormat("<text x=\"%d\" y=\"%d\">not measured</text>\n</g>\n", kLeft + 10,
                                        kTop + ph / 2));
    return s;
  }
  double top = 0;
  for (const Pt& p : pts) top = std::max(top, p.y);
  const double step = Step(top * 1.1);
  const double ymax = step * std::max(1.0, std::ceil(top * 1.1 / step));
  for (double v = 0; v <= ymax * 1.0001; v += step) {
    const int y = kTop + ph - static_cast<int>(ph * v / ymax);
    absl::StrAppend(&s, absl::StrFormat("<line class=\"grid\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                                        "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%g</text>\n",
                                        kLeft, y, kLeft + pw, y, kLeft - 4, y + 4, v));
  }
  auto px = [&](size_t i) {
    return pts.size() == 1 ? kLeft + pw / 2 : kLeft + static_cast<int>(pw * i / (pts.size() - 1));
  };
  auto py = [&](double v) { return kTop + ph - static_cast<int>(ph * v / ymax); };
  std::string line;
  for (size_t i = 0; i < pts.size(); ++i) absl::StrAppend(&line, i ? " " : "", px(i), ",", py(pts[i].y));
  absl::StrAppend(&s, absl::StrFormat("<polyline class=\"curve\" points=\"%s\"/>\n", line));
  for (size_t i = 0; i < pts.size(); ++i) {
    absl::StrAppend(&s, absl::StrFormat(
                            "<circle class=\"point%s\" cx=\"%d\" cy=\"%d\" r=\"%d\"><title>%s: %.3f %s%s</title>"
                            "</circle>\n",
                            pts[i].is_default ? " default" : "", px(i), py(pts[i].y), pts[i].is_default ? 5 : 3,
                            HtmlEscape(pts[i].tip), pts[i].y, HtmlEscape(unit),
                            pts[i].is_default ? " (default)" : ""));
    absl::StrAppend(&s, absl::StrFormat("<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                                        px(i), kTop + ph + 16, HtmlEscape(pts[i].label)));
  }
  absl::StrAppend(&s, "</g>\n");
  return s;
}

}  // namespace

std::string SweepSvg(const SweepResult& sw, bool gbits, const std::string& title) {
  std::vector<SweepDim> order;
  std::map<SweepDim, std::vector<Pt>> by;
  bool lat = false;
  for (const SweepRow& r : sw.rows) {
    if (!by.count(r.point.dim)) {
      order.push_back(r.point.dim);
      by[r.point.dim];
    }
    if (!r.result || r.result->end != BenchEnd::kOk || r.result->messages == 0) continue;
    lat = r.result->settings.mode == BenchMode::kLatency;
    std::string label = r.point.dim == SweepDim::kPin    ? (r.point.x > 0 ? "pinned" : "not pinned")
                        : r.point.dim == SweepDim::kSize ? ShortBytes(r.point.x)
                                                          : r.point.value;
    by[r.point.dim].push_back({label, r.point.value, Figure(*r.result, gbits), r.point.is_default});
  }
  const std::string unit = lat ? "median us" : gbits ? "Gb/s" : "MB/s";
  const int n = std::max<int>(1, static_cast<int>(order.size()));
  const int cols = std::min(n, kCols), rows = (n + kCols - 1) / kCols;
  const int w = cols * kPanelW, h = kHeader + rows * kPanelH;
  std::string s = absl::StrFormat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
      "aria-label=\"%s\">\n"
      "<style>text{font:11px sans-serif;fill:#333}.title{font-weight:bold}.heading{font-size:14px;"
      "font-weight:bold}.grid{stroke:#ddd}.curve{fill:none;stroke:#3b6fc4;stroke-width:2}.point{fill:#3b6fc4}"
      ".point.default{fill:#fff;stroke:#d64545;stroke-width:2}</style>\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
      "<text class=\"heading\" x=\"12\" y=\"22\">%s</text>\n",
      w, h, w, h, HtmlEscape(title), HtmlEscape(title));
  for (size_t i = 0; i < order.size(); ++i) {
    const int ox = static_cast<int>(i % kCols) * kPanelW, oy = kHeader + static_cast<int>(i / kCols) * kPanelH;
    absl::StrAppend(&s, Panel(ox, oy, std::string(SweepDimName(order[i])), by[order[i]], unit));
  }
  absl::StrAppend(&s, "</svg>\n");
  return s;
}

}  // namespace rdmacheck
