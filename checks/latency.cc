#include "checks/latency.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checks/perf_common.h"

namespace rdmacheck {

Result LatencyCheck::Run(const CheckContext& ctx) const {
  const std::string title = "RDMA WRITE latency to a peer device is within its maximum";
  if (!ctx.view.live()) return ResultBuilder::Skip(*this, title, "latency run needs a live device");
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) return ResultBuilder::Skip(*this, title, "no RDMA device");
  if (!ctx.device_for) return ResultBuilder::CouldNotRun(*this, title, "no Device to run on");
  const std::optional<PerfSpec>& perf = ctx.plan.perf;
  const std::optional<double> plan_max = perf ? perf->max_write_lat_us : std::nullopt;
  ResultBuilder b(*this, title);
  std::vector<std::string> pairs;
  for (const PerfTarget& t : PerfTargets(ctx, b)) {
    const DeviceInfo* dev = t.dev;
    std::unique_ptr<Device> d = OpenOrWarn(ctx, *dev, "latency run", b);
    if (d == nullptr) continue;
    absl::StatusOr<BenchResult> got = d->RunBench(t.ends, LatencyCheckSettings());
    if (absl::IsUnimplemented(got.status())) return ResultBuilder::Skip(*this, title, std::string(got.status().message()));
    pairs.push_back(t.pair);
    b.Note(absl::StrCat("peer: ", t.peer.why));
    if (!got.ok() || got->end != BenchEnd::kOk) {
      ReportRunProblem(ctx, *d, t, got, "latency", b);
      continue;
    }
    const BenchResult& r = *got;
    const LatencyStats& l = r.lat;
    const std::string subject = absl::StrCat(t.pair, " RDMA WRITE latency (median)");
    const std::string actual = absl::StrFormat("%.2f us (min %.2f, p99 %.2f, p99.9 %.2f, max %.2f)", l.median_us,
                                               l.min_us, l.p99_us, l.p999_us, l.max_us);
    b.Note(absl::StrCat("settings: ", RunSettingsText(r)));
    // The link answered fast once, and most round trips took milliseconds:
    // the ends waited for a CPU (a scheduler slice is 1-10 ms), not for the
    // path. A delaying qdisc raises the minimum as well.
    const bool waited_for_cpu = l.min_us > 0 && l.min_us < 200 && l.median_us >= 1000 && l.median_us >= 20 * l.min_us;
    if (waited_for_cpu) {
      b.Note(absl::StrFormat(
          "the median is %.0fx the fastest round trip (%.2f us): most samples waited for a CPU, not for the link "
          "(the two polling ends shared a CPU, or other work, or a host starving this VM, took it)",
          l.median_us / l.min_us, l.min_us));
    }
    if (plan_max) {
      const Verdict v = l.median_us > *plan_max ? Verdict::kFail : Verdict::kPass;
      b.Expect(subject,
               absl::StrFormat("<= %.2f us (%s:%d max_write_lat_us)", *plan_max, ctx.plan.path,
                               perf->max_write_lat_line),
               actual, v);
      if (v == Verdict::kFail && waited_for_cpu)
        b.Remedy(absl::StrCat("top -b -n 1 | head -20   # what else runs; then rdmacheck bench -d ", r.device,
                              " --lat --pin CPU   # this end on a CPU of its own"));
      if (v == Verdict::kFail)
        for (const std::string& c : SlowCauses(ctx, t, r)) b.Remedy(c);
    } else {
      b.Expect(subject, "a figure (no threshold: see the note)", actual, Verdict::kPass);
      b.Note("no [perf] max_write_lat_us in the plan: no port attribute says what the latency should be, so the "
             "figures are evidence only (docs/plan-format.md)");
    }
  }
  if (!pairs.empty()) b.Title(absl::StrCat("RDMA WRITE latency ", absl::StrJoin(pairs, ", "), " is within its maximum"));
  return b.Build();
}

}  // namespace rdmacheck
