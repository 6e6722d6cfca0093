#include "checks/runner.h"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

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
  static Env e;  // outlives the detached check thread
  e.opts.check_deadline_s = 0.05;
  static FakeCheck c(FakeCheck::kSlow);
  CheckContext ctx{e.view, e.plan, e.opts, nullptr};
  auto t0 = std::chrono::steady_clock::now();
  Result r = RunOneCheck(c, ctx);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.notes.at(0), HasSubstr("no answer within its deadline of 0.05 s"));
  EXPECT_LT(took, 0.4);
}

}  // namespace
}  // namespace rdmacheck
