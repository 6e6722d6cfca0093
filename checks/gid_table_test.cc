#include "checks/gid_table.h"

#include <algorithm>

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceFor;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::OnDevice;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST(GidTable, PassesAndNamesTheIpv4EntryOnTheGuestPair) {
  Result r = RunOn(GidTableCheck(), "rxe_mtu9000.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 GID 0", "IPv6 link-local", Verdict::kPass)));
  EXPECT_THAT(r.evidence,
              Contains(EvidenceRow("rxe0 port 1 GID 1", "IPv4 198.18.0.1, RoCEv2, netdev va", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("GID index 1 (plan gid_index)", "::ffff:198.18.0.1",
                                               Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("-x 1"));
  EXPECT_THAT(AllText(r), HasSubstr("ibv_rc_pingpong -d rxe0 -i 1 -g 1"));
}

// A container with its own network namespace: the kernel still lists rxe0's
// GIDs, but va (and vb) are not among the netdevs it sees (only lo, as in
// ci/guest/scenarios/64-container-no-host-network.sh).
DeviceView OwnNetns(const char* runtime) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.host.in_container = true;
  if (runtime) v.host.container_runtime = runtime;
  // As gathered inside: lo from /sys/class/net, and va only by name (rxe0
  // names it) with none of its sysfs facts and no address.
  NetdevInfo lo;
  lo.name = "lo";
  lo.ifindex = 1;
  lo.operstate = "unknown";
  NetdevInfo va;
  va.name = "va";
  va.addrs_known = true;
  v.netdevs = {lo, va};
  return v;
}

TEST(GidTable, ContainerWithoutHostNetworkFailsWithTheRuntimesRemedy) {
  struct Row {
    const char* runtime;
    const char* remedy;
  } rows[] = {
      {nullptr, "docker run --device=/dev/infiniband/uverbs0"},
      {"podman", "missing here: --network host"},
      {"kubernetes", "hostNetwork: true"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.runtime ? row.runtime : "generic");
    Result r = RunOnView(GidTableCheck(), OwnNetns(row.runtime), FixturePlan("rxe_guest.plan"));
    EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 netdev va", "not visible (this namespace has lo)",
                                                 Verdict::kFail)));
    EXPECT_THAT(r.remediation, Contains(HasSubstr(row.remedy)));
    EXPECT_THAT(r.remediation.back(), HasSubstr("ip -br addr show dev va"));
  }
}

TEST(GidTable, HostWithTheSameViewIsNotBlamedOnTheNamespace) {
  DeviceView v = OwnNetns(nullptr);
  v.host.in_container = false;
  Result r = RunOnView(GidTableCheck(), v, FixturePlan("rxe_guest.plan"));
  EXPECT_THAT(AllText(r), ::testing::Not(HasSubstr("network namespace")));
}

TEST(GidTable, FailsOnTheLinkLocalIndex) {
  Plan p = FixturePlan("rxe_guest.plan");
  p.gid_index = 0;
  Result r = RunOnView(GidTableCheck(), FixtureProfile("rxe_mtu9000.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 GID index 0", "fe80::", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ib_write_bw -d rxe0 -i 1 -x 1")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("set gid_index = 1 in fixtures/plans/rxe_guest.plan")));
  EXPECT_THAT(r.remediation.back(), HasSubstr("/sys/class/infiniband/rxe0/ports/1/gids/1"));
}

TEST(GidTable, DashXTakesPrecedenceOverThePlan) {
  Options o;
  o.gid_index = 0;  // plan says 1
  Result r = RunOn(GidTableCheck(), "rxe_mtu9000.profile", "rxe_guest.plan", o);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("GID index 0 (-x)", "link-local", Verdict::kFail)));
  // -x given: no plan edit in the remedy.
  EXPECT_THAT(AllText(r), ::testing::Not(HasSubstr("set gid_index")));

  o.gid_index = 1;
  Plan p = FixturePlan("rxe_guest.plan");
  p.gid_index = 0;
  EXPECT_EQ(RunOnView(GidTableCheck(), FixtureProfile("rxe_mtu9000.profile"), p, o).verdict, Verdict::kPass);
}

TEST(GidTable, FailsOnAnEmptyIndex) {
  Options o;
  o.gid_index = 3;  // a ConnectX-6's IPv4 index; here the table ends at 1
  Result r = RunOn(GidTableCheck(), "rxe_mtu9000.profile", "rxe_guest.plan", o);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("GID index 3", "empty: no GID at index 3 (entries: 0, 1)",
                                               Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("-x 1")));
}

TEST(GidTable, FailsOnRoceV1WhenThePlanWantsV2) {
  // mlx5: 0 fe80 v1, 1 fe80 v2, 2 ::ffff v1, 3 ::ffff v2.
  Plan p = FixturePlan("rxe_guest.plan");
  p.device.reset();
  p.gid_index = 2;
  Result r = RunOnView(GidTableCheck(), FixtureProfile("mlx5_cx6.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 port 1 GID index 2", "RoCEv1", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("-x 3")));
  p.gid_index = 3;
  Result ok = RunOnView(GidTableCheck(), FixtureProfile("mlx5_cx6.profile"), p);
  EXPECT_EQ(ok.verdict, Verdict::kPass) << AllText(ok);
}

TEST(GidTable, ImportedDevinfoFullFormGidsAreRead) {
  Result r = RunOn(GidTableCheck(), "mlx5_cx6.devinfo.txt");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 port 1 GID 2", "IPv4 10.10.1.17, RoCEv1", Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("use GID 3"));
}

TEST(GidTable, FailsWhenTheNetdevHasNoAddress) {
  Result r = RunOn(GidTableCheck(), "rxe_no_ip.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 GIDs with an address", "only IPv6 link-local",
                                               Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev va addresses", "fe80::c6ff:fe12:1/64", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip addr add 198.18.0.1/24 dev va")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("placeholder")));
  EXPECT_THAT(r.remediation.back(), HasSubstr("ibv_devinfo -d rxe0 -i 1 -v | grep GID"));
}

TEST(GidTable, InfiniBandPortsSkipRoceRules) {
  Plan p = FixturePlan("rxe_guest.plan");
  p.device.reset();
  p.gid_index = 0;  // fe80:: is the normal IB GID 0
  Result r = RunOnView(GidTableCheck(), FixtureProfile("qib_legacy.profile"), p);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(AllText(r), HasSubstr("InfiniBand"));
}

TEST(GidTable, SkipsWithoutTheTable) {
  Result r = RunOn(GidTableCheck(), "siw.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("siw0 port 1"));
  EXPECT_THAT(r.skip_reason, HasSubstr("GID table"));
  EXPECT_EQ(RunOn(GidTableCheck(), "no_device.profile").verdict, Verdict::kSkip);
}

// A GID on a VLAN names the VLAN, its id and its parent (real capture).
TEST(GidTable, VlanGidNamesTheVlan) {
  Result r = RunOn(GidTableCheck(), "rxe_vlan.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 GID index 1 (plan gid_index)",
                                               "IPv4 198.18.1.1, RoCEv2, netdev va.100 (VLAN 100 over va)",
                                               Verdict::kPass)));
}

// The guest's pair with an IPv6 address added beside the IPv4 one on va:
// GID 1 ::ffff:198.18.0.1, GID 2 2001:2::1 (the guest lists a global IPv6
// address as a RoCE v2 entry naming va, measured with 2001:2::1/64).
DeviceView WithIpv6(bool keep_ipv4) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  for (DeviceInfo& d : v.devices) {
    if (d.name != "rxe0") continue;
    std::vector<GidEntry>& g = d.ports[0].gids;
    if (!keep_ipv4) g.erase(std::remove_if(g.begin(), g.end(), [](const GidEntry& e) { return e.index == 1; }), g.end());
    g.push_back(GidEntry{2, "2001:2::1", GidType::kRoceV2, "va"});
  }
  return v;
}

TEST(GidTable, PlanIpv6WantsTheIpv6Entry) {
  Result r = RunOnView(GidTableCheck(), WithIpv6(false), FixturePlan("rxe_guest_ipv6.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.title, HasSubstr("the IPv6 RoCE v2 entry"));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 GID index in use", "none given", Verdict::kPass)));
  EXPECT_EQ(EvidenceFor(r, "rxe0 port 1 GID index in use").expected, "-x 2 (IPv6 RoCEv2)");
  EXPECT_THAT(r.notes, Contains(HasSubstr("use GID 2 of rxe0 port 1 (2001:2::1, RoCEv2)")));
}

TEST(GidTable, PlanIpv6WithoutAnIpv6EntryFails) {
  Result r = RunOn(GidTableCheck(), "rxe_mtu9000.profile", "rxe_guest_ipv6.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 IPv6 RoCEv2 entry", "none (entries: 0, 1)", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip -6 addr add ADDRESS/64 dev va")));
}

TEST(GidTable, PlanIpv6UsingTheIpv4EntryFails) {
  Plan plan = FixturePlan("rxe_guest_ipv6.plan");
  plan.gid_index = 1;
  Result r = RunOnView(GidTableCheck(), WithIpv6(true), plan, OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 GID index 1 (plan gid_index)", "IPv4 198.18.0.1",
                                               Verdict::kFail)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("Please Try to use a different IP version")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("-x 2")));
  // Without ip_version in the plan the same index is the IPv4 entry asked for.
  plan.ip_version = std::nullopt;
  EXPECT_EQ(RunOnView(GidTableCheck(), WithIpv6(true), plan, OnDevice("rxe0")).verdict, Verdict::kPass);
}

}  // namespace
}  // namespace rdmacheck
