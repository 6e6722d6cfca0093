#include "checks/device_limits.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

// {profile, plan, verdict, a substring every run must show}.
struct Row {
  const char* profile;
  const char* plan;
  Verdict verdict;
  const char* says;
};

TEST(DeviceLimits, SeedConfigurationsAndIncidentsOnEachDevice) {
  const Row rows[] = {
      {"rxe_mtu9000.profile", "config_a.plan", Verdict::kPass, "max_qp_wr"},
      {"rxe_mtu9000.profile", "config_b.plan", Verdict::kPass, "max_sge"},
      {"rxe_mtu9000.profile", "config_c.plan", Verdict::kPass, "max_cqe"},
      {"mlx5_cx6.profile", "config_b.plan", Verdict::kPass, "<= 32768 (max_qp_wr)"},
      // The EINVAL incident: 65536 WRs x 16 SGEs on a device of 16384 WRs.
      {"rxe_old_kernel.profile", "incident_einval.plan", Verdict::kFail, "<= 16384 (max_qp_wr)"},
      {"mlx4_cx3.profile", "incident_einval.plan", Verdict::kFail, "<= 16351 (max_qp_wr)"},
      // siw takes 6 SGEs; configuration B asks 8.
      {"siw.profile", "config_b.plan", Verdict::kFail, "<= 6 (max_sge)"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.profile) + " + " + row.plan);
    Plan p = FixturePlan(row.plan);
    p.device.reset();  // fixture plans may name rxe0; run on whatever the profile has
    Result r = RunOnView(DeviceLimitsCheck(), FixtureProfile(row.profile), p);
    EXPECT_EQ(r.verdict, row.verdict) << AllText(r);
    EXPECT_THAT(AllText(r), HasSubstr(row.says));
  }
}

TEST(DeviceLimits, EinvalIncidentNamesFieldBothNumbersAndTheFix) {
  Plan p = FixturePlan("incident_einval.plan");
  p.device.reset();
  Result r = RunOnView(DeviceLimitsCheck(), FixtureProfile("rxe_old_kernel.profile"), p);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("max_send_wr", "65536", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("max_send_wr to 16384 or less")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ibv_devinfo -v -d rxe0")));
}

TEST(DeviceLimits, WarnsAboveNinetyPercent) {
  Plan p = DefaultPlan();
  p.is_default = false;
  p.qp_classes[0].caps.max_send_wr = 15000;  // 91.5% of 16384
  Result r = RunOnView(DeviceLimitsCheck(), FixtureProfile("rxe_old_kernel.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("max_send_wr", "15000", Verdict::kWarn)));
  p.qp_classes[0].caps.max_send_wr = 14000;  // 85%
  EXPECT_EQ(RunOnView(DeviceLimitsCheck(), FixtureProfile("rxe_old_kernel.profile"), p).verdict,
            Verdict::kPass);
}

TEST(DeviceLimits, CountsQpsAgainstMaxQp) {
  Plan p = DefaultPlan();
  p.qp_classes[0].count = 20000;  // qib takes 16384 QPs
  Result r = RunOnView(DeviceLimitsCheck(), FixtureProfile("qib_legacy.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QPs in the plan", "20000", Verdict::kFail)));
}

TEST(DeviceLimits, DefaultPlanIsSaid) {
  Result r = RunOn(DeviceLimitsCheck(), "rxe_mtu1500.profile");
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(AllText(r), HasSubstr("no --plan given"));
  EXPECT_THAT(AllText(r), HasSubstr("min(send, recv)"));
}

TEST(DeviceLimits, SkipsWithoutLimitsOrDevice) {
  DeviceView v;
  DeviceInfo d;
  d.name = "rxe0";
  v.devices.push_back(d);
  Result r = RunOnView(DeviceLimitsCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("fact missing: rxe0 attr"));
  EXPECT_EQ(RunOn(DeviceLimitsCheck(), "no_device.profile").verdict, Verdict::kSkip);
}

}  // namespace
}  // namespace rdmacheck
