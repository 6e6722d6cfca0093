#include "checks/cap_readback.h"

#include "checks/check_test_util.h"
#include "acts/driver_model.h"
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
using ::testing::Not;

// Runs the check with the profile's driver model as the Device, as the CLI
// does on a profile.
Result RunModel(const DeviceView& view, Plan plan) {
  plan.device.reset();  // fixture plans may name rxe0; use whatever the profile has
  Options opts;
  CheckContext ctx{view, plan, opts, [](const DeviceInfo& d) { return MakeDriverModel(d); }};
  return CapReadbackCheck().Run(ctx);
}
Result RunModel(const std::string& profile, const std::string& plan) {
  return RunModel(FixtureProfile(profile), FixturePlan(plan));
}

// Configuration A (the storage gateway) on rxe: 256 WRs need 257 slots, rounded to
// 512; rxe reports 511 (rxe_queue.c). The fit is 255 (256 slots).
TEST(CapReadback, ConfigAOnRxeWarnsWithTheExactRequest) {
  Result r = RunModel("rxe_mtu9000.profile", "config_a.plan");
  ASSERT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class gw (RC) max_send_wr", "256 -> 511",
                                               Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class gw (RC) max_recv_wr", "256 -> 511",
                                               Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("max_send_sge", "4 -> 4 (as asked)",
                                               Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("queue memory per QP", "x1000", Verdict::kWarn)));
  EXPECT_THAT(r.remediation,
              Contains(HasSubstr("set [qp gw] max_send_wr = 255 and max_recv_wr = 255 "
                                 "(granted max_send_wr 255, max_recv_wr 255")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("rdmacheck diag create-qp -d rxe0 --plan "
                                                "fixtures/plans/config_a.plan --class gw")));
  EXPECT_THAT(AllText(r), HasSubstr("the overshoot costs"));
}

// rxe_guest.plan and variants of its depth: 2^k - 1 is granted exactly.
TEST(CapReadback, RxeDepthVariants) {
  struct Row {
    uint32_t wr;
    Verdict verdict;
    const char* shows;
    const char* fix;  // remediation substring, "" for none
  } rows[] = {
      {256, Verdict::kWarn, "256 -> 511", "max_send_wr = 255"},
      {255, Verdict::kPass, "255 -> 255 (as asked)", ""},
      {1023, Verdict::kPass, "1023 -> 1023 (as asked)", ""},
      {1024, Verdict::kWarn, "1024 -> 2047", "max_send_wr = 1023"},
      {700, Verdict::kPass, "700 -> 1023", ""},  // 1.46x: under the threshold
  };
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  for (const Row& row : rows) {
    SCOPED_TRACE(row.wr);
    Plan p = FixturePlan("rxe_guest.plan");
    p.qp_classes[0].caps.max_send_wr = row.wr;
    p.qp_classes[0].caps.max_recv_wr = 255;
    Result r = RunModel(v, p);
    EXPECT_EQ(r.verdict, row.verdict) << AllText(r);
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("max_send_wr", row.shows, row.verdict)));
    if (*row.fix) {
      EXPECT_THAT(r.remediation, Contains(HasSubstr(row.fix)));
    } else {
      EXPECT_THAT(r.remediation, Not(Contains(HasSubstr("set [qp"))));
    }
  }
}

// The EINVAL incident on rxe of an older kernel: FAIL with the bisector.
TEST(CapReadback, IncidentEinvalFailsWithTheBisectorsFinding) {
  Result r = RunModel("rxe_old_kernel.profile", "incident_einval.plan");
  ASSERT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class client (RC) ibv_create_qp",
                                               "Invalid argument", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("client (RC) max_send_wr",
                                               "65536; largest accepted 16384", Verdict::kFail)));
  EXPECT_THAT(r.notes, Contains(HasSubstr(
                           "max_send_wr=65536 is over this device's max_qp_wr 16384; with "
                           "max_send_sge=16 the largest accepted max_send_wr is 16384")));
  EXPECT_THAT(r.notes, Contains(HasSubstr("the CQ of 65792 entries is itself refused")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("set [qp client] max_send_wr to 16384 or less")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("rdmacheck diag create-qp -d rxe0")));
  // max_send_sge (16 <= 32) is not blamed.
  EXPECT_THAT(r.evidence, Not(Contains(EvidenceRow("max_send_sge", "", Verdict::kFail))));
}

// Configuration B on mlx5: 320-byte WQEs (192 B RC overhead + 8 x 16);
// 4096 x 320 rounds up to 2 MiB = 6553 WQEs (mlx5_calc_sq_size). Asking
// 3276 (1 MiB / 320) gets 3276. The RQ is exact: 4096 x 16 B.
TEST(CapReadback, ConfigBOnMlx5) {
  Result r = RunModel("mlx5_cx6.profile", "config_b.plan");
  ASSERT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("bulk (RC) max_send_wr", "4096 -> 6553",
                                               Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("bulk (RC) max_recv_wr", "4096 -> 4096 (as asked)",
                                               Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("max_inline_data", "0 -> 124", Verdict::kPass)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("set [qp bulk] max_send_wr = 3276 (granted "
                                                "max_send_wr 3276")));
}

TEST(CapReadback, SkipsWithoutDeviceOrModel) {
  Result r = RunModel("no_device.profile", "config_a.plan");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("no RDMA device"));
  // No Device to create on (RunOn passes none).
  r = ::rdmacheck::testing::RunOn(CapReadbackCheck(), "rxe_mtu9000.profile", "config_a.plan");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("no Device to create QPs on"));
}

TEST(CapReadback, DefaultPlanIsSaid) {
  Result r = RunModel(FixtureProfile("rxe_mtu1500.profile"), FixturePlan(""));
  // 128 -> 255: 1.99x.
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(AllText(r), HasSubstr("no --plan given"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("in the plan: set [qp default] max_send_wr = 127")));
}

}  // namespace
}  // namespace rdmacheck
