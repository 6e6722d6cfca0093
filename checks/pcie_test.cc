#include "checks/pcie.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST(Pcie, FullLinkWithGrowingCorrectableErrorsWarns) {
  Result r = RunOn(PcieCheck(), "mlx5_symbol_errors.profile");
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 PCIe 0000:3b:00.0 link width", "x16", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("link speed", "16.0 GT/s PCIe", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("AER correctable", "+3 (15 since boot)", Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("AER fatal", "no change", Verdict::kPass)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("NUMA node 0")));
}

TEST(Pcie, HalfWidthFailsAndSaysWhatItCosts) {
  DeviceView v = FixtureProfile("mlx5_symbol_errors.profile");
  v.devices[0].pci_link_width = 8;
  v.devices[0].aer_after = v.devices[0].aer;
  Result r = RunOnView(PcieCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("link width", "x8", Verdict::kFail)));
  EXPECT_THAT(AllText(r), HasSubstr("50% of what it can do"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("lspci -vvv -s 0000:3b:00.0 | grep -E 'LnkCap|LnkSta'")));
}

TEST(Pcie, SlowerSpeedWarnsAndFatalAerFails) {
  DeviceView v = FixtureProfile("mlx5_symbol_errors.profile");
  v.devices[0].pci_link_speed = "8.0 GT/s PCIe";
  v.devices[0].aer_after["fatal"] = 1;
  Result r = RunOnView(PcieCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("link speed", "8.0 GT/s PCIe", Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("AER fatal", "+1", Verdict::kFail)));
}

TEST(Pcie, WithoutWindowAerTotalsAreInformation) {
  DeviceView v = FixtureProfile("mlx5_symbol_errors.profile");
  v.window.reset();
  Result r = RunOnView(PcieCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.notes, Contains(HasSubstr("AER totals since boot: correctable 12")));
}

TEST(Pcie, SoftDevicesSkipSayingWhy) {
  Result r = RunOn(PcieCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("rxe0 is a rxe device (software, on a netdev)"));
  EXPECT_THAT(r.skip_reason, HasSubstr("no PCIe link of its own"));
}

TEST(Pcie, UnknownSpeedIsSaidNotJudged) {
  DeviceView v = FixtureProfile("mlx5_symbol_errors.profile");
  v.devices[0].pci_link_speed = "Unknown";
  Result r = RunOnView(PcieCheck(), v, DefaultPlan());
  EXPECT_THAT(r.notes, Contains(HasSubstr("reads \"Unknown\"")));
}

}  // namespace
}  // namespace rdmacheck
