#include "checks/firmware.h"

#include <string>

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceFor;
using ::rdmacheck::testing::EvidenceIs;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

DeviceInfo Adapter(const std::string& name, uint32_t part, const std::string& fw) {
  DeviceInfo d;
  d.name = name;
  d.driver = "mlx5";
  d.vendor_id = 0x02c9;
  d.vendor_part_id = part;
  d.fw_ver = fw;
  return d;
}

TEST(Firmware, WarnsWhenOnePartRunsTwoVersionsNamingEach) {
  Result r = RunOn(FirmwareCheck(), "mlx5_cx6_mixed_fw.profile");
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceIs("part 4123 firmware", "one version on mlx5_0, mlx5_1",
                                              "mlx5_0 20.31.1014, mlx5_1 20.28.2006", Verdict::kWarn)));
  EXPECT_EQ(EvidenceFor(r, "mlx5_1 fw_ver").expected, "(no min_fw_ver for part 4123 in the plan)");
  // Only the older one is to be updated, to the newest of its part.
  EXPECT_THAT(r.remediation,
              ElementsAre("mstflint -d $(basename $(readlink -f /sys/class/infiniband/mlx5_1/device)) q   "
                          "# FW Version and PSID of mlx5_1",
                          HasSubstr("mlxfwmanager --query"),
                          "ibv_devinfo -d mlx5_1 | grep fw_ver   # after the update and an adapter reset or "
                          "reboot: expect 20.31.1014"));
  EXPECT_THAT(r.notes, Contains(HasSubstr("mlx5_0, mlx5_1 are one part (4123) on different firmware")));
}

TEST(Firmware, FailsADeviceBelowThePlansMinimum) {
  Result r = RunOn(FirmwareCheck(), "mlx5_cx6_mixed_fw.profile", "cx6_min_fw.plan");
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceIs("mlx5_1 fw_ver", ">= 20.31.1014 (plan [part 4123], line 11)",
                                              "20.28.2006", Verdict::kFail)));
  EXPECT_EQ(EvidenceFor(r, "mlx5_0 fw_ver").verdict, Verdict::kPass);
  EXPECT_EQ(EvidenceFor(r, "part 4123 firmware").verdict, Verdict::kWarn);
  // One remedy for mlx5_1, though two rows name it.
  EXPECT_THAT(r.remediation, Contains(HasSubstr("expect 20.31.1014 or later")));
  EXPECT_EQ(r.remediation.size(), 3u) << AllText(r);
}

TEST(Firmware, ComparesVersionsAsNumbersNotText) {
  // As text "20.100.0" < "20.31.1014"; as numbers it is newer.
  Plan p = FixturePlan("cx6_min_fw.plan");
  DeviceView v;
  v.devices = {Adapter("mlx5_0", 4123, "20.100.0")};
  Result r = RunOnView(FirmwareCheck(), v, p);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  // 20.31.1014 and 20.31.01014 are one version.
  v.devices = {Adapter("mlx5_0", 4123, "20.31.1014"), Adapter("mlx5_1", 4123, "20.31.01014")};
  Result same = RunOnView(FirmwareCheck(), v, p);
  EXPECT_EQ(same.verdict, Verdict::kPass) << AllText(same);
  EXPECT_EQ(EvidenceFor(same, "part 4123 firmware").actual, "20.31.1014 on all 2");
}

TEST(Firmware, OneDeviceWithoutAMinimumPassesWithItsVersion) {
  Result r = RunOn(FirmwareCheck(), "mlx5_cx6.profile");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].subject, "mlx5_0 fw_ver");
  EXPECT_EQ(r.evidence[0].actual, "20.31.1014");
  EXPECT_THAT(r.remediation, IsEmpty());
}

TEST(Firmware, DifferentPartsAreNotCompared) {
  DeviceView v;
  v.devices = {Adapter("mlx5_0", 4123, "20.31.1014"), Adapter("mlx5_1", 4119, "16.35.2000")};
  Result r = RunOnView(FirmwareCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_EQ(r.evidence.size(), 2u);
}

TEST(Firmware, SoftDevicesSkipAndMissingVersionsAreNamed) {
  Result rxe = RunOn(FirmwareCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(rxe.verdict, Verdict::kSkip);
  EXPECT_EQ(rxe.skip_reason, "soft device, no firmware: rxe0 (rxe), rxe1 (rxe)");
  Result none = RunOn(FirmwareCheck(), "no_device.profile");
  EXPECT_EQ(none.verdict, Verdict::kSkip);
  EXPECT_THAT(none.skip_reason, HasSubstr("see device-present"));

  DeviceView v;
  v.devices = {Adapter("mlx5_0", 4123, "20.31.1014"), Adapter("mlx5_1", 4123, "")};
  Result r = RunOnView(FirmwareCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(r.notes, Contains(HasSubstr("fact missing: mlx5_1 fw_ver")));
  v.devices = {Adapter("mlx5_1", 4123, "")};
  Result only = RunOnView(FirmwareCheck(), v, DefaultPlan());
  EXPECT_EQ(only.verdict, Verdict::kSkip);
  EXPECT_THAT(only.skip_reason, HasSubstr("fact missing: mlx5_1 fw_ver"));

  // Soft devices beside hardware are noted, not judged.
  DeviceView mixed = FixtureProfile("rxe_mtu9000.profile");
  mixed.devices.push_back(Adapter("mlx5_0", 4123, "20.31.1014"));
  Result m = RunOnView(FirmwareCheck(), mixed, DefaultPlan());
  EXPECT_EQ(m.verdict, Verdict::kPass);
  EXPECT_THAT(m.notes, Contains("soft device, no firmware: rxe0 (rxe), rxe1 (rxe)"));
}

TEST(Firmware, AVersionThatIsNotDottedNumbersIsSaidNotGuessed) {
  DeviceView v;
  v.devices = {Adapter("mlx5_0", 4123, "rel-2024b")};
  Result r = RunOnView(FirmwareCheck(), v, FixturePlan("cx6_min_fw.plan"));
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_EQ(EvidenceFor(r, "mlx5_0 fw_ver").actual, "rel-2024b (not dotted numbers: cannot compare)");
}

TEST(Firmware, OtherVendorsGetTheirVendorsTool) {
  DeviceView v;
  DeviceInfo a = Adapter("bnxt_re0", 5968, "219.0.112.0"), b = Adapter("bnxt_re1", 5968, "218.0.169.0");
  a.driver = b.driver = "bnxt_re";
  a.vendor_id = b.vendor_id = 0x14e4;
  v.devices = {a, b};
  Result r = RunOnView(FirmwareCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.remediation, ElementsAre(HasSubstr("ibv_devinfo -d bnxt_re1 | grep fw_ver")));
  EXPECT_THAT(r.notes, Contains(HasSubstr("update bnxt_re1 to 219.0.112.0 with its vendor's firmware tool "
                                          "(driver bnxt_re)")));
}

}  // namespace
}  // namespace rdmacheck
