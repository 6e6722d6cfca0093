#include "checks/session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "acts/driver_model.h"
#include "acts/live_device.h"
#include "checks/runner.h"
#include "facts/gather.h"
#include "facts/paste_import.h"
#include "facts/profile.h"
#include "plan/plan_parser.h"
#include "util/clock.h"

namespace rdmacheck {

unsigned NeedsOf(const std::vector<const Check*>& checks) {
  unsigned needs = 0;
  for (const Check* c : checks) needs |= c->needs();
  return needs;
}

double WindowSeconds(const Options& o) { return std::min(o.window_s, o.check_deadline_s); }

absl::StatusOr<RunInputs> LoadRunInputs(const InputSources& src, unsigned needs) {
  RunInputs in;
  if (!src.pastes.empty()) {
    PhaseTimer t(&in.phases, "profile");
    std::vector<std::string> files = src.pastes;
    if (src.profile) files.insert(files.begin(), *src.profile);
    absl::StatusOr<DeviceView> v = ReadPastes(files);
    if (!v.ok()) return v.status();
    in.view = *std::move(v);
  } else if (src.profile) {
    PhaseTimer t(&in.phases, "profile");
    absl::StatusOr<DeviceView> v = ReadProfileFile(*src.profile);
    if (!v.ok()) return v.status();
    in.view = *std::move(v);
  } else {
    GatherOptions g;
    g.phases = &in.phases;
    g.read_rulesets = (needs & kNeedsRulesets) != 0;
    g.read_qdiscs = (needs & kNeedsQdiscs) != 0;
    if (needs & kNeedsWindow) {
      g.window_s = WindowSeconds(src.options);
      g.window_device = src.options.device;
    }
    absl::StatusOr<DeviceView> v = GatherLive(g);
    if (!v.ok()) return v.status();
    in.view = *std::move(v);
    in.view.provenance.push_back(absl::StrCat(
        "captured by rdmacheck ", kToolVersion, " on ", in.view.host.hostname.value_or("?"), ", kernel ",
        in.view.host.kernel.value_or("?"), ", ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", WallNow(), absl::UTCTimeZone())));
  }
  if (src.plan) {
    PhaseTimer t(&in.phases, "plan");
    absl::StatusOr<Plan> p = ReadPlanFile(*src.plan);
    if (!p.ok()) return p.status();
    in.plan = *std::move(p);
  } else {
    in.plan = DefaultPlan();
  }
  in.options = src.options;
  // A plan for a device this view does not have would leave every check
  // with nothing to look at; say where the plan names it instead. (A view
  // with no device at all is device-present's to report.)
  if (in.plan.device && !in.view.devices.empty() && in.view.Device(*in.plan.device) == nullptr) {
    std::vector<std::string> names;
    for (const DeviceInfo& d : in.view.devices) names.push_back(d.name);
    return absl::InvalidArgumentError(absl::StrCat(
        in.plan.path, ":", in.plan.device_line, ": device: ", *in.plan.device, " is not a device of ",
        in.view.source, " (devices: ", absl::StrJoin(names, ", "), ")"));
  }
  return in;
}

absl::StatusOr<std::unique_ptr<Device>> DeviceFor(const DeviceView& view, const DeviceInfo& dev) {
  if (!view.live()) return MakeDriverModel(dev);
  absl::StatusOr<std::unique_ptr<LiveDevice>> live = LiveDevice::Open(dev.name, MakeDriverModel(dev));
  if (!live.ok()) return live.status();
  return std::unique_ptr<Device>(*std::move(live));
}

DeviceFactory DevicesOf(DeviceView view) {
  auto shared = std::make_shared<const DeviceView>(std::move(view));
  return [shared](const DeviceInfo& d) { return DeviceFor(*shared, d); };
}

RunReport MakeReport(const RunInputs& in, std::vector<Result> results, absl::Time started, double seconds) {
  RunReport rep;
  rep.host = in.view.host.hostname.value_or("");
  rep.kernel = in.view.host.kernel.value_or("");
  rep.source = in.view.source;
  rep.plan = in.plan.path;
  rep.started_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", started, absl::UTCTimeZone());
  rep.seconds = seconds;
  rep.phases = in.phases.phases();
  rep.phases.push_back({"checks", seconds});
  for (const DeviceInfo& d : in.view.devices) {
    rep.devices.push_back({d.name, d.driver.value_or(""), d.fw_ver.value_or(""), d.node_guid.value_or("")});
  }
  rep.results = std::move(results);
  return rep;
}

RunReport Session::Run(const RunInputs& in, const std::vector<const Check*>& checks,
                       DeviceFactory device_for) const {
  const absl::Time started = WallNow();
  const double t0 = MonotonicSeconds();
  if (!device_for) device_for = DevicesOf(in.view);
  CheckContext ctx{in.view, in.plan, in.options, device_for};
  std::vector<Result> results = RunChecks(checks, ctx);
  return MakeReport(in, std::move(results), started, MonotonicSeconds() - t0);
}

}  // namespace rdmacheck
