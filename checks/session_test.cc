#include "checks/session.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "checks/link_health.h"
#include "checks/registry.h"
#include "util/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Session, NeedsOfTheSelection) {
  EXPECT_EQ(NeedsOf({FindCheck("device-present"), FindCheck("port-active")}), 0u);
  EXPECT_EQ(NeedsOf({FindCheck("firewall-4791")}), static_cast<unsigned>(kNeedsRulesets));
  // The traffic checks read the qdiscs first (nothing is sent into one that
  // drops full-size frames).
  EXPECT_EQ(NeedsOf({FindCheck("firewall-4791"), FindCheck("hung-qp")}),
            static_cast<unsigned>(kNeedsRulesets | kNeedsDevice | kNeedsQdiscs));
  EXPECT_EQ(NeedsOf({FindCheck("device-limits"), FindCheck("gid-table")}) & kNeedsQdiscs, 0u);
  EXPECT_NE(NeedsOf(AllChecks()) & kNeedsRulesets, 0u);
  EXPECT_EQ(NeedsOf({FindCheck("link-health"), FindCheck("pcie")}), static_cast<unsigned>(kNeedsWindow));
}

TEST(Session, LiveWindowIsBoundedByTheCheckDeadline) {
  Options o;
  EXPECT_DOUBLE_EQ(WindowSeconds(o), 2);
  o.window_s = 30;
  o.check_deadline_s = 0.3;
  EXPECT_DOUBLE_EQ(WindowSeconds(o), 0.3);
}

TEST(Session, NoDeviceNoWindow) {
  // This host has no RDMA device: nothing to watch, no time spent on it.
  InputSources src;
  src.options.window_s = 30;
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, kNeedsWindow);
  ASSERT_TRUE(in.ok()) << in.status();
  if (!in->view.devices.empty()) GTEST_SKIP() << "this host has RDMA devices";
  EXPECT_FALSE(in->view.window.has_value());
  EXPECT_FALSE(in->window.has_value());
}

// ---- The window beside the checks (Session::Run). ----

// A check that stands for a probe: it sends traffic, so it raises `sent`.
class ProbeCheck : public Check {
 public:
  absl::string_view id() const override { return "probe"; }
  absl::string_view summary() const override { return "sends traffic"; }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext& ctx) const override {
    saw_window = ctx.view.window.has_value();
    // Waits (5 s at most) for the window to open, so that "beside" does not
    // hang on when its thread got the CPU.
    const double until = MonotonicSeconds() + 5;
    while (window_open && !window_open->load() && MonotonicSeconds() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ran_in_window = window_open && window_open->load();
    sent.store(true);
    done_at = MonotonicSeconds();
    return ResultBuilder(*this, "sent").Build();
  }
  const std::atomic<bool>* window_open = nullptr;
  mutable std::atomic<bool> sent{false};
  mutable bool saw_window = false;
  mutable bool ran_in_window = false;
  mutable double done_at = 0;
};

// A window watcher over the profile's counters: the n-th call adds
// moves[n] to hw_counter completer_retry_err (a counter link-health judges)
// and raises the events of events[n]. It waits for the probe up to 5 s when
// asked, recording whether it ran beside it.
struct FakeWatcher {
  std::vector<uint64_t> moves;
  std::vector<std::vector<AsyncEventSeen>> events;
  // Paired with `probe`: each waits for the other (5 s at most).
  explicit FakeWatcher(ProbeCheck* probe = nullptr) : wait_for(probe) {
    if (probe) probe->window_open = &open;
  }
  ProbeCheck* wait_for = nullptr;
  double hold_s = 0.2;
  std::atomic<bool> open{false};  // a window is being watched
  int calls = 0;
  std::vector<bool> beside_probe;  // per call: did the probe run during it
  std::vector<double> started_at;
  // Per call: what its give_up_when said of the end sample (none: not asked).
  std::vector<std::optional<bool>> gave_up;

  WindowWatcher Watcher() {
    return [this](const LinkWindowOptions& o, DeviceView* v) {
      const int n = calls++;
      started_at.push_back(MonotonicSeconds());
      open.store(true);
      const double until = MonotonicSeconds() + 5;
      while (wait_for && !wait_for->sent.load() && MonotonicSeconds() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      beside_probe.push_back(wait_for && wait_for->sent.load() && wait_for->ran_in_window);
      std::this_thread::sleep_for(std::chrono::duration<double>(hold_s));  // the window's length
      open.store(false);
      LinkWindow w;
      w.ms = static_cast<int64_t>(o.seconds * 1000);
      for (DeviceInfo& d : v->devices) {
        w.watched.push_back(d.name);
        for (PortInfo& p : d.ports) {
          p.counters_after = p.counters;
          p.hw_counters_after = p.hw_counters;
          if (n < static_cast<int>(moves.size())) p.hw_counters_after["completer_retry_err"] += moves[n];
        }
      }
      if (n < static_cast<int>(events.size())) w.events = events[n];
      v->window = w;
      gave_up.push_back(o.give_up_when ? std::optional<bool>(o.give_up_when(*v)) : std::nullopt);
    };
  }
};

RunInputs WindowInputs() {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.options.device = "rxe0";
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, kNeedsWindow);
  EXPECT_TRUE(in.ok()) << in.status();
  EXPECT_FALSE(in->window.has_value()) << "a profile has no live window to watch";
  LinkWindowOptions w;
  w.seconds = 2;
  w.only_device = "rxe0";
  in->window = w;  // as LoadRunInputs leaves it on a live host
  return *std::move(in);
}

bool HasPhase(const RunReport& rep, const std::string& name) {
  for (const Phase& p : rep.phases)
    if (p.name == name) return true;
  return false;
}

TEST(SessionWindow, WatchedBesideTheProbesStandsWhenNothingJudgedMoved) {
  RunInputs in = WindowInputs();
  ProbeCheck probe;
  FakeWatcher fake(&probe);
  // link-health first: the report keeps this order though it runs last.
  RunReport rep = Session().Run(in, {FindCheck("link-health"), &probe}, nullptr, fake.Watcher());
  EXPECT_EQ(fake.calls, 1);
  ASSERT_EQ(fake.beside_probe.size(), 1u);
  EXPECT_TRUE(fake.beside_probe[0]) << "the window did not run while the probe did";
  EXPECT_FALSE(probe.saw_window) << "a check beside the window sees none";
  ASSERT_EQ(rep.results.size(), 2u);
  EXPECT_EQ(rep.results[0].id, "link-health");
  EXPECT_EQ(rep.results[1].id, "probe");
  EXPECT_EQ(rep.results[0].verdict, Verdict::kPass);
  EXPECT_THAT(rep.results[0].notes, ::testing::Contains(HasSubstr("watched while the other checks ran")));
  EXPECT_FALSE(in.window.has_value());
  ASSERT_TRUE(in.view.window.has_value()) << "the view keeps the window judged (prometheus reads it)";
  EXPECT_TRUE(HasPhase(rep, "window.rest"));
  EXPECT_FALSE(HasPhase(rep, "window.quiet"));
  EXPECT_THAT(fake.gave_up, ::testing::ElementsAre(std::optional<bool>(false)))
      << "beside the probes the window may end early, and nothing moved";
}

TEST(SessionWindow, AJudgedCounterThatMovedBesideTheProbesIsWatchedAgainAfterThem) {
  RunInputs in = WindowInputs();
  ProbeCheck probe;
  FakeWatcher fake(&probe);
  fake.moves = {3, 0};  // the probes' retries, then a quiet link
  AsyncEventSeen down;
  down.device = "rxe0";
  down.type = "PORT_ERR";
  down.port = 1;
  down.at_ms = 100;
  fake.events = {{down}, {}};
  RunReport rep = Session().Run(in, {&probe, FindCheck("link-health")}, nullptr, fake.Watcher());
  ASSERT_EQ(fake.calls, 2);
  EXPECT_GE(fake.started_at[1], probe.done_at) << "the second window must start after the probes";
  ASSERT_EQ(rep.results.size(), 2u);
  const Result& lh = rep.results[1];
  EXPECT_EQ(lh.id, "link-health");
  EXPECT_THAT(lh.notes, ::testing::Contains(AllOf(HasSubstr("rxe0 port 1 completer_retry_err +3"),
                                                 HasSubstr("(in its first 2.0 s)"), HasSubstr("not judged"))));
  // The first window gives up once a judged counter moved; the quiet one
  // runs its whole length.
  EXPECT_THAT(fake.gave_up, ::testing::ElementsAre(std::optional<bool>(true), std::nullopt));
  // The retries were ours: not judged. The link going down was the device's.
  EXPECT_EQ(lh.verdict, Verdict::kFail);
  std::string text;
  for (const Evidence& e : lh.evidence) text += e.subject + ": " + e.actual + "\n";
  EXPECT_THAT(text, Not(HasSubstr("completer_retry_err (")));
  EXPECT_THAT(text, HasSubstr("link went down: PORT_ERR at -"));
  EXPECT_TRUE(HasPhase(rep, "window.quiet"));
}

TEST(SessionWindow, OnlyThePortLinkHealthJudgesDecidesWhetherTheWindowStands) {
  RunInputs in = WindowInputs();
  in.options.port = 2;  // -i 2: port 1's retries are not link-health's to judge
  ProbeCheck probe;
  FakeWatcher fake(&probe);
  fake.moves = {3};  // on port 1
  Session().Run(in, {&probe, FindCheck("link-health")}, nullptr, fake.Watcher());
  EXPECT_EQ(fake.calls, 1) << "no second window for a port not judged";
  EXPECT_THAT(fake.gave_up, ::testing::ElementsAre(std::optional<bool>(false)));
}

// bandwidth loads the link to its limit, which moves congestion and retry
// counters by itself: it runs after the window, not beside it.
class LoadCheck : public Check {
 public:
  absl::string_view id() const override { return "load"; }
  absl::string_view summary() const override { return "loads the link"; }
  unsigned needs() const override { return kNeedsDevice | kLoadsLink; }
  Result Run(const CheckContext& ctx) const override {
    started_at = MonotonicSeconds();
    saw_window = ctx.view.window.has_value();
    return ResultBuilder(*this, "loaded").Build();
  }
  mutable double started_at = 0;
  mutable bool saw_window = false;
};

TEST(SessionWindow, ACheckThatLoadsTheLinkRunsAfterTheWindow) {
  RunInputs in = WindowInputs();
  ProbeCheck probe;
  LoadCheck load;
  FakeWatcher fake(&probe);
  RunReport rep = Session().Run(in, {&load, &probe, FindCheck("link-health")}, nullptr, fake.Watcher());
  EXPECT_EQ(fake.calls, 1) << "nothing moved: one window";
  ASSERT_EQ(fake.beside_probe.size(), 1u);
  EXPECT_TRUE(fake.beside_probe[0]);
  EXPECT_GE(load.started_at, fake.started_at[0] + fake.hold_s) << "the load ran while the window was open";
  EXPECT_TRUE(load.saw_window);
  ASSERT_EQ(rep.results.size(), 3u);
  EXPECT_EQ(rep.results[0].id, "load");
  EXPECT_EQ(rep.results[1].id, "probe");
  EXPECT_EQ(rep.results[2].id, "link-health");
}

TEST(SessionWindow, OnlyWindowChecksWatchItFirstAsAGatherWould) {
  RunInputs in = WindowInputs();
  FakeWatcher fake;
  RunReport rep = Session().Run(in, {FindCheck("link-health")}, nullptr, fake.Watcher());
  EXPECT_EQ(fake.calls, 1);
  ASSERT_EQ(rep.results.size(), 1u);
  EXPECT_EQ(rep.results[0].verdict, Verdict::kPass);
  EXPECT_THAT(rep.results[0].notes, Not(::testing::Contains(HasSubstr("watched while"))));
  EXPECT_TRUE(HasPhase(rep, "gather.window"));
}

TEST(SessionWindow, WatchWindowNowFillsTheViewOnce) {
  RunInputs in = WindowInputs();
  FakeWatcher fake;
  WatchWindowNow(&in, fake.Watcher());
  WatchWindowNow(&in, fake.Watcher());
  EXPECT_EQ(fake.calls, 1);
  EXPECT_TRUE(in.view.window.has_value());
  EXPECT_FALSE(in.window.has_value());
}

TEST(Session, LoadsProfileAndPlan) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = "fixtures/plans/config_a.plan";
  src.options.device = "rxe0";
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, 0);
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_FALSE(in->view.live());
  EXPECT_EQ(in->plan.path, "fixtures/plans/config_a.plan");
  EXPECT_EQ(in->options.device, "rxe0");
}

TEST(Session, BadPlanNamesFileAndLine) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = "fixtures/plans/bad_typo.plan";
  EXPECT_THAT(LoadRunInputs(src, 0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("fixtures/plans/bad_typo.plan:")));
}

// A plan for a device the view lacks is bad input at the plan's line, not
// a run in which every check has nothing to look at.
TEST(Session, PlanDeviceMissingFromTheViewNamesThePlanLine) {
  const std::string path = ::testing::TempDir() + "/other_device.plan";
  std::ofstream(path) << "[plan]\nname = t\ndevice = mlx5_9\n[qp q]\nmax_send_wr = 1\nmax_recv_wr = 1\n";
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = path;
  EXPECT_THAT(LoadRunInputs(src, 0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(path + ":3: device: mlx5_9 is not a device of "
                                        "profile:fixtures/profiles/rxe_mtu9000.profile (devices: rxe0, rxe1)")));
}

TEST(Session, ProfileGetsTheDriverModel) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, 0);
  ASSERT_TRUE(in.ok()) << in.status();
  absl::StatusOr<std::unique_ptr<Device>> dev = DeviceFor(in->view, in->view.devices.at(0));
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_THAT((*dev)->Describe(), HasSubstr("rxe model"));
}

// Live, a device that cannot be opened says why (this machine has none named
// so): the reason reaches the check instead of a bare "could not open".
TEST(Session, LiveOpenFailureIsTheReason) {
  DeviceView live;
  live.source = "live";
  DeviceInfo d;
  d.name = "rdmacheck_no_such_dev0";
  live.devices.push_back(d);
  ASSERT_TRUE(live.live());
  EXPECT_THAT(DeviceFor(live, d).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no RDMA device named rdmacheck_no_such_dev0")));
  CheckContext ctx{live, DefaultPlan(), Options{}, [&](const DeviceInfo& x) { return DeviceFor(live, x); }};
  EXPECT_THAT(ctx.OpenDevice(d).status(), StatusIs(absl::StatusCode::kNotFound, HasSubstr("rdmacheck_no_such_dev0")));
}

TEST(Session, RunMakesTheReport) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = "fixtures/plans/config_a.plan";
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, 0);
  ASSERT_TRUE(in.ok()) << in.status();
  Session session;
  RunReport rep = session.Run(*in, {FindCheck("device-present"), FindCheck("device-limits")});
  ASSERT_EQ(rep.results.size(), 2u);
  EXPECT_EQ(rep.results[0].id, "device-present");
  EXPECT_EQ(rep.results[0].verdict, Verdict::kPass);
  EXPECT_EQ(rep.plan, "fixtures/plans/config_a.plan");
  ASSERT_EQ(rep.devices.size(), 2u);  // rxe0 and its peer rxe1
  EXPECT_EQ(rep.devices[0].name, "rxe0");
  EXPECT_EQ(ExitCodeFor(rep.results), ExitCodeFor({rep.results[0], rep.results[1]}));
}

TEST(Session, ExitCodes) {
  Result pass, fail, skip;
  fail.verdict = Verdict::kFail;
  skip.verdict = Verdict::kSkip;
  EXPECT_EQ(ExitCodeFor({pass, skip}), kExitOk);
  EXPECT_EQ(ExitCodeFor({pass, fail}), kExitFail);
  EXPECT_EQ(ExitCodeFor({skip, skip}), kExitNothingRan);
}

}  // namespace
}  // namespace rdmacheck
