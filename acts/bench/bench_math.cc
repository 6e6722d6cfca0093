#include "acts/bench/bench_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "absl/strings/str_cat.h"

namespace rdmacheck {

double GbitsPerSecond(uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e9 : 0;
}

namespace {
double Rank(const std::vector<double>& sorted, double q) {
  // Nearest rank: the smallest sample with at least q of the samples at or
  // below it.
  size_t k = static_cast<size_t>(std::ceil(q * sorted.size()));
  if (k == 0) k = 1;
  return sorted[std::min(k, sorted.size()) - 1];
}
}  // namespace

LatencyStats LatencyStatsOf(std::vector<double> s) {
  LatencyStats st;
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  st.samples = s.size();
  st.min_us = s.front();
  st.max_us = s.back();
  st.median_us = s[s.size() / 2];
  st.avg_us = std::accumulate(s.begin(), s.end(), 0.0) / s.size();
  double sq = 0;
  for (double x : s) sq += (x - st.avg_us) * (x - st.avg_us);
  st.stdev_us = std::sqrt(sq / s.size());
  st.p99_us = Rank(s, 0.99);
  st.p999_us = Rank(s, 0.999);
  return st;
}

double Spread(const std::vector<double>& v, int n) {
  if (n <= 0 || v.size() < static_cast<size_t>(n)) return std::numeric_limits<double>::infinity();
  auto first = v.end() - n;
  auto [lo, hi] = std::minmax_element(first, v.end());
  double mean = std::accumulate(first, v.end(), 0.0) / n;
  if (mean <= 0) return std::numeric_limits<double>::infinity();
  return (*hi - *lo) / mean;
}

StopNow ShouldStop(const StopRule& rule, const std::vector<double>& slices, double elapsed_s) {
  if (elapsed_s >= rule.max_s) return StopNow::kMaxTime;
  if (elapsed_s >= rule.min_s && Spread(slices, rule.slices) <= rule.spread) return StopNow::kStable;
  return StopNow::kGoOn;
}

bool Signalled(uint64_t first, int j, int cq_mod, bool last_of_run) {
  return last_of_run || (first + j + 1) % static_cast<uint64_t>(cq_mod) == 0;
}

int EffectiveCqMod(const BenchSettings& s) {
  int m = s.cq_mod;
  if (m == 0) m = s.size > kCqModSizeLimit ? 1 : kDefaultCqMod;
  return std::max(1, std::min(m, std::max(1, s.tx_depth)));
}

uint32_t EffectiveInline(const BenchSettings& s) {
  if (s.inline_size) return *s.inline_size;
  return s.mode == BenchMode::kLatency && s.op == BenchOp::kWrite ? kDefaultLatInline : 0;
}

MtuChoice ChooseBenchMtu(int asked, int active) {
  MtuChoice c;
  if (asked == 0) {
    c.bytes = active;
    return c;
  }
  const bool valid = asked >= 256 && asked <= 4096 && (asked & (asked - 1)) == 0;
  if (!valid) {
    c.error = absl::StrCat("-m ", asked, " is not an IB path MTU (256, 512, 1024, 2048 or 4096)");
  } else if (active > 0 && asked > active) {
    c.error = absl::StrCat("-m ", asked, " is above the ports' active_mtu ", active,
                           " (RoCE: the netdev's MTU less the headers; raise it with ip link set dev NETDEV mtu ...)");
  } else {
    c.bytes = asked;
  }
  return c;
}

void AddConcurrent(const std::vector<BenchResult>& parts, BenchResult* r) {
  if (parts.empty()) return;
  size_t slices = parts[0].slice_gbps.size();
  for (const BenchResult& p : parts) slices = std::min(slices, p.slice_gbps.size());
  r->messages = r->bytes = 0;
  r->seconds = r->bw_avg_gbps = r->msg_rate_mpps = 0;
  r->slice_gbps.assign(slices, 0);
  r->stable = true;
  for (size_t k = 0; k < parts.size(); ++k) {
    const BenchResult& p = parts[k];
    if (p.end != BenchEnd::kOk && r->end == BenchEnd::kOk) {
      r->end = p.end;
      r->failure = absl::StrCat("thread ", k, ": ", p.failure);
      r->wc_status = p.wc_status;
      r->wc_status_text = p.wc_status_text;
      r->vendor_err = p.vendor_err;
    }
    r->messages += p.messages;
    r->bytes += p.bytes;
    r->seconds = std::max(r->seconds, p.seconds);
    r->bw_avg_gbps += p.bw_avg_gbps;
    r->msg_rate_mpps += p.msg_rate_mpps;
    for (size_t i = 0; i < slices; ++i) r->slice_gbps[i] += p.slice_gbps[i];
    r->stable = r->stable && p.stable;
  }
  r->bw_peak_gbps = r->bw_avg_gbps;
  for (double g : r->slice_gbps) r->bw_peak_gbps = std::max(r->bw_peak_gbps, g);
}

void ScaleTimes(double k, BenchResult* r) {
  if (!(k > 0) || k == 1) return;
  r->seconds *= k;
  r->bw_avg_gbps /= k;
  r->bw_peak_gbps /= k;
  r->msg_rate_mpps /= k;
  for (double& g : r->slice_gbps) g /= k;
  LatencyStats& l = r->lat;
  for (double* v : {&l.min_us, &l.median_us, &l.avg_us, &l.stdev_us, &l.p99_us, &l.p999_us, &l.max_us}) *v *= k;
}

}  // namespace rdmacheck
