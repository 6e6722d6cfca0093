#include "checks/cq_overrun.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"

#include "acts/testing/fake_device.h"
#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

DeviceView Live() {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.source = "live";
  return v;
}

CqOverrunResult Base() {
  CqOverrunResult r;
  r.device = "rxe0";
  r.gid_index = 1;
  r.gid = "::ffff:198.18.0.1";
  r.requested_cqe = 4;
  r.granted_cqe = 7;
  r.granted_send_wr = 31;
  r.posted = 16;
  r.post_seconds = 0.0004;
  r.setup_seconds = 0.02;
  return r;
}

// A driver that signals and fails the QP, as older rxe is described to: CQ_ERR,
// QP to ERR, what fit is kept (6.1 keeps the QP in RTS: docs/checks/cq-overrun.md).
CqOverrunResult Signalled() {
  CqOverrunResult r = Base();
  r.cq_err_seconds = 0.0031;
  r.events = {{"IBV_EVENT_CQ_ERR (CQ error) on rxe0", 0.0031}, {"IBV_EVENT_CQ_ERR (CQ error) on rxe0", 0.0035}};
  r.qp_state_after = "ERR";
  r.statuses = {{"success", 7}};
  r.polled = 7;
  r.polled_success = 7;
  r.next_wr = "completed: Work Request Flushed Error";
  r.qp_state_final = "ERR";
  return r;
}

// A device that drops completions without a word.
CqOverrunResult Silent() {
  CqOverrunResult r = Base();
  r.qp_state_after = "RTS";
  r.statuses = {{"success", 7}};
  r.polled = 7;
  r.polled_success = 7;
  r.next_wr = "completed: success";
  r.qp_state_final = "RTS";
  return r;
}

// Runs the check with a Device whose CQ overrun probe answers `canned`;
// *seen gets the last request.
Result RunWith(const DeviceView& view, absl::StatusOr<CqOverrunResult> canned, CqOverrunRequest* seen,
               const Plan& plan, Options opts = Options()) {
  opts.device = "rxe0";
  testing::FakeDevice fake;
  fake.cq_overrun_probe.Always(std::move(canned));
  Result r = testing::RunOnViewWithFake(CqOverrunCheck(), view, plan, fake, opts);
  fake.cq_overrun_probe.CopyLastRequest(seen);
  return r;
}

TEST(CqOverrunTest, ProfileSkipsNeedingALiveDevice) {
  Result r = testing::RunOnModel(CqOverrunCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_EQ(r.skip_reason, "needs a live device");
  EXPECT_TRUE(CqOverrunCheck().live_only());
}

TEST(CqOverrunTest, DeviceWithoutTheProbeSkipsWithItsReason) {
  // A live view whose Device is a driver model (no probe): Device's default.
  Plan plan = FixturePlan("");
  Options o;
  DeviceView v = Live();
  testing::FakeDevice no_probe;  // no probe answer: Device's default
  Result r = testing::RunOnViewWithFake(CqOverrunCheck(), v, plan, no_probe, o);
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_EQ(r.skip_reason, "CQ overrun probe needs a live device");
}

TEST(CqOverrunTest, SignalledOverrunPassesAndReportsWhatHappened) {
  CqOverrunRequest seen;
  Options o;
  o.probe_deadline_s = 1.5;
  Result r = RunWith(Live(), Signalled(), &seen, FixturePlan("incident_cq3000.plan"), o);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_EQ(seen.device, "rxe0");
  EXPECT_EQ(seen.cqe, 4u);
  EXPECT_EQ(seen.deadline_s, 1.5);
  EXPECT_EQ(seen.gid_index, 1);  // the IPv4-mapped RoCE v2 GID of the profile
  EXPECT_EQ(r.title,
            "rxe0 signals a CQ overrun with IBV_EVENT_CQ_ERR after 3.10 ms; QP moved to ERR; 7 completions kept, "
            "9 lost");
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 small CQ and burst",
                                               "cqe 7 granted; 16 signaled RDMA WRITEs of 64 B", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 CQ overrun event", "IBV_EVENT_CQ_ERR after 3.10 ms (2 CQ_ERR events",
                                               Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 sender QP state after the overrun", "ERR", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 completions polled after the burst",
                                               "7 of 16 (7 success); 9 lost", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 a WR posted after the drain",
                                               "completed: Work Request Flushed Error; QP ERR", Verdict::kPass)));
  // Tied to the plan's CQs and cq-depth.
  EXPECT_THAT(AllText(r), HasSubstr("--checks cq-depth"));
  EXPECT_THAT(AllText(r), HasSubstr("granted send + receive WRs"));
  EXPECT_THAT(r.remediation, IsEmpty());
}

TEST(CqOverrunTest, SilentLossWarnsWithRemediation) {
  Plan plan = FixturePlan("incident_cq3000.plan");
  Result r = RunWith(Live(), Silent(), nullptr, plan);
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 CQ overrun event", "none within 2 s", Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 completions polled after the burst", "9 lost", Verdict::kWarn)));
  EXPECT_THAT(r.title, HasSubstr("rxe0 raised no IBV_EVENT_CQ_ERR; QP stayed in RTS; 7 completions kept, 9 lost"));
  ASSERT_EQ(r.remediation.size(), 3u);
  EXPECT_THAT(r.remediation[0], HasSubstr(absl::StrCat("--plan ", plan.path, " -d rxe0 --checks cq-depth")));
  EXPECT_THAT(r.remediation[2], HasSubstr("--checks cq-depth,cq-overrun"));
}

TEST(CqOverrunTest, NoOverrunAtAllWarns) {
  CqOverrunResult r = Silent();
  r.polled = 16;
  r.statuses = {{"success", 16}};
  Result res = RunWith(Live(), r, nullptr, FixturePlan(""));
  EXPECT_EQ(res.verdict, Verdict::kWarn);
  EXPECT_THAT(AllText(res), HasSubstr("kept all 16 completions in a CQ granted 7 entries"));
  EXPECT_THAT(res.remediation, IsEmpty());
}

TEST(CqOverrunTest, SetupErrorIsCouldNotCarryOut) {
  Result r = RunWith(Live(), absl::FailedPreconditionError("rxe0 port 1 is DOWN, not ACTIVE"), nullptr, FixturePlan(""));
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 CQ overrun probe setup", "port 1 is DOWN", Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("--checks port-active -d rxe0")));
}

TEST(CqOverrunTest, InterruptedWarnsAndSaysReleased) {
  CqOverrunResult c = Base();
  c.interrupted = true;
  c.qp_state_after = "RTS";
  c.next_wr = "not posted (interrupted)";
  Result r = RunWith(Live(), c, nullptr, FixturePlan(""));
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(AllText(r), HasSubstr("interrupted (SIGINT): every resource was released"));
  EXPECT_THAT(r.remediation, Not(Contains(HasSubstr("do not rely"))));
}

// Each device's probe is loopback on that device: the check runs them side
// by side, and reports them in device order.
TEST(CqOverrunTest, DevicesAreProbedSideBySideAndReportedInOrder) {
  std::atomic<int> running{0}, most{0};
  testing::FakeDevice fake;
  fake.cq_overrun_probe.With([&](const CqOverrunRequest& req) -> absl::StatusOr<CqOverrunResult> {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    // Long enough for the other device's probe to start meanwhile.
    for (int i = 0; i < 200 && most.load() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    --running;
    CqOverrunResult r = Signalled();
    r.device = req.device;
    return r;
  });
  Result r = testing::RunOnViewWithFake(CqOverrunCheck(), Live(), FixturePlan(""), fake, Options());
  EXPECT_EQ(fake.cq_overrun_probe.calls(), 2);
  EXPECT_EQ(most.load(), 2) << "the two devices' probes did not overlap";
  std::vector<std::string> order;
  for (const Evidence& e : r.evidence)
    if (absl::EndsWith(e.subject, "CQ overrun event")) order.push_back(e.subject);
  EXPECT_THAT(order, ::testing::ElementsAre("rxe0 CQ overrun event", "rxe1 CQ overrun event"));
}

}  // namespace
}  // namespace rdmacheck
