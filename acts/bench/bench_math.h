// The arithmetic of a bench run, apart from the device so it is tested on
// made-up numbers: bandwidth in Gb/s, latency percentiles as ib_write_lat
// reports them, when a run is stable, which WRs of a post list are signalled.
//
//   double g = GbitsPerSecond(655360000, 2.0);             // 2.62 Gb/s
//   LatencyStats s = LatencyStatsOf({3.1, 2.9, 3.0});      // median 3.0 us
//   bool done = IsStable(slices, rule);
#ifndef RDMACHECK_ACTS_BENCH_BENCH_MATH_H_
#define RDMACHECK_ACTS_BENCH_BENCH_MATH_H_

#include <cstdint>
#include <vector>

#include "acts/bench_types.h"

namespace rdmacheck {

// bytes * 8 / seconds / 1e9 (0 when seconds <= 0).
double GbitsPerSecond(uint64_t bytes, double seconds);

// min, median (perftest's "t_typical"), average, standard deviation, p99, p99.9 and max of the
// samples (microseconds), by nearest rank on the sorted samples.
LatencyStats LatencyStatsOf(std::vector<double> samples_us);

// (max - min) / mean of the last `n` values; +inf when fewer than n or the
// mean is 0.
double Spread(const std::vector<double>& values, int n);

// A StopRule's verdict after `elapsed_s` with these slices: stop (and
// whether because it was stable) or go on.
enum class StopNow { kGoOn, kStable, kMaxTime };
StopNow ShouldStop(const StopRule& rule, const std::vector<double>& slices, double elapsed_s);

// Whether WR `index` (0-based, the run's count) of a post list of
// `list_len` WRs starting at `first` is signalled with CQ moderation
// `cq_mod`: every cq_mod-th WR of the run, and the last of the run
// (`last_of_run`).
bool Signalled(uint64_t first, int j, int cq_mod, bool last_of_run);

// The effective CQ moderation of settings `s`: perftest's default when
// s.cq_mod is 0, then at least 1 and at most tx_depth (perftest caps it the
// same way so the send queue cannot fill with unsignalled WRs).
int EffectiveCqMod(const BenchSettings& s);
// The inline size asked of the QPs: s.inline_size, else perftest's default.
uint32_t EffectiveInline(const BenchSettings& s);

// The path MTU (bytes) a run uses: `asked` (0: the active MTU) when it is a
// valid IB MTU (256..4096, a power of two) no larger than `active`.
// InvalidArgument naming the limit otherwise ("-m 4096 is above the port's
// active_mtu 1024 ...").
struct MtuChoice {
  int bytes = 0;
  std::string error;  // non-empty: refused
};
MtuChoice ChooseBenchMtu(int asked, int active);

// The figures of runs made at the same time (the threads of one run) into
// r: messages, bytes, BW average and message rate add up, each slice adds
// up with the same slice of the others (as many as all have), the time is
// the longest, the peak the best summed slice; the first part that did not
// end ok gives r its end ("thread K: ..."); stable when all were.
void AddConcurrent(const std::vector<BenchResult>& parts, BenchResult* r);

// A run timed on a clock whose seconds were `k` true seconds each
// (FastClockCorrection): its durations times k, its rates over k.
void ScaleTimes(double k, BenchResult* r);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_BENCH_BENCH_MATH_H_
