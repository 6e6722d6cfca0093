// The tuning sweep: the dimensions a Soft-RoCE (or any RDMA) node is tuned
// along, the points measured on each, and the advice drawn from what this
// node measured. The runs come from a PointRunner, so the sweep's logic and
// the advice are tested on fakes; LiveRunner (bench_runner.h) runs them on
// the device, reusing one session across points where it can.
//
//   ASSIGN_OR_RETURN(std::vector<SweepDim> dims, ParseSweepDims("size,qp"));
//   SweepResult sw = RunSweep(runner, base, dims, {}, progress);
//   Advice a = Advise(sw, base, &runner);   // best per dimension, then combined
#ifndef RDMACHECK_ACTS_BENCH_SWEEP_H_
#define RDMACHECK_ACTS_BENCH_SWEEP_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "acts/bench_types.h"

namespace rdmacheck {

enum class SweepDim { kSize, kMtu, kQps, kPostList, kCqMod, kPin };
absl::string_view SweepDimName(SweepDim d);  // "size", "mtu", "qp", "post_list", "cq_mod", "pin"
// "size,mtu,qp,post_list,cq_mod,pin" (any subset, any order) or "all";
// InvalidArgument naming the unknown word.
absl::StatusOr<std::vector<SweepDim>> ParseSweepDims(absl::string_view text);

// Measures one point. The live one keeps a session between calls.
class PointRunner {
 public:
  virtual ~PointRunner() = default;
  virtual absl::StatusOr<BenchResult> Run(const BenchSettings& s) = 0;
  // The settings about to be run (one dimension's points), so a runner can
  // make one session that fits them all.
  virtual void Prepare(const std::vector<BenchSettings>& upcoming) {}
  // The ports' active MTU in bytes (the MTU sweep's ceiling).
  virtual absl::StatusOr<int> ActiveMtu() = 0;
};

struct SweepPoint {
  SweepDim dim = SweepDim::kSize;
  std::string value;  // "65536", "4096", "4", "pinned to CPU 1"
  double x = 0;       // the value as a number for the chart (pin: 0 / 1)
  bool is_default = false;  // the base settings' value of this dimension
  BenchSettings settings;
};

// A sweep point keeps at most this many bytes in flight per QP (its -t is
// lowered for large messages: 8 at 1 MiB), so it ends soon after its time
// instead of draining 128 MiB on a slow link.
inline constexpr uint64_t kSweepMaxInflight = 8ull << 20;

// How a sweep point decides it is done: a warm-up of 0.2 s not counted,
// then at least 0.6 s and at most 2 s, stopping once three 0.2 s slices
// agree within 10 %.
inline constexpr StopRule kSweepStop{.slice_s = 0.2, .min_s = 0.6, .max_s = 2.0, .spread = 0.10, .slices = 3};
inline constexpr double kSweepWarmup = 0.2;

// The points of one dimension around `base` (the other parameters stay as
// in base): size 64 B .. 1 MiB by x4; MTU 512 .. 4096 up to active_mtu;
// QPs 1, 2, 4, 8; post list 1, 2, 4, 8, 16, 32; CQ moderation 1, 2, 4, 8,
// 16, 32; not pinned, then pinned to `pin_cpu`. Each point's tx depth is
// at most kSweepMaxInflight / size. `skipped` gets a line for each point
// left out and why (the MTUs above active_mtu).
std::vector<SweepPoint> PointsOf(SweepDim d, const BenchSettings& base, int active_mtu, int pin_cpu,
                                 std::vector<std::string>* skipped);

struct SweepRow {
  SweepPoint point;
  std::optional<BenchResult> result;  // absent: the run could not be made
  std::string error;                  // why not
  double wall_s = 0;                  // the point's time, setup included
};

struct SweepResult {
  std::vector<SweepRow> rows;
  std::vector<std::string> notes;  // points skipped, and why
  double wall_s = 0;
};

// Every point of every dimension in order; `progress` (may be empty) is
// called after each with (done, total, row). Stops early, keeping what was
// measured, when a run is interrupted.
SweepResult RunSweep(PointRunner& runner, const BenchSettings& base, const std::vector<SweepDim>& dims,
                     int pin_cpu, const std::function<void(int, int, const SweepRow&)>& progress);

// The figure a sweep compares: bandwidth in Gb/s, or for latency runs the
// median in us (lower is better).
double FigureOf(const BenchResult& r);
bool LowerIsBetter(const BenchSettings& s);

// One dimension's finding.
struct DimAdvice {
  SweepDim dim = SweepDim::kSize;
  std::string default_value, best_value;
  double default_figure = 0, best_figure = 0;
  double gain = 0;        // best over default, as a fraction (+0.12: 12 % better)
  bool changed = false;   // best differs from the default by more than the noise
  std::string statement;  // one line, with the figures
  std::optional<SweepPoint> best;
};

struct Advice {
  std::vector<DimAdvice> dims;
  // The tunable dimensions' best settings together (not size: the
  // application chooses it), re-measured as a whole.
  std::optional<BenchSettings> combined_settings;
  std::optional<BenchResult> combined;
  std::optional<BenchResult> baseline;  // the default settings, re-measured beside it
  std::string combined_error;
  std::vector<std::string> lines;  // the summary, in order
};

// A difference smaller than this is noise; so is one smaller than half the
// spread of the points' own slices, up to kAdviceNoiseCap.
inline constexpr double kAdviceNoise = 0.05;
inline constexpr double kAdviceNoiseCap = 0.25;

// The advice from a sweep: per dimension, the best measured point against
// the default (base) point; then, when some tunable dimension changed, the
// combination and the default re-measured one after the other by `runner`
// (null: not re-measured). Only what this node measured is stated.
Advice Advise(const SweepResult& sweep, const BenchSettings& base, PointRunner* runner);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_BENCH_SWEEP_H_
