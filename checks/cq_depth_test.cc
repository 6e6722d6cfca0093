#include "checks/cq_depth.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOnView;
using ::rdmacheck::testing::RunOnViewWithModel;
using ::testing::Contains;
using ::testing::HasSubstr;

// The first device of `profile` with its driver model; the plan's device
// cleared (fixture plans may name rxe0).
Result RunModel(const char* profile, Plan p) {
  p.device.reset();
  DeviceView v = FixtureProfile(profile);
  Options o;
  o.device = v.devices.at(0).name;
  return RunOnViewWithModel(CqDepthCheck(), v, p, o);
}
Result RunModel(const char* profile, const char* plan) { return RunModel(profile, FixturePlan(plan)); }

struct Row {
  const char* profile;
  const char* plan;
  Verdict verdict;
  const char* actual;    // in the CQ's evidence row
  const char* expected;  // likewise
};

TEST(CqDepth, SeedConfigurationsAndIncidentOnEachModel) {
  const Row rows[] = {
      // rxe rounds a queue of n WRs to 2^k - 1 >= n: config A's 256/256
      // become 511 + 511 = 1022, but its CQ of 512 becomes 1023 too. PASS,
      // by one completion.
      {"rxe_mtu9000.profile", "config_a.plan", Verdict::kPass, "holds 1023 completions (cqe 512 asked",
       ">= 1022 completions: QPs gw x1 can have 511 send + 511 recv"},
      {"rxe_mtu9000.profile", "config_b.plan", Verdict::kPass, "holds 16383", ">= 16382"},
      // 64 QPs x (255 + 255) = 32640 on one CQ of 16384 -> 32767.
      {"rxe_mtu9000.profile", "config_c.plan", Verdict::kPass, "holds 32767",
       ">= 32640 completions: QPs lowlat x64 can have 64 x (255 send + 255 recv)"},
      // The CQ incident: 2048 + 2048 on a CQ of 3000. rxe: 4095 + 4095 on 4095.
      {"rxe_mtu9000.profile", "incident_cq3000.plan", Verdict::kFail, "holds 4095 completions",
       ">= 8190 completions: QPs worker x1 can have 4095 send + 4095 recv"},
      // Generic model (qib): exactly the incident's numbers, 4096 > 3000.
      {"qib_legacy.profile", "incident_cq3000.plan", Verdict::kFail, "holds 3000 completions",
       ">= 4096 completions: QPs worker x1 can have 2048 send + 2048 recv"},
      {"qib_legacy.profile", "config_a.plan", Verdict::kPass, "holds 512", ">= 512"},
      {"qib_legacy.profile", "config_c.plan", Verdict::kPass, "holds 16384", ">= 16384"},
      // mlx5 grants 2048 + 2048 and a CQ of 3000 -> 4095: one short.
      {"mlx5_cx6.profile", "incident_cq3000.plan", Verdict::kFail, "holds 4095", ">= 4096"},
      {"mlx5_cx6.profile", "config_a.plan", Verdict::kPass, "holds 1023", ">= 512"},
      // mlx5 rounds the send queue's bytes, not its WRs: 4096 x 320 B WQEs
      // round to 2 MiB, which holds 6553 WRs; 6553 + 4096 = 10649 <= 16383.
      {"mlx5_cx6.profile", "config_b.plan", Verdict::kPass, "holds 16383",
       ">= 10649 completions: QPs bulk x1 can have 6553 send + 4096 recv"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.profile) + " + " + row.plan);
    Result r = RunModel(row.profile, row.plan);
    EXPECT_EQ(r.verdict, row.verdict) << AllText(r);
    bool found = false;
    for (const Evidence& e : r.evidence)
      found = found || (e.subject.find(": CQ ") != std::string::npos &&
                        e.actual.find(row.actual) != std::string::npos &&
                        e.expected.find(row.expected) != std::string::npos && e.verdict == row.verdict);
    EXPECT_TRUE(found) << AllText(r);
  }
}

TEST(CqDepth, RemedyGivesTheCqeToAskForAfterRounding) {
  Result r = RunModel("qib_legacy.profile", "incident_cq3000.plan");
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.remediation, Contains(HasSubstr("set [cq small_cq] cqe = 4096   # qib0 grants 4096")));
  EXPECT_THAT(r.remediation.back(), HasSubstr("--checks cq-depth"));
  EXPECT_THAT(AllText(r), HasSubstr("no driver checked here"));

  r = RunModel("rxe_mtu9000.profile", "incident_cq3000.plan");
  EXPECT_THAT(r.remediation, Contains(HasSubstr("set [cq small_cq] cqe = 8190   # rxe0 grants 8191")));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0: CQ small_cq (each of 8)", "cqe 3000 asked, 4095 granted",
                                               Verdict::kFail)));
}

TEST(CqDepth, OverMaxCqeSuggestsMoreCqs) {
  Plan p = FixturePlan("config_c.plan");
  p.qp_classes[0].caps.max_send_wr = 256;  // rxe: 511 + 255 per QP, x64 = 49024 > 32767
  Result r = RunModel("rxe_mtu9000.profile", p);
  ASSERT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.remediation, Contains(HasSubstr("set [cq shared_cq] count = 2 and cqe = 32767")));
}

TEST(CqDepth, SplitSendAndRecvCqsAndSrq) {
  Plan p = FixturePlan("config_b.plan");  // 4 QPs of 4096/4096 on bulk_cq x4
  p.cqs.push_back({"rx_cq", 0, 2048, 1});
  p.srqs.push_back({"pool", 0, 1000, 1, 1, "rx_cq"});
  p.qp_classes[0].recv_cq = "rx_cq";
  p.qp_classes[0].srq = "pool";
  Result r = RunModel("qib_legacy.profile", p);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  // The send CQs carry only the send side now; the receive CQ one SRQ.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("CQ bulk_cq", "holds 8192", Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr(">= 4096 completions: QPs bulk x1 can have 4096 send outstanding"));
  EXPECT_THAT(AllText(r), HasSubstr(">= 1000 completions: SRQ pool x1 can have 1000 recv (as asked)"));
  p.srqs[0].max_wr = 4000;
  EXPECT_EQ(RunModel("qib_legacy.profile", p).verdict, Verdict::kFail);
}

TEST(CqDepth, SkipsOrSaysWhy) {
  Result r = RunOnView(CqDepthCheck(), FixtureProfile("rxe_mtu9000.profile"), FixturePlan("config_a.plan"));
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(AllText(r), HasSubstr("could not carry out"));
  r = RunOnViewWithModel(CqDepthCheck(), FixtureProfile("no_device.profile"), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("no RDMA device"));
  // The default plan: 128/128 -> rxe 255 + 255 = 510 on a CQ of 256 -> 511.
  r = RunOnViewWithModel(CqDepthCheck(), FixtureProfile("rxe_mtu9000.profile"), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(AllText(r), HasSubstr("no --plan given"));
}

}  // namespace
}  // namespace rdmacheck
