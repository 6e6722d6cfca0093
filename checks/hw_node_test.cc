// The hardware checks on a gathered sysfs tree (fixtures/sysfs_hw: three
// mlx5 adapters, see its README): what `rdmacheck` would say on that node,
// from the gather up.
#include <string>

#include "checks/check_test_util.h"
#include "checks/firmware.h"
#include "checks/link_health.h"
#include "checks/pcie.h"
#include "checks/port_rate.h"
#include "facts/gather.h"
#include "facts/link_window.h"
#include "facts/sysfs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

DeviceView GatherHwNode() {
  GatherOptions o;
  o.sysfs_root = "fixtures/sysfs_hw";
  o.proc_root = "fixtures/sysfs_hw/proc";
  o.dev_root = "fixtures/sysfs_hw/dev";
  o.root = "fixtures/sysfs_hw";
  o.use_verbs = false;
  o.live_host = false;
  absl::StatusOr<DeviceView> v = GatherLive(o);
  EXPECT_TRUE(v.ok()) << v.status();
  if (!v.ok()) return DeviceView();
  // A window with nothing moving: a static tree, whose devices are not this
  // host's to open.
  LinkWindowOptions w;
  w.seconds = 0;
  w.watch_events = false;
  SampleLinkWindow(SysfsReader(o.sysfs_root), w, &*v);
  return *v;
}

TEST(HwNode, GatherReadsThePciFactsAndTheWindow) {
  DeviceView v = GatherHwNode();
  ASSERT_EQ(v.devices.size(), 3u);
  EXPECT_EQ(v.devices[0].pci_link_width, 8);
  EXPECT_EQ(v.host.uptime_s, 93784u);
  ASSERT_TRUE(v.window.has_value());
  EXPECT_THAT(v.window->unwatched, Contains(::testing::Key("mlx5_0")));
}

TEST(HwNode, PcieFailsTheAdapterAtHalfWidth) {
  Result r = RunOnView(PcieCheck(), GatherHwNode(), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 PCIe 0000:3b:00.0 link width", "x8", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_1 PCIe 0000:af:00.0 link width", "x16", Verdict::kPass)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("mlx5_1 PCIe 0000:af:00.0: no AER counters")));
  EXPECT_THAT(r.notes, Contains(HasSubstr("mlx5_2 is on NUMA node -1")));
}

TEST(HwNode, FirmwareWarnsOnTheTwinsAtDifferentVersions) {
  Result r = RunOnView(FirmwareCheck(), GatherHwNode(), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(AllText(r), HasSubstr("20.28.2006"));
  EXPECT_THAT(AllText(r), HasSubstr("20.31.1014"));
}

TEST(HwNode, PortRateFailsThe4XPortAt1X) {
  Result r = RunOnView(PortRateCheck(), GatherHwNode(), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(AllText(r), HasSubstr("mlx5_2"));
  EXPECT_THAT(AllText(r), HasSubstr("1X"));
}

TEST(HwNode, LinkHealthNamesTheUnreadableCounterAndNotesTotals) {
  Result r = RunOnView(LinkHealthCheck(), GatherHwNode(), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_1 port 1 hw_counters/out_of_buffer", "unreadable", Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 port 1 error counters", "no change", Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("since boot (up 1 d 2 h), not judged: link_downed 1, link_error_recovery 2, symbol_error 37"));
  EXPECT_THAT(r.notes, Contains(HasSubstr("mlx5_0's port events were not watched")));
}

}  // namespace
}  // namespace rdmacheck
