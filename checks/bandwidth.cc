#include "checks/bandwidth.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checks/perf_common.h"
#include "facts/port_rate.h"

namespace rdmacheck {

namespace {

std::string Gbps(double g) { return absl::StrFormat("%.3f Gb/s", g); }

}  // namespace

Result BandwidthCheck::Run(const CheckContext& ctx) const {
  const std::string title = "RDMA WRITE bandwidth to a peer device meets its threshold";
  if (!ctx.view.live()) return ResultBuilder::Skip(*this, title, "bandwidth run needs a live device");
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) return ResultBuilder::Skip(*this, title, "no RDMA device");
  if (!ctx.device_for) return ResultBuilder::CouldNotRun(*this, title, "no Device to run on");
  const std::optional<PerfSpec>& perf = ctx.plan.perf;
  const std::optional<double> plan_min = perf ? perf->min_write_bw_gbps : std::nullopt;
  ResultBuilder b(*this, title);
  std::vector<std::string> pairs;
  for (const PerfTarget& t : PerfTargets(ctx, b)) {
    const DeviceInfo* dev = t.dev;
    std::unique_ptr<Device> d = OpenOrWarn(ctx, *dev, "bandwidth run", b);
    if (d == nullptr) continue;
    BenchSettings settings = BandwidthCheckSettings(ctx.plan);
    if (!AvoidDroppingQdisc(ctx, t, &settings, b)) {
      pairs.push_back(t.pair);
      continue;
    }
    absl::StatusOr<BenchResult> got = d->RunBench(t.ends, settings);
    if (absl::IsUnimplemented(got.status())) return ResultBuilder::Skip(*this, title, std::string(got.status().message()));
    pairs.push_back(t.pair);
    b.Note(absl::StrCat("peer: ", t.peer.why));
    if (!got.ok() || got->end != BenchEnd::kOk) {
      ReportRunProblem(ctx, *d, t, got, "bandwidth", b);
      continue;
    }
    const BenchResult& r = *got;
    const std::string subject = absl::StrCat(t.pair, " RDMA WRITE bandwidth");
    const std::string actual = absl::StrFormat("%s (%.1f MB/s, peak %s)", Gbps(r.bw_avg_gbps), r.bw_avg_mbps(),
                                               Gbps(r.bw_peak_gbps));
    b.Note(absl::StrCat("settings: ", RunSettingsText(r)));
    bool judged = false;
    Verdict worst = Verdict::kPass;
    if (plan_min) {
      judged = true;
      const Verdict v = r.bw_avg_gbps < *plan_min ? Verdict::kFail : Verdict::kPass;
      worst = std::max(worst, v);
      b.Expect(subject,
               absl::StrFormat(">= %s (%s:%d min_write_bw_gbps)", Gbps(*plan_min), ctx.plan.path,
                               perf->min_write_bw_line),
               actual, v);
    }
    const PortInfo* port = dev->Port(t.port);
    absl::StatusOr<PortRate> rate = port ? RateOfPort(*port) : absl::NotFoundError("no port");
    if (IsSoftDevice(*dev)) {
      if (!plan_min) {
        b.Expect(subject, "a figure (no threshold: see the note)", actual, Verdict::kPass);
        b.Note(absl::StrCat(dev->name, " is a soft device (driver ", dev->driver.value_or("?"),
                            "): its port rate", rate.ok() ? absl::StrCat(" of ", FormatRate(*rate)) : "",
                            " is nominal, so no threshold applies without [perf] min_write_bw_gbps in the plan "
                            "(docs/plan-format.md)"));
      }
    } else if (rate.ok() && rate->gbps > 0) {
      judged = true;
      const double frac = r.bw_avg_gbps / rate->gbps;
      const Verdict v = frac < kBwFailFraction ? Verdict::kFail : frac < kBwWarnFraction ? Verdict::kWarn : Verdict::kPass;
      worst = std::max(worst, v);
      b.Expect(absl::StrCat(subject, " of the port's rate"),
               absl::StrFormat(">= 90 %% of %s = %s (WARN below 95 %%)", FormatRate(*rate),
                               Gbps(rate->gbps * kBwFailFraction)),
               absl::StrFormat("%s = %.1f %%", Gbps(r.bw_avg_gbps), 100 * frac), v);
    } else if (!plan_min) {
      b.Expect(subject, "a figure (no threshold: see the note)", actual, Verdict::kPass);
      b.Note(absl::StrCat("no port rate for ", dev->name, " port ", t.port,
                          " and no [perf] min_write_bw_gbps in the plan: nothing to judge the figure against"));
    }
    if (judged && worst != Verdict::kPass) {
      for (const std::string& c : SlowCauses(ctx, t, r)) b.Remedy(c);
    }
  }
  if (!pairs.empty()) b.Title(absl::StrCat("RDMA WRITE bandwidth ", absl::StrJoin(pairs, ", "), " meets its threshold"));
  return b.Build();
}

}  // namespace rdmacheck
