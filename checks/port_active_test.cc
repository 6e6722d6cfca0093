#include "checks/port_active.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST(PortActive, PassesOnHealthyRxe) {
  Result r = RunOn(PortActiveCheck(), "rxe_mtu9000.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 state", "ACTIVE", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 link_layer", "Ethernet", Verdict::kPass)));
}

TEST(PortActive, FailsWhenNetdevDownAndSaysBringItUp) {
  Result r = RunOn(PortActiveCheck(), "rxe_port_down.profile");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 state", "DOWN", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip link set dev va up")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ibv_devinfo -d rxe0 -i 1")));
}

TEST(PortActive, FailsOnLinkLayerOtherThanPlanned) {
  // qib is InfiniBand; the guest plan expects Ethernet.
  Plan p = FixturePlan("rxe_guest.plan");
  p.device.reset();
  Result r = RunOnView(PortActiveCheck(), testing::FixtureProfile("qib_legacy.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("link_layer", "InfiniBand", Verdict::kFail)));
}

TEST(PortActive, InitWithLinkUpOnInfiniBandAsksForASubnetManager) {
  DeviceView v;
  DeviceInfo d;
  d.name = "mlx5_0";
  d.driver = "mlx5";
  PortInfo p;
  p.state = "INIT";
  p.phys_state = "LinkUp";
  p.link_layer = "InfiniBand";
  d.ports.push_back(p);
  v.devices.push_back(d);
  Result r = RunOnView(PortActiveCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(AllText(r), HasSubstr("opensm"));
}

TEST(PortActive, SkipsWithoutDeviceOrState) {
  Result none = RunOn(PortActiveCheck(), "no_device.profile");
  EXPECT_EQ(none.verdict, Verdict::kSkip);
  EXPECT_THAT(none.skip_reason, HasSubstr("device-present"));

  DeviceView v;
  DeviceInfo d;
  d.name = "rxe0";
  d.ports.push_back(PortInfo());
  v.devices.push_back(d);
  Result r = RunOnView(PortActiveCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("fact missing: rxe0 port 1 state"));
}

TEST(PortActive, UnknownPortFails) {
  Options o;
  o.port = 2;
  Result r = RunOn(PortActiveCheck(), "rxe_mtu9000.profile", "", o);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 2", "no such port", Verdict::kFail)));
}

TEST(PortActive, ImportedDevinfoTextIsEnough) {
  Result r = RunOn(PortActiveCheck(), "mlx5_cx6.devinfo.txt");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
}

}  // namespace
}  // namespace rdmacheck
