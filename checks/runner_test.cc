#include "checks/runner.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/stop_flag.h"

namespace rdmacheck {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

class FakeCheck : public Check {
 public:
  enum Mode { kOk, kThrow, kSlow };
  explicit FakeCheck(Mode m) : mode_(m) {}
  absl::string_view id() const override { return "fake"; }
  absl::string_view summary() const override { return "a fake check"; }
  Result Run(const CheckContext&) const override {
    if (mode_ == kThrow) throw std::runtime_error("boom");
    if (mode_ == kSlow) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ResultBuilder r(*this, "fine");
    r.Expect("x", "1", "1");
    return r.Build();
  }

 private:
  Mode mode_;
};

struct Env {
  DeviceView view;
  Plan plan = DefaultPlan();
  Options opts;
};

TEST(Runner, RunsAndTimes) {
  Env e;
  FakeCheck c(FakeCheck::kOk);
  CheckContext ctx{e.view, e.plan, e.opts, nullptr};
  Result r = RunOneCheck(c, ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_EQ(r.id, "fake");
  EXPECT_GE(r.seconds, 0);
}

TEST(Runner, ExceptionBecomesCouldNotCarryOut) {
  Env e;
  FakeCheck c(FakeCheck::kThrow);
  CheckContext ctx{e.view, e.plan, e.opts, nullptr};
  Result r = RunOneCheck(c, ctx);
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_THAT(r.notes[0], HasSubstr("could not carry out: internal error: boom"));
}

TEST(Runner, DeadlineBecomesCouldNotCarryOutInTime) {
  Env e;
  e.opts.check_deadline_s = 0.05;
  e.opts.stop_grace_s = 0.05;
  static FakeCheck c(FakeCheck::kSlow);  // outlives its thread, which ignores the stop flag
  CheckContext ctx{e.view, e.plan, e.opts, nullptr};
  auto t0 = std::chrono::steady_clock::now();
  Result r = RunOneCheck(c, ctx);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.notes.at(0), HasSubstr("no answer within its deadline of 0.05 s"));
  EXPECT_THAT(r.notes.at(0), HasSubstr("still running 0.05 s after it was told to stop"));
  EXPECT_LT(took, 0.4);
  StopFlag().store(false);
}

// A probe-like check: holds a "device resource" while it waits for a
// completion that never comes, polling the stop flag as the probes do, and
// releases it on the way out.
std::atomic<int> g_held{0};
std::atomic<int> g_max_held_seen{-1};

class BlockingProbeCheck : public Check {
 public:
  absl::string_view id() const override { return "blocks"; }
  absl::string_view summary() const override { return "waits for a completion that never comes"; }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext&) const override {
    ++g_held;
    while (!StopFlag().load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    --g_held;
    ResultBuilder r(*this, "late");
    r.Expect("x", "1", "1");
    return r.Build();
  }
};

// Records how many resources were held by others while it ran.
class NextCheck : public Check {
 public:
  absl::string_view id() const override { return "next"; }
  absl::string_view summary() const override { return "runs after"; }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext&) const override {
    g_max_held_seen = g_held.load();
    ResultBuilder r(*this, "ran");
    r.Expect("stop flag", "down", StopFlag().load() ? "up" : "down");
    return r.Build();
  }
};

TEST(Runner, OverrunIsStoppedAndReleasedBeforeTheNextCheck) {
  Env e;
  e.opts.check_deadline_s = 0.1;
  BlockingProbeCheck blocks;
  NextCheck next;
  CheckContext ctx{e.view, e.plan, e.opts, nullptr};
  std::vector<Result> rs = RunChecks({&blocks, &next}, ctx);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].verdict, Verdict::kWarn);
  EXPECT_THAT(rs[0].notes.at(0), HasSubstr("no answer within its deadline of 0.1 s"));
  EXPECT_THAT(rs[0].notes.at(0), HasSubstr("stopped, and everything it held on the device released"));
  EXPECT_LT(rs[0].seconds, 1.0);
  EXPECT_EQ(g_held.load(), 0);
  EXPECT_EQ(rs[1].verdict, Verdict::kPass);
  EXPECT_EQ(g_max_held_seen.load(), 0);  // ran alone
  EXPECT_FALSE(StopFlag().load());
}

// Ignores the stop flag until released by the test.
std::atomic<bool> g_release{false};
class StuckCheck : public Check {
 public:
  absl::string_view id() const override { return "stuck"; }
  absl::string_view summary() const override { return "never polls the stop flag"; }
  unsigned needs() const override { return kNeedsDevice; }
  Result Run(const CheckContext& ctx) const override {
    while (!g_release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    // Reads its context after RunChecks returned: a copy the runner shared.
    ResultBuilder r(*this, ctx.plan.path);
    return r.Build();
  }
};

TEST(Runner, StuckCheckHoldsBackDeviceChecksOnly) {
  FakeCheck static_check(FakeCheck::kOk);  // needs() == 0
  NextCheck next;
  static StuckCheck stuck;
  {
    Env e;
    e.opts.check_deadline_s = 0.05;
    e.opts.stop_grace_s = 0.05;
    CheckContext ctx{e.view, e.plan, e.opts, nullptr};
    std::vector<Result> rs = RunChecks({&stuck, &next, &static_check}, ctx);
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_THAT(rs[0].notes.at(0), HasSubstr("still running"));
    EXPECT_EQ(rs[1].id, "next");
    EXPECT_EQ(rs[1].verdict, Verdict::kWarn);
    EXPECT_THAT(rs[1].notes.at(0), HasSubstr("not started: stuck is still running past its deadline"));
    EXPECT_EQ(rs[2].verdict, Verdict::kPass);
  }  // e and ctx are gone; the stuck check reads its own copy
  g_release = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  StopFlag().store(false);
}

// A run made of several calls (the session's groups around the counter
// window) holds device checks back across them too.
TEST(Runner, AStuckCheckNamedByAnEarlierCallHoldsBackDeviceChecks) {
  FakeCheck static_check(FakeCheck::kOk);
  NextCheck next;
  Env e;
  CheckContext ctx{e.view, e.plan, e.opts, nullptr};
  std::string stuck = "hung-qp";
  std::vector<Result> rs = RunChecks({&next, &static_check}, ctx, &stuck);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].verdict, Verdict::kWarn);
  EXPECT_THAT(rs[0].notes.at(0), HasSubstr("not started: hung-qp is still running past its deadline"));
  EXPECT_EQ(rs[1].verdict, Verdict::kPass);
  std::string none;
  rs = RunChecks({&next}, ctx, &none);
  EXPECT_EQ(rs[0].id, "next");
  EXPECT_THAT(rs[0].notes, Not(Contains(HasSubstr("not started"))));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace rdmacheck
