#include "checks/session.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "acts/driver_model.h"
#include "acts/live_device.h"
#include "checks/link_health.h"
#include "checks/runner.h"
#include "facts/gather.h"
#include "facts/paste_import.h"
#include "facts/link_window.h"
#include "facts/sysfs.h"
#include "plan/plan_parser.h"
#include "util/clock.h"
#include "util/stop_flag.h"

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
    absl::StatusOr<DeviceView> v = GatherLive(g);
    if (!v.ok()) return v.status();
    in.view = *std::move(v);
    // No device, nothing to watch: the window would only cost its length.
    if ((needs & kNeedsWindow) && !in.view.devices.empty()) {
      LinkWindowOptions w;
      w.seconds = WindowSeconds(src.options);
      w.only_device = src.options.device;
      in.window = w;
    }
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

namespace {

WindowWatcher OrSysfs(WindowWatcher watch) {
  if (watch) return watch;
  return [](const LinkWindowOptions& o, DeviceView* v) { SampleLinkWindow(SysfsReader("/sys"), o, v); };
}

// A run's groups around a window watched beside the checks, in the order
// they run (Session::Run).
enum Group { kBeside, kLoads, kJudges, kGroups };
Group GroupOf(const Check& c) {
  if (c.needs() & kNeedsWindow) return kJudges;
  return (c.needs() & kLoadsLink) ? kLoads : kBeside;
}

// Runs fn; its time goes to `log` as `phase` and is returned.
template <typename Fn>
double Timed(PhaseLog& log, const char* phase, Fn&& fn) {
  const double t0 = MonotonicSeconds();
  fn();
  const double s = MonotonicSeconds() - t0;
  log.Add(phase, s);
  return s;
}

// Why a window watched beside the checks does not stand; empty when it does.
std::string WhyNotJudged(const DeviceView& beside, std::optional<int> port) {
  std::vector<std::string> moved = JudgedMoves(beside, port);
  if (!moved.empty()) {
    constexpr size_t kShown = 4;
    const size_t n = moved.size();
    if (n > kShown) moved.resize(kShown);
    return absl::StrCat("saw ", absl::StrJoin(moved, ", "), n > kShown ? absl::StrCat(" and ", n - kShown, " more") : "",
                        " while rdmacheck's own probes ran (in its first ",
                        absl::StrFormat("%.1f s", beside.window->ms / 1000.0), ")");
  }
  // The runner raises the stop flag at a check's deadline; a Ctrl-C keeps
  // it raised and the run ends anyway.
  if (beside.window && beside.window->cut_short && PendingStopSignal() == 0)
    return "was cut short when a check overran its deadline";
  return "";
}

}  // namespace

void WatchWindowNow(RunInputs* in, const WindowWatcher& watch) {
  if (!in->window) return;
  PhaseTimer t(&in->phases, "gather.window");
  OrSysfs(watch)(*in->window, &in->view);
  in->window.reset();
}

RunReport Session::Run(RunInputs& in, const std::vector<const Check*>& checks, DeviceFactory device_for,
                       WindowWatcher watch) const {
  const absl::Time started = WallNow();
  const double t0 = MonotonicSeconds();
  if (!device_for) device_for = DevicesOf(in.view);
  std::vector<const Check*> group[kGroups];
  for (const Check* c : checks) group[GroupOf(*c)].push_back(c);
  if (!in.window || group[kBeside].empty() || group[kJudges].empty()) {
    // Nothing to overlap: the window (if any) first, as a gather would.
    const double w0 = MonotonicSeconds();
    WatchWindowNow(&in, watch);
    const double waited = MonotonicSeconds() - w0;
    CheckContext ctx{in.view, in.plan, in.options, device_for};
    std::vector<Result> results = RunChecks(checks, ctx);
    return MakeReport(in, std::move(results), started, MonotonicSeconds() - t0 - waited);
  }
  watch = OrSysfs(std::move(watch));
  const LinkWindowOptions wo = *in.window;
  in.window.reset();
  // Beside the probes, the window ends as soon as a counter it would judge
  // moves: it will not stand, and the quiet one can start once the checks
  // beside it are done instead of once it has run its length.
  LinkWindowOptions beside_wo = wo;
  const std::optional<int> port = in.options.port;
  beside_wo.give_up_when = [port](const DeviceView& v) { return !JudgedMoves(v, port).empty(); };
  std::vector<Result> done[kGroups];
  std::string stuck;  // across the groups, as within one (checks/runner.h)
  double waited = 0;
  {
    // Outermost for the window's thread: a Ctrl-C is acted on once it has
    // closed its device contexts.
    SigintGuard sigint;
    DeviceView beside_view = in.view;  // the checks only read in.view
    const double first_t0 = MonotonicSeconds();
    std::thread window([&] { watch(beside_wo, &beside_view); });
    {
      CheckContext ctx{in.view, in.plan, in.options, device_for};
      done[kBeside] = RunChecks(group[kBeside], ctx, &stuck);
    }
    waited += Timed(in.phases, "window.rest", [&] { window.join(); });
    const std::string why = WhyNotJudged(beside_view, port);
    if (why.empty()) {
      in.view = std::move(beside_view);
      in.view.window->notes.push_back(
          "the window was watched while the other checks ran, rdmacheck's own probes included; no counter judged "
          "here moved, so no error happened in it with or without that traffic");
    } else {
      const double q0 = MonotonicSeconds();
      waited += Timed(in.phases, "window.quiet", [&] { watch(wo, &in.view); });
      LinkWindow& w = *in.view.window;
      // The first window's events are the devices' own; timed from this
      // window's start, so before it they are negative.
      std::vector<AsyncEventSeen> events;
      if (beside_view.window) {
        for (AsyncEventSeen e : beside_view.window->events) {
          e.at_ms -= std::llround((q0 - first_t0) * 1000);
          events.push_back(std::move(e));
        }
      }
      events.insert(events.end(), w.events.begin(), w.events.end());
      w.events = std::move(events);
      w.notes.push_back(absl::StrCat("a first window, watched while the other checks ran, ", why,
                                     ": not judged; this one was watched after them, with none of rdmacheck's "
                                     "traffic, and keeps the first one's device events"));
    }
  }
  {
    CheckContext ctx{in.view, in.plan, in.options, device_for};
    for (Group g : {kLoads, kJudges}) done[g] = RunChecks(group[g], ctx, &stuck);
  }
  // In the order asked for.
  std::vector<Result> results;
  size_t next[kGroups] = {};
  for (const Check* c : checks) {
    const Group g = GroupOf(*c);
    results.push_back(std::move(done[g][next[g]++]));
  }
  return MakeReport(in, std::move(results), started, MonotonicSeconds() - t0 - waited);
}

}  // namespace rdmacheck
