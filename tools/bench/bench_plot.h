// SweepSvg: a chart of each sweep dimension, side by side in one SVG file,
// since a curve reads faster than fifteen rows: the figure (bandwidth, or
// the median latency) against the dimension's values, the default point
// ringed, each point's figure in its tooltip.
//
//   WriteOutputFile(path, SweepSvg(sweep, /*gbits=*/true));
#ifndef RDMACHECK_TOOLS_BENCH_BENCH_PLOT_H_
#define RDMACHECK_TOOLS_BENCH_BENCH_PLOT_H_

#include <string>

#include "acts/bench/sweep.h"

namespace rdmacheck {

// A standalone SVG document (UTF-8). Points that were not measured are left
// out of their curve; a dimension with no measured point says so.
std::string SweepSvg(const SweepResult& sw, bool gbits, const std::string& title);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_BENCH_BENCH_PLOT_H_
