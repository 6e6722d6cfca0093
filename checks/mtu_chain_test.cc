#include "checks/mtu_chain.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::OnDevice;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST(RxeActiveMtu, MapsNetdevMtuMinusHeaders) {
  // The guest measured 1500 -> 1024 and 9000 -> 4096 (docs/guest.md).
  struct Row {
    int netdev, ib;
  } rows[] = {{1500, 1024}, {9000, 4096}, {4176, 4096}, {4175, 2048}, {2128, 2048},
              {1103, 512},  {1104, 1024}, {335, 0},     {336, 256}};
  for (const Row& r : rows) EXPECT_EQ(RxeActiveMtu(r.netdev), r.ib) << r.netdev;
  EXPECT_EQ(RxeActiveMtu(9000, 2048), 2048);
  EXPECT_EQ(RxeNetdevMtuFor(4096), 4176);
  EXPECT_EQ(RxeActiveMtu(RxeNetdevMtuFor(2048)), 2048);
}

TEST(MtuChain, FailsAt1500UnderAPlanFor4096) {
  Result r = RunOn(MtuChainCheck(), "rxe_mtu1500.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va MTU", "1500 bytes -> rxe IB MTU 1024", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 active_mtu", "1024", Verdict::kFail)));
  ASSERT_GE(r.remediation.size(), 2u);
  EXPECT_THAT(r.remediation[0], HasSubstr("ip link set dev va mtu 9000"));
  EXPECT_THAT(r.remediation[0], HasSubstr(">= 4176"));
  EXPECT_THAT(r.remediation[1], HasSubstr("ibv_devinfo -d rxe0 -i 1 | grep active_mtu"));
  EXPECT_THAT(r.remediation.back(), HasSubstr("set path_mtu = 1024 in fixtures/plans/rxe_guest.plan"));
}

TEST(MtuChain, PassesAt9000) {
  Result r = RunOn(MtuChainCheck(), "rxe_mtu9000.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va MTU", "9000 bytes -> rxe IB MTU 4096", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 active_mtu", "4096", Verdict::kPass)));
}

TEST(MtuChain, WarnsOnSmallMtuWithoutAPlannedPathMtu) {
  Result r = RunOn(MtuChainCheck(), "rxe_mtu1500.profile");
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe1 port 1 active_mtu", "1024", Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip link set dev vb mtu 9000")));
  EXPECT_EQ(RunOn(MtuChainCheck(), "rxe_mtu9000.profile").verdict, Verdict::kPass);
}

TEST(MtuChain, APinnedSmallPathMtuPasses) {
  Plan p = FixturePlan("rxe_guest.plan");
  p.path_mtu = 1024;
  Result r = RunOnView(MtuChainCheck(), FixtureProfile("rxe_mtu1500.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(AllText(r), HasSubstr("3x"));
}

TEST(MtuChain, HardwareUsesActiveMtuAsReported) {
  // mlx4 CX3 on a 1500-byte netdev reports 1024; no rxe arithmetic applies.
  Plan p = FixturePlan("rxe_guest.plan");
  p.device.reset();
  p.port = 1;
  Result r = RunOnView(MtuChainCheck(), FixtureProfile("mlx4_cx3.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx4_0 port 1 active_mtu", "1024", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev ens2 MTU", "1500 bytes", Verdict::kPass)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip link set dev ens2 mtu 9000")));
  EXPECT_THAT(AllText(r), ::testing::Not(HasSubstr("header bytes")));
}

TEST(MtuChain, DerivesActiveMtuForRxeWhenNotRecorded) {
  DeviceView v = FixtureProfile("rxe_mtu1500.profile");
  v.devices[0].ports[0].active_mtu.reset();
  Result r = RunOnView(MtuChainCheck(), v, FixturePlan("rxe_guest.plan"));
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(AllText(r), HasSubstr("derived 1024 from va MTU 1500"));
}

TEST(MtuChain, SkipsWithoutFacts) {
  DeviceView v = FixtureProfile("mlx5_cx6.profile");
  v.devices[0].ports[0].active_mtu.reset();
  Result r = RunOnView(MtuChainCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("mlx5_0 port 1 active_mtu"));
  EXPECT_EQ(RunOn(MtuChainCheck(), "no_device.profile").verdict, Verdict::kSkip);
}

// RoCE over a VLAN (real captures): rxe sizes packets by the parent's MTU
// but sends them through the VLAN, whose MTU must carry them too.
TEST(MtuChain, VlanAtTheParentsMtuPasses) {
  Result r = RunOn(MtuChainCheck(), "rxe_vlan.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va.100 (VLAN 100 over va) MTU", "9000 bytes -> IB MTU 4096",
                                               Verdict::kPass)));
}

TEST(MtuChain, VlanBelowTheParentsMtuFailsNamingTheVlan) {
  Result r = RunOn(MtuChainCheck(), "rxe_vlan_mtu1500.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va MTU", "9000 bytes -> rxe IB MTU 4096", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va.100 (VLAN 100 over va) MTU",
                                               "1500 bytes -> IB MTU 1024 at most", Verdict::kFail)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("sends those of the GIDs on va.100 through va.100")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip link set dev va.100 mtu 9000")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ib_write_bw -m 1024")));
}

// Without a plan the QPs run at active_mtu: the VLAN must carry that.
TEST(MtuChain, VlanBelowActiveMtuFailsWithoutAPlanToo) {
  Result r = RunOn(MtuChainCheck(), "rxe_vlan_mtu1500.profile", "", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va.100 (VLAN 100 over va) MTU", "1500 bytes", Verdict::kFail)));
}

// A plan that pins path MTU 1024 fits the 1500-byte VLAN.
TEST(MtuChain, VlanCarriesAPinnedSmallerPathMtu) {
  Plan plan = FixturePlan("rxe_guest.plan");
  plan.path_mtu = 1024;
  Result r = RunOnView(MtuChainCheck(), FixtureProfile("rxe_vlan_mtu1500.profile"), plan, OnDevice("rxe0"));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va.100 (VLAN 100 over va) MTU", "1500 bytes", Verdict::kPass)));
  EXPECT_NE(r.verdict, Verdict::kFail) << AllText(r);
}

}  // namespace
}  // namespace rdmacheck
