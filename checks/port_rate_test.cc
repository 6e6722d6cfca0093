#include "checks/port_rate.h"

#include <string>

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceFor;
using ::rdmacheck::testing::EvidenceIs;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A hardware device of `part` with one ACTIVE port at `rate`.
DeviceInfo Adapter(const std::string& name, uint32_t part, const std::string& link_layer,
                   const std::string& rate) {
  DeviceInfo d;
  d.name = name;
  d.driver = "mlx5";
  d.vendor_id = 0x02c9;
  d.vendor_part_id = part;
  PortInfo p;
  p.state = "ACTIVE";
  p.phys_state = "LinkUp";
  p.link_layer = link_layer;
  p.rate = rate;
  d.ports.push_back(p);
  return d;
}

DeviceView ViewOf(std::vector<DeviceInfo> devs) {
  DeviceView v;
  v.devices = std::move(devs);
  return v;
}

TEST(PortRate, FailsAFourLaneInfiniBandPortTrainedAtOneLane) {
  Result r = RunOn(PortRateCheck(), "mlx5_cx5_ib_1x.profile");
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceIs("mlx5_0 port 1 width", ">= 4X (an InfiniBand adapter port)",
                                              "1X", Verdict::kFail)));
  // EDR is ConnectX-5's best speed: the lanes are what is wrong, not the speed.
  EXPECT_THAT(r.evidence,
              Contains(EvidenceIs("mlx5_0 port 1 speed", "EDR (the best of ConnectX-5, part 4119)", "EDR",
                                  Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 port 1 rate", "25 Gb/s (1X EDR)", Verdict::kPass)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("mlx5_0 port 1: a 4X link trained at 1X")));
  EXPECT_THAT(r.notes, Contains(HasSubstr("link_width = 2X")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ibstat mlx5_0 1")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ibportstate -C mlx5_0 -P 1 -D 0 1 query")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("mlxlink -d mlx5_0 -p 1")));
  EXPECT_THAT(r.remediation,
              Contains(HasSubstr("cat /sys/class/infiniband/mlx5_0/ports/1/rate   # expect 4X")));
}

TEST(PortRate, FailsBelowThePlansMinRateNamingItsLine) {
  Result r = RunOn(PortRateCheck(), "mlx5_cx5_ib_1x.profile", "ib_edr_100g.plan");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceIs("mlx5_0 port 1 rate", ">= 100 Gb/s (plan min_rate, line 12)",
                                              "25 Gb/s (1X EDR)", Verdict::kFail)));
  EXPECT_EQ(EvidenceFor(r, "mlx5_0 port 1 width").expected, ">= 4X (plan link_width, line 13)");
  EXPECT_THAT(r.notes,
              Contains(HasSubstr("below min_rate = 100 Gb/sec of fixtures/plans/ib_edr_100g.plan line 12")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("# expect >= 100 Gb/s, 4X")));
}

TEST(PortRate, PassesConnectX6OnEthernetAndSaysNothingSetsAnExpectation) {
  Result r = RunOn(PortRateCheck(), "mlx5_cx6.profile");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceIs("mlx5_0 port 1 rate", "(no min_rate in the plan)",
                                              "100 Gb/s (4X EDR)", Verdict::kPass)));
  // On Ethernet the width is the kernel's encoding of the ethtool speed.
  EXPECT_THAT(r.evidence, Not(Contains(Field(&Evidence::subject, HasSubstr("width")))));
  EXPECT_THAT(r.notes, Contains(AllOf(HasSubstr("nothing says what rate mlx5_0 port 1 should run at"),
                                      HasSubstr("`ethtool ens1f0np0`"))));
  EXPECT_THAT(r.remediation, IsEmpty());
}

TEST(PortRate, EthernetBelowThePlanFails) {
  Plan p = FixturePlan("config_a.plan");
  p.min_rate = "200 Gb/s";
  p.min_rate_gbps = 200;
  p.min_rate_line = 9;
  Result r = RunOnView(PortRateCheck(), FixtureProfile("mlx5_cx6.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceIs("mlx5_0 port 1 rate", ">= 200 Gb/s (plan min_rate, line 9)",
                                              "100 Gb/s (4X EDR)", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ethtool ens1f0np0")));
  EXPECT_THAT(r.remediation, Not(Contains(HasSubstr("ibstat"))));
}

TEST(PortRate, RatesFromTheCodesOfAnImportedDevinfo) {
  // ibv_devinfo -v prints active_width 4X (2) and active_speed 25.0 Gbps (32), no rate text.
  Result r = RunOn(PortRateCheck(), "mlx5_cx6.devinfo.txt");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_EQ(EvidenceFor(r, "mlx5_0 port 1 rate").actual, "100 Gb/s (4X EDR)");
}

TEST(PortRate, SkipsSoftDevicesNamingTheNominalRate) {
  Result r = RunOn(PortRateCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("rxe0, rxe1 are soft devices (rxe): their rate is nominal"));
  EXPECT_THAT(r.skip_reason, HasSubstr("rxe_query_port -> ib_get_eth_speed"));
  EXPECT_THAT(r.skip_reason,
              HasSubstr("read: rxe0 port 1 10 Gb/sec (1X FDR10), rxe1 port 1 10 Gb/sec (1X FDR10)"));
  Result siw = RunOn(PortRateCheck(), "siw.profile");
  EXPECT_EQ(siw.verdict, Verdict::kSkip);
  EXPECT_THAT(siw.skip_reason, HasSubstr("siw0 is a soft device (siw): its rate is nominal"));
  Result none = RunOn(PortRateCheck(), "no_device.profile");
  EXPECT_EQ(none.verdict, Verdict::kSkip);
  EXPECT_THAT(none.skip_reason, HasSubstr("see device-present"));
}

TEST(PortRate, PlanLinkWidthAllowsANarrowLink) {
  Plan p = FixturePlan("ib_edr_100g.plan");
  p.min_rate.reset();
  p.min_rate_gbps.reset();
  p.link_width = "1X";
  Result one = RunOnView(PortRateCheck(), FixtureProfile("mlx5_cx5_ib_1x.profile"), p);
  EXPECT_EQ(one.verdict, Verdict::kPass) << AllText(one);
  EXPECT_EQ(EvidenceFor(one, "mlx5_0 port 1 width").expected, ">= 1X (plan link_width, line 13)");
  // 2X (a split cable) does not excuse one lane.
  p.link_width = "2X";
  Result two = RunOnView(PortRateCheck(), FixtureProfile("mlx5_cx5_ib_1x.profile"), p);
  EXPECT_EQ(two.verdict, Verdict::kFail);
  EXPECT_THAT(two.notes, Contains(HasSubstr("a 2X link trained at 1X")));
  // 2X planned, 4X trained: wider is fine.
  DeviceView hdr100 = ViewOf({Adapter("mlx5_0", 4123, "InfiniBand", "200 Gb/sec (4X HDR)")});
  EXPECT_EQ(RunOnView(PortRateCheck(), hdr100, p).verdict, Verdict::kPass);
}

TEST(PortRate, WarnsOnASpeedBelowThePartsBest) {
  // A ConnectX-6 (HDR) at 4X EDR: a cable, transceiver or switch port held it back.
  DeviceView v = ViewOf({Adapter("mlx5_0", 4123, "InfiniBand", "100 Gb/sec (4X EDR)")});
  Result r = RunOnView(PortRateCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence,
              Contains(EvidenceIs("mlx5_0 port 1 speed", "HDR (the best of ConnectX-6, part 4123)", "EDR",
                                  Verdict::kWarn)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("a speed downshift")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("# expect 4X, HDR")));

  // An EDR fabric says so with min_rate: met, the lower speed is intended.
  Plan p = FixturePlan("ib_edr_100g.plan");
  Result planned = RunOnView(PortRateCheck(), v, p);
  EXPECT_EQ(planned.verdict, Verdict::kPass) << AllText(planned);
  EXPECT_THAT(planned.notes,
              Contains(HasSubstr("the plan's min_rate is met, so that speed is taken as intended")));
}

TEST(PortRate, WarnsOnAPortSlowerThanItsSiblingOfTheSamePart) {
  DeviceView v = ViewOf({Adapter("mlx5_0", 4123, "Ethernet", "100 Gb/sec (4X EDR)"),
                         Adapter("mlx5_1", 4123, "Ethernet", "25 Gb/sec (1X EDR)"),
                         Adapter("mlx5_2", 4125, "Ethernet", "200 Gb/sec (4X HDR)")});
  Result r = RunOnView(PortRateCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence,
              Contains(EvidenceIs("mlx5_1 port 1 rate", "100 Gb/s (as mlx5_0 port 1, the same part 4123)",
                                  "25 Gb/s (1X EDR)", Verdict::kWarn)));
  EXPECT_THAT(r.notes, Not(Contains(HasSubstr("nothing says what rate mlx5_1"))));
  // mlx5_0 is as fast as its sibling; mlx5_2 is another part.
  EXPECT_EQ(EvidenceFor(r, "mlx5_0 port 1 rate").verdict, Verdict::kPass);
  EXPECT_EQ(EvidenceFor(r, "mlx5_2 port 1 rate").verdict, Verdict::kPass);

  // On InfiniBand siblings compare speeds.
  DeviceView ib = ViewOf({Adapter("mlx5_0", 4129, "InfiniBand", "400 Gb/sec (4X NDR)"),
                          Adapter("mlx5_1", 4129, "InfiniBand", "200 Gb/sec (4X HDR)")});
  Result rib = RunOnView(PortRateCheck(), ib, DefaultPlan());
  EXPECT_EQ(rib.verdict, Verdict::kWarn);
  EXPECT_THAT(rib.evidence,
              Contains(AllOf(Field(&Evidence::subject, "mlx5_1 port 1 speed"),
                             Field(&Evidence::expected, "NDR (as mlx5_0 port 1, the same part 4129)"),
                             Field(&Evidence::verdict, Verdict::kWarn))));
}

TEST(PortRate, UnknownInfiniBandPartPassesWithANote) {
  Result r = RunOn(PortRateCheck(), "qib_legacy.profile");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_EQ(EvidenceFor(r, "qib0 port 1 width").actual, "4X");
  EXPECT_EQ(EvidenceFor(r, "qib0 port 1 rate").actual, "40 Gb/s (4X QDR)");
  EXPECT_THAT(r.notes, Contains(HasSubstr("nothing says what speed qib0 port 1 should run at: part 29474 "
                                          "is not in port-rate's table of InfiniBand parts")));
}

TEST(PortRate, PortsNotActiveAreLeftToPortActive) {
  // mlx4_0 port 2 is DOWN; port 1 runs 40 GbE.
  Result r = RunOn(PortRateCheck(), "mlx4_cx3.profile");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_EQ(EvidenceFor(r, "mlx4_0 port 1 rate").actual, "40 Gb/s (4X QDR)");
  EXPECT_THAT(r.notes, Contains(HasSubstr("mlx4_0 port 2 is DOWN: it runs at no rate until it is ACTIVE")));
  Result down = RunOn(PortRateCheck(), "rxe_port_down.profile");  // soft: SKIP all the same
  EXPECT_EQ(down.verdict, Verdict::kSkip);

  DeviceView v = ViewOf({Adapter("mlx5_0", 4123, "InfiniBand", "100 Gb/sec (4X EDR)")});
  v.devices[0].ports[0].state = "DOWN";
  Result none = RunOnView(PortRateCheck(), v, DefaultPlan());
  EXPECT_EQ(none.verdict, Verdict::kSkip);
  EXPECT_THAT(none.skip_reason, HasSubstr("no ACTIVE port to look at (see port-active)"));
}

TEST(PortRate, MalformedOrMissingRateIsSaidNotCrashedOn) {
  DeviceView v = ViewOf({Adapter("mlx5_0", 4123, "InfiniBand", "fast")});
  Result r = RunOnView(PortRateCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 port 1 rate", "rate 'fast' is not a rate in Gb/s",
                                               Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("cat /sys/class/infiniband/mlx5_0/ports/1/rate")));

  v.devices[0].ports[0].rate.reset();
  Result missing = RunOnView(PortRateCheck(), v, DefaultPlan());
  EXPECT_EQ(missing.verdict, Verdict::kSkip);
  EXPECT_THAT(missing.skip_reason, HasSubstr("fact missing: mlx5_0 port 1 rate"));

  // Codes alone are enough.
  v.devices[0].ports[0].active_speed = 64;
  v.devices[0].ports[0].active_width = 2;
  Result codes = RunOnView(PortRateCheck(), v, DefaultPlan());
  EXPECT_EQ(codes.verdict, Verdict::kPass) << AllText(codes);
  EXPECT_EQ(EvidenceFor(codes, "mlx5_0 port 1 rate").actual, "200 Gb/s (4X HDR)");
}

TEST(PortRate, SoftDevicesBesideHardwareAreNoted) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.devices.push_back(Adapter("mlx5_0", 4123, "InfiniBand", "200 Gb/sec (4X HDR)"));
  Result r = RunOnView(PortRateCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_EQ(r.title, "Ports of mlx5_0 run at their expected rate and width");
  EXPECT_THAT(r.notes, Contains(HasSubstr("rxe0, rxe1 are soft devices (rxe)")));
}

}  // namespace
}  // namespace rdmacheck
