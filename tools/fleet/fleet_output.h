// The renderings of a FleetReport: text for people (the default), JSON for
// machines (schema "rdmacheck.fleet/1", docs/fleet.md) and one
// self-contained HTML page (inline CSS and SVG, no script, nothing
// fetched). They print what AnalyzeFleet decided.
//
//   std::cout << RenderFleetText(rep);
//   WriteFile("fleet.html", RenderFleetHtml(rep));
#ifndef RDMACHECK_TOOLS_FLEET_FLEET_OUTPUT_H_
#define RDMACHECK_TOOLS_FLEET_FLEET_OUTPUT_H_

#include <string>

#include "tools/fleet/fleet.h"

namespace rdmacheck {

inline constexpr char kFleetSchema[] = "rdmacheck.fleet/1";

// In text and HTML, a check names its first kMaxFailNames failing nodes,
// then "+N more"; text lists kMaxListed nodes per fact or figure, both the
// first kMaxListed healthy ones. A group lists all its nodes (they are what
// to fix) and JSON every node everywhere.
inline constexpr int kMaxFailNames = 5;
inline constexpr int kMaxListed = 20;

std::string RenderFleetText(const FleetReport& rep);
std::string RenderFleetJson(const FleetReport& rep);
std::string RenderFleetHtml(const FleetReport& rep);

// 58.9, 0.998, 18, 4096: three significant digits, whole numbers from 100 up.
std::string FormatFigure(double v);

// "a, b, c, d, e +3 more" for the first `max` names.
std::string FirstNames(const std::vector<std::string>& names, int max);

// The headings of a finding, in text and HTML alike:
// "netdev MTU: 4 of 5 nodes 9000", "symbol_error /s on mlx5 part 4123:
// median 0 over 5 nodes; odd above 10 x the median (lower is better)".
std::string FactCaption(const FactFinding& f);
std::string FigureCaption(const FigureFinding& f);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_FLEET_FLEET_OUTPUT_H_
