#include "acts/bench/sweep.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "acts/bench/bench_math.h"
#include "util/clock.h"

namespace rdmacheck {

absl::string_view SweepDimName(SweepDim d) {
  switch (d) {
    case SweepDim::kSize: return "size";
    case SweepDim::kMtu: return "mtu";
    case SweepDim::kQps: return "qp";
    case SweepDim::kPostList: return "post_list";
    case SweepDim::kCqMod: return "cq_mod";
    case SweepDim::kPin: return "pin";
  }
  return "?";
}

namespace {
constexpr SweepDim kAllDims[] = {SweepDim::kSize,     SweepDim::kMtu,   SweepDim::kQps,
                                 SweepDim::kPostList, SweepDim::kCqMod, SweepDim::kPin};
}  // namespace

absl::StatusOr<std::vector<SweepDim>> ParseSweepDims(absl::string_view text) {
  std::vector<SweepDim> out;
  for (absl::string_view w : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    w = absl::StripAsciiWhitespace(w);
    if (w == "all") {
      out.assign(std::begin(kAllDims), std::end(kAllDims));
      continue;
    }
    bool found = false;
    for (SweepDim d : kAllDims) {
      // "qps" and "post-list"/"cq-mod" are read as their names too.
      std::string name(SweepDimName(d));
      std::string dashed = name;
      std::replace(dashed.begin(), dashed.end(), '_', '-');
      if (w == name || w == dashed || (d == SweepDim::kQps && w == "qps")) {
        if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
        found = true;
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown sweep dimension '", w, "' (size, mtu, qp, post_list, cq_mod, pin or all)"));
    }
  }
  if (out.empty()) return absl::InvalidArgumentError("no sweep dimension given (size, mtu, qp, post_list, cq_mod, pin or all)");
  return out;
}

namespace {

SweepPoint Point(SweepDim d, const BenchSettings& base, double x, std::string value) {
  SweepPoint p;
  p.dim = d;
  p.x = x;
  p.value = std::move(value);
  p.settings = base;
  return p;
}

// The base's value of dimension d, as the points spell it.
double DefaultX(SweepDim d, const BenchSettings& base, int active_mtu) {
  switch (d) {
    case SweepDim::kSize: return base.size;
    case SweepDim::kMtu: return base.mtu == 0 ? active_mtu : base.mtu;
    case SweepDim::kQps: return base.qps;
    case SweepDim::kPostList: return base.post_list;
    case SweepDim::kCqMod: return EffectiveCqMod(base);
    case SweepDim::kPin: return base.pin_cpus.empty() ? 0 : 1;
  }
  return 0;
}

}  // namespace

std::vector<SweepPoint> PointsOf(SweepDim d, const BenchSettings& base, int active_mtu, int pin_cpu,
                                 std::vector<std::string>* skipped) {
  std::vector<SweepPoint> pts;
  std::vector<double> xs;
  switch (d) {
    case SweepDim::kSize:
      for (uint32_t s = 64; s <= (1u << 20); s *= 4) xs.push_back(s);
      break;
    case SweepDim::kMtu:
      for (int m = 512; m <= 4096; m *= 2) {
        if (m > active_mtu) {
          skipped->push_back(absl::StrCat("mtu ", m, " not measured: above the ports' active_mtu ", active_mtu,
                                          " (the MTU sweep stops at ", active_mtu,
                                          "; RoCE's active_mtu follows the netdev's MTU: ip link show)"));
          continue;
        }
        xs.push_back(m);
      }
      break;
    case SweepDim::kQps: xs = {1, 2, 4, 8}; break;
    case SweepDim::kPostList: xs = {1, 2, 4, 8, 16, 32}; break;
    case SweepDim::kCqMod: xs = {1, 2, 4, 8, 16, 32}; break;
    case SweepDim::kPin: xs = {0, 1}; break;
  }
  const double def = DefaultX(d, base, active_mtu);
  if (d != SweepDim::kPin && std::find(xs.begin(), xs.end(), def) == xs.end() &&
      !(d == SweepDim::kMtu && def > active_mtu)) {
    xs.push_back(def);
    std::sort(xs.begin(), xs.end());
  }
  for (double x : xs) {
    const int v = static_cast<int>(x);
    SweepPoint p = Point(d, base, x, absl::StrCat(v));
    switch (d) {
      case SweepDim::kSize: p.settings.size = static_cast<uint32_t>(x); break;
      case SweepDim::kMtu: p.settings.mtu = v; break;
      case SweepDim::kQps: p.settings.qps = v; break;
      case SweepDim::kPostList: p.settings.post_list = v; break;
      case SweepDim::kCqMod: p.settings.cq_mod = v; break;
      case SweepDim::kPin:
        if (v == 0) {
          p.settings.pin_cpus.clear();
          p.value = "not pinned";
        } else {
          p.settings.pin_cpus = {pin_cpu};
          p.value = absl::StrCat("pinned to CPU ", pin_cpu);
        }
        break;
    }
    p.is_default = x == def;
    p.settings.tx_depth = static_cast<int>(std::min<uint64_t>(
        std::max(1, base.tx_depth), std::max<uint64_t>(1, kSweepMaxInflight / std::max<uint32_t>(1, p.settings.size))));
    pts.push_back(std::move(p));
  }
  return pts;
}

SweepResult RunSweep(PointRunner& runner, const BenchSettings& base, const std::vector<SweepDim>& dims, int pin_cpu,
                     const std::function<void(int, int, const SweepRow&)>& progress) {
  SweepResult out;
  const double t0 = MonotonicSeconds();
  int active = 0;
  if (absl::StatusOr<int> a = runner.ActiveMtu(); a.ok()) {
    active = *a;
  } else {
    out.notes.push_back(absl::StrCat("the ports' active MTU could not be read: ", a.status().message()));
  }
  std::vector<SweepPoint> all;
  std::vector<size_t> dim_start;
  for (SweepDim d : dims) {
    std::vector<SweepPoint> pts = PointsOf(d, base, active > 0 ? active : 4096, pin_cpu, &out.notes);
    dim_start.push_back(all.size());
    all.insert(all.end(), pts.begin(), pts.end());
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::find(dim_start.begin(), dim_start.end(), i) != dim_start.end()) {
      std::vector<BenchSettings> upcoming;
      for (size_t k = i; k < all.size() && all[k].dim == all[i].dim; ++k) upcoming.push_back(all[k].settings);
      runner.Prepare(upcoming);
    }
    SweepRow row;
    row.point = all[i];
    const double ts = MonotonicSeconds();
    absl::StatusOr<BenchResult> r = runner.Run(row.point.settings);
    row.wall_s = MonotonicSeconds() - ts;
    if (r.ok()) {
      row.result = *std::move(r);
    } else {
      row.error = std::string(r.status().message());
    }
    out.rows.push_back(row);
    if (progress) progress(static_cast<int>(i + 1), static_cast<int>(all.size()), out.rows.back());
    if (row.result && row.result->end == BenchEnd::kInterrupted) break;
  }
  out.wall_s = MonotonicSeconds() - t0;
  return out;
}

bool LowerIsBetter(const BenchSettings& s) { return s.mode == BenchMode::kLatency; }

double FigureOf(const BenchResult& r) {
  return r.settings.mode == BenchMode::kLatency ? r.lat.median_us : r.bw_avg_gbps;
}

namespace {

std::string FigureText(double f, const BenchSettings& s) {
  return LowerIsBetter(s) ? absl::StrFormat("%.2f us", f) : absl::StrFormat("%.3f Gb/s", f);
}

std::string FlagFor(const SweepPoint& p) {
  const int v = static_cast<int>(p.x);
  switch (p.dim) {
    case SweepDim::kSize: return absl::StrCat("-s ", v);
    case SweepDim::kMtu: return absl::StrCat("-m ", v);
    case SweepDim::kQps: return absl::StrCat("-q ", v);
    case SweepDim::kPostList: return absl::StrCat("-l ", v);
    case SweepDim::kCqMod: return absl::StrCat("--cq-mod ", v);
    case SweepDim::kPin:
      return p.settings.pin_cpus.empty() ? std::string("(no --pin)") : absl::StrCat("--pin ", p.settings.pin_cpus[0]);
  }
  return "";
}

// How much better a is than b, as a fraction of b (latency: lower is better).
double Gain(double a, double b, bool lower_better) {
  if (b <= 0) return 0;
  return lower_better ? (b - a) / b : (a - b) / b;
}

bool Good(const SweepRow& r) { return r.result && r.result->end == BenchEnd::kOk && r.result->messages > 0; }

// The noise of two points: kAdviceNoise, or half the spread of their own
// last slices when that is more, up to kAdviceNoiseCap.
double Noise(const BenchResult& a, const BenchResult& b) {
  double n = kAdviceNoise;
  for (const BenchResult* r : {&a, &b}) {
    double s = Spread(r->slice_gbps, std::min<int>(3, static_cast<int>(r->slice_gbps.size())));
    if (std::isfinite(s)) n = std::max(n, std::min(kAdviceNoiseCap, s / 2));
  }
  return n;
}

void ApplyBest(const SweepPoint& p, BenchSettings* s) {
  switch (p.dim) {
    case SweepDim::kSize: s->size = p.settings.size; break;
    case SweepDim::kMtu: s->mtu = p.settings.mtu; break;
    case SweepDim::kQps: s->qps = p.settings.qps; break;
    case SweepDim::kPostList: s->post_list = p.settings.post_list; break;
    case SweepDim::kCqMod: s->cq_mod = p.settings.cq_mod; break;
    case SweepDim::kPin: s->pin_cpus = p.settings.pin_cpus; break;
  }
}

}  // namespace

Advice Advise(const SweepResult& sweep, const BenchSettings& base, PointRunner* runner) {
  Advice adv;
  const bool lower = LowerIsBetter(base);
  std::vector<SweepDim> order;
  std::map<SweepDim, std::vector<const SweepRow*>> by_dim;
  for (const SweepRow& r : sweep.rows) {
    if (!by_dim.count(r.point.dim)) order.push_back(r.point.dim);
    by_dim[r.point.dim].push_back(&r);
  }
  BenchSettings combined = base;
  std::vector<std::string> flags;
  for (SweepDim d : order) {
    DimAdvice da;
    da.dim = d;
    const SweepRow* def = nullptr;
    const SweepRow* best = nullptr;
    const SweepRow* worst = nullptr;
    for (const SweepRow* r : by_dim[d]) {
      if (!Good(*r)) continue;
      if (r->point.is_default) def = r;
      const double f = FigureOf(*r->result);
      if (!best || Gain(f, FigureOf(*best->result), lower) > 0) best = r;
      if (!worst || Gain(f, FigureOf(*worst->result), lower) < 0) worst = r;
    }
    const std::string name(SweepDimName(d));
    if (!best) {
      da.statement = absl::StrCat(name, ": no point was measured");
      adv.dims.push_back(da);
      adv.lines.push_back(da.statement);
      continue;
    }
    da.best = best->point;
    da.best_value = best->point.value;
    da.best_figure = FigureOf(*best->result);
    if (d == SweepDim::kSize) {
      // The size is the application's, not a knob: say where the curve flattens.
      const SweepRow* knee = nullptr;
      for (const SweepRow* r : by_dim[d]) {
        if (!Good(*r)) continue;
        if (lower ? FigureOf(*r->result) <= da.best_figure * 1.1 : FigureOf(*r->result) >= da.best_figure * 0.9) {
          knee = r;
          break;
        }
      }
      da.statement = absl::StrCat("size: the best measured is ", FigureText(da.best_figure, base), " at ",
                                  best->point.value, " bytes");
      if (knee && !lower) {
        absl::StrAppend(&da.statement, "; messages of ", knee->point.value,
                        " bytes or more reach 90 % of it (", FigureText(FigureOf(*knee->result), base), ")");
      }
      adv.dims.push_back(da);
      adv.lines.push_back(da.statement);
      continue;
    }
    if (!def) {
      da.statement = absl::StrCat(name, ": the default point was not measured; best ", best->point.value, " (",
                                  FigureText(da.best_figure, base), ")");
      adv.dims.push_back(da);
      adv.lines.push_back(da.statement);
      continue;
    }
    da.default_value = def->point.value;
    da.default_figure = FigureOf(*def->result);
    da.gain = Gain(da.best_figure, da.default_figure, lower);
    const double noise = Noise(*best->result, *def->result);
    da.changed = best != def && da.gain > noise;
    if (da.changed) {
      da.statement = absl::StrFormat("%s: %s measured %s against %s at the default %s (%+.1f %%): use %s", name,
                                     best->point.value, FigureText(da.best_figure, base),
                                     FigureText(da.default_figure, base), def->point.value, 100 * da.gain,
                                     FlagFor(best->point));
      ApplyBest(best->point, &combined);
      flags.push_back(FlagFor(best->point));
    } else {
      da.statement = absl::StrFormat("%s: nothing beat the default %s (%s) by more than the noise, %.0f %% (best %s: %s)", name,
                                     def->point.value, FigureText(da.default_figure, base), 100 * noise,
                                     best->point.value, FigureText(da.best_figure, base));
    }
    if (worst && worst != def) {
      const double loss = Gain(FigureOf(*worst->result), da.default_figure, lower);
      if (-loss > Noise(*worst->result, *def->result)) {
        absl::StrAppend(&da.statement,
                        absl::StrFormat("; %s measured worse: %s (%+.1f %%)", worst->point.value,
                                        FigureText(FigureOf(*worst->result), base), 100 * loss));
      }
    }
    adv.dims.push_back(da);
    adv.lines.push_back(da.statement);
  }
  if (flags.empty()) {
    adv.lines.push_back("combined: no tunable setting beat its default on this node; keep the defaults");
    return adv;
  }
  adv.combined_settings = combined;
  if (runner == nullptr) return adv;
  absl::StatusOr<BenchResult> b = runner->Run(base);
  absl::StatusOr<BenchResult> c = runner->Run(combined);
  if (!b.ok() || !c.ok() || b->end != BenchEnd::kOk || c->end != BenchEnd::kOk) {
    adv.combined_error = !b.ok() ? std::string(b.status().message())
                         : !c.ok() ? std::string(c.status().message())
                         : b->end != BenchEnd::kOk ? b->failure
                                                   : c->failure;
    adv.lines.push_back(absl::StrCat("combined (", absl::StrJoin(flags, " "), "): not measured: ", adv.combined_error));
    return adv;
  }
  adv.baseline = *b;
  adv.combined = *c;
  const double g = Gain(FigureOf(*c), FigureOf(*b), lower);
  adv.lines.push_back(absl::StrFormat(
      "combined (%s): %s against %s for the defaults, measured one after the other (%+.1f %%)%s",
      absl::StrJoin(flags, " "), FigureText(FigureOf(*c), base), FigureText(FigureOf(*b), base), 100 * g,
      g > Noise(*b, *c) ? "" : ": within the noise, the settings do not add up on this node"));
  return adv;
}

}  // namespace rdmacheck
