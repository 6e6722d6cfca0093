// How `rdmacheck bench` prints what it measured: perftest's tables for one
// run (so the figures sit beside ib_write_bw's and ib_write_lat's), a table
// per sweep dimension, the advice, JSON and CSV for machines, and an SVG
// chart of each sweep (tools/bench/bench_plot.h).
//
//   out << RunTable(result, /*gbits=*/true);
//   out << SweepTable(sweep, true) << AdviceText(advice);
//   out << SweepJson(sweep, &advice).dump(2);
#ifndef RDMACHECK_TOOLS_BENCH_BENCH_OUTPUT_H_
#define RDMACHECK_TOOLS_BENCH_BENCH_OUTPUT_H_

#include <string>

#include "acts/bench/sweep.h"
#include "acts/bench_types.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

// The header (devices, GIDs, QPs, MTU, settings) and the result line of
// perftest's ib_*_bw ("#bytes #iterations BW peak BW average MsgRate") or
// ib_*_lat ("t_min t_max t_typical t_avg t_stdev 99% 99.9%"); gbits:
// Gb/sec as --report_gbits, else MB/sec. A run that ended early says how.
std::string RunTable(const BenchResult& r, bool gbits);

// One line per point, grouped by dimension: value, figure, messages,
// seconds, stable or not; then the sweep's notes.
std::string SweepTable(const SweepResult& sw, bool gbits);

// The advice's lines, under a heading.
std::string AdviceText(const Advice& a);

// Machine-readable forms. JSON: every field of the result(s); CSV: one row
// per run with a header line.
nlohmann::json RunJson(const BenchResult& r);
nlohmann::json SweepJson(const SweepResult& sw, const Advice* advice);
std::string RunCsv(const BenchResult& r);
std::string SweepCsv(const SweepResult& sw);

// "-s 65536 -q 1 -l 1 --cq-mod 1 -t 128 -m 4096": the settings as flags.
std::string SettingsFlags(const BenchSettings& s);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_BENCH_BENCH_OUTPUT_H_
