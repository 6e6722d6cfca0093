// Session: one run of the checklist, from its inputs to its report. Loads
// the view (gathered live, or a recorded profile) and the plan, gathering
// only the facts the selected checks need; gives each check the Device to
// act on (its driver model on a profile; live, the real device, each opened
// once per run); runs the checks and makes the RunReport the renderers print.
//
//   InputSources src;                      // live, default plan
//   absl::StatusOr<RunInputs> in = LoadRunInputs(src, NeedsOf(checks));
//   Session session;                       // devices opened once, for the run
//   RunReport rep = session.Run(*in, checks);
//   return ExitCodeFor(rep.results);
//
// A live run's counter window (link-health, pcie) is watched beside the
// other checks rather than before them, so a healthy node pays nothing for
// it; see Session::Run.
#ifndef RDMACHECK_CHECKS_SESSION_H_
#define RDMACHECK_CHECKS_SESSION_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checks/check.h"
#include "checks/exit_codes.h"
#include "checks/run_report.h"
#include "facts/device_view.h"
#include "facts/link_window.h"
#include "plan/plan.h"
#include "util/phase_log.h"
#include "verbs/context.h"

namespace rdmacheck {

// Where a run's facts come from.
struct InputSources {
  std::optional<std::string> profile;  // a recorded profile; live when unset
  // Pastes merged into one partial view (facts/paste_import.h), after
  // `profile` when both are given.
  std::vector<std::string> pastes;
  std::optional<std::string> plan;     // the deployment plan; DefaultPlan() when unset
  Options options;
};

// What a run is made of: the view (live or profile), the plan, the options.
struct RunInputs {
  DeviceView view;
  Plan plan;
  Options options;
  // Where loading them took its time (the gather's parts, the plan); the
  // report's phases start with these.
  PhaseLog phases;
  // A live counter window the checks need (kNeedsWindow) and nobody has
  // watched yet: Session::Run watches it beside the other checks,
  // WatchWindowNow at once. Unset on a profile and once watched.
  std::optional<LinkWindowOptions> window;
};

// How a run watches a window: SampleLinkWindow over /sys when null. Tests
// give their own.
using WindowWatcher = std::function<void(const LinkWindowOptions&, DeviceView*)>;

// The union of what `checks` need (CheckNeeds bits).
unsigned NeedsOf(const std::vector<const Check*>& checks);

// How long a live gather watches counters and events for kNeedsWindow: the
// asked window, never longer than a check's deadline (it is part of the
// checks' time).
double WindowSeconds(const Options& o);

// Errors name the file (and line): exit code 2. `needs` decides what a live
// gather reads beyond the basics (kNeedsRulesets: the firewall rulesets;
// kNeedsWindow: RunInputs::window, left for the run to watch).
absl::StatusOr<RunInputs> LoadRunInputs(const InputSources& src, unsigned needs);

// Watches in->window now, with nothing else of ours running, into in->view
// (phase "gather.window"): for a capture, and for peer mode, whose view is
// merged with the far end's before its checks run. No pending window: a
// no-op.
void WatchWindowNow(RunInputs* in, const WindowWatcher& watch = nullptr);

// The Device a check acts through: the real one when the view is live (the
// open failure when it cannot be opened: "ibv_open_device(dev=rxe0):
// Permission denied"), the driver model of its profile otherwise.
absl::StatusOr<std::unique_ptr<Device>> DeviceFor(const DeviceView& view, const DeviceInfo& dev);

// DeviceFor over its own copy of `view`: a factory that may outlive the
// caller's view (the runner hands it to a check's thread).
DeviceFactory DevicesOf(DeviceView view);

// The report's header facts (host, kernel, devices) from the inputs.
RunReport MakeReport(const RunInputs& in, std::vector<Result> results, absl::Time started, double seconds);

// One run. While it lives, every device the run opens (gathering, checks,
// probes) is opened once (verbs::ContextCache) and closed when it ends.
class Session {
 public:
  // Runs `checks` and makes the report, results in the order of `checks`.
  // `device_for` replaces DeviceFor (peer mode routes probes across the
  // link).
  //
  // A pending in.window is watched on a thread of its own while the checks
  // that do not judge it run; those that load the link to its limit
  // (kLoadsLink: bandwidth) run after it, then link-health and pcie. Its
  // counters then include this run's own probes, so it stands only when
  // none of the counters they judge moved (JudgedMoves: then no error
  // happened, with or without our traffic). Otherwise, or when a check's
  // deadline cut it short, a second window is watched after the checks with
  // nothing of ours running, and that one is judged, with the first one's
  // events (a probe raises none on the device's own context). The window's
  // notes say which; in.view gets the window judged.
  RunReport Run(RunInputs& in, const std::vector<const Check*>& checks, DeviceFactory device_for = nullptr,
                WindowWatcher watch = nullptr) const;

 private:
  verbs::ContextCache contexts_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_SESSION_H_
