#include "checks/rxe_setup.h"

#include <functional>
#include <string>

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

TEST(RxeSetup, PassesOnTheHealthyPair) {
  Result r = RunOn(RxeSetupCheck(), "rxe_mtu9000.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("kernel module rdma_rxe", "loaded", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev va operstate", "up", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev va address", "198.18.0.1/24", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 ibverbs provider", "librxe found", Verdict::kPass)));
}

TEST(RxeSetup, PassesWithOpenableNodes) {
  Result r = RunOn(RxeSetupCheck(), "rxe_nft_drop.profile");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe1 /dev/infiniband/uverbs1", "opens read-write", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("/dev/infiniband/rdma_cm", "opens read-write", Verdict::kPass)));
}

struct FaultCase {
  const char* name;
  std::function<void(DeviceView*)> fault;
  const char* subject;
  const char* actual;
  const char* remedy;
};

const FaultCase kFaults[] = {
    {"netdev_down", [](DeviceView* v) { v->netdevs[0].operstate = "down"; },
     "rxe0 netdev va operstate", "down", "ip link set dev va up"},
    {"no_address", [](DeviceView* v) { v->netdevs[0].addrs = {"fe80::c6ff:fe12:1/64"}; },
     "rxe0 netdev va address", "fe80::c6ff:fe12:1/64", "ip addr add ADDRESS/PREFIX dev va"},
    {"netdev_gone", [](DeviceView* v) { v->netdevs.erase(v->netdevs.begin()); },
     "rxe0 netdev va", "not found", "rdma link delete rxe0 && rdma link add rxe0 type rxe netdev vb"},
    {"no_provider", [](DeviceView* v) { v->host.providers = {"mlx5"}; },
     "rxe0 ibverbs provider", "not found (installed: mlx5)", "apt-get install ibverbs-providers"},
    {"module_not_loaded", [](DeviceView* v) { v->host.rxe_loaded = false; },
     "kernel module rdma_rxe", "not loaded", "modprobe rdma_rxe"},
    {"uverbs_missing", [](DeviceView* v) { v->host.dev_nodes = {{"uverbs1", "rw"}, {"rdma_cm", "rw"}}; },
     "rxe0 /dev/infiniband/uverbs0", "missing", "modprobe ib_uverbs rdma_ucm"},
    {"uverbs_denied",
     [](DeviceView* v) { v->host.dev_nodes = {{"uverbs0", "Permission denied"}, {"uverbs1", "rw"}}; },
     "rxe0 /dev/infiniband/uverbs0", "Permission denied", "ls -l /dev/infiniband"},
    {"container_without_nodes",
     [](DeviceView* v) {
       v->host.in_container = true;
       v->host.dev_nodes = {{"rdma_cm", "missing"}};
     },
     "rxe0 /dev/infiniband/uverbs0", "missing",
     "docker run --device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm "
     "--cap-add=IPC_LOCK"},
    {"kubernetes_without_nodes",
     [](DeviceView* v) {
       v->host.in_container = true;
       v->host.container_runtime = "kubernetes";
       v->host.dev_nodes = {{"rdma_cm", "missing"}};
     },
     "rxe0 /dev/infiniband/uverbs0", "missing", "resources.limits: {rdma/hca_shared_devices_a: 1}"},
    {"container_own_netns",
     [](DeviceView* v) {
       v->host.in_container = true;
       for (NetdevInfo& n : v->netdevs) {
         n.ifindex.reset();
         n.operstate.reset();
         n.mtu.reset();
         n.addrs.clear();
       }
     },
     "rxe0 netdev va address", "none", "missing here: --network host"},
    {"container_without_ipc_lock",
     [](DeviceView* v) {
       v->host.in_container = true;
       v->host.cap_ipc_lock = false;
     },
     "container capability IPC_LOCK", "not granted", "--cap-add=IPC_LOCK"},
};

class FaultTest : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultTest, FailsWithEvidenceAndRemedy) {
  const FaultCase& c = GetParam();
  DeviceView v = FixtureProfile("rxe_nft_drop.profile");
  c.fault(&v);
  Result r = RunOnView(RxeSetupCheck(), v, FixturePlan("rxe_guest.plan"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow(c.subject, c.actual, Verdict::kFail))) << AllText(r);
  EXPECT_THAT(r.remediation, Contains(HasSubstr(c.remedy))) << AllText(r);
}

INSTANTIATE_TEST_SUITE_P(Faults, FaultTest, ::testing::ValuesIn(kFaults),
                         [](const ::testing::TestParamInfo<FaultCase>& i) {
                           return std::string(i.param.name);
                         });

TEST(RxeSetup, FailsOnThePortDownFixture) {
  Result r = RunOn(RxeSetupCheck(), "rxe_port_down.profile");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev va operstate", "down", Verdict::kFail)));
}

TEST(RxeSetup, PlanForRxeWithoutDevicesAsksForTheLink) {
  DeviceView v = FixtureProfile("no_device.profile");
  v.host.rxe_loaded = false;
  Result r = RunOnView(RxeSetupCheck(), v, FixturePlan("rxe_guest.plan"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.remediation, Contains("modprobe rdma_rxe"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("rdma link add rxe0 type rxe netdev")));
}

TEST(RxeSetup, HardwareDeviceNeedsItsProviderOnly) {
  Result r = RunOn(RxeSetupCheck(), "mlx5_cx6.profile");
  EXPECT_NE(r.verdict, Verdict::kFail) << AllText(r);
  for (const Evidence& e : r.evidence) EXPECT_THAT(e.subject, ::testing::Not(HasSubstr("rdma_rxe")));
}

TEST(RxeSetup, SkipsWithoutDevicesOrExpectation) {
  Result r = RunOn(RxeSetupCheck(), "no_device.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("device-present"));
}

// A pod's ibv_devinfo where no device opened: the skip says why.
TEST(RxeSetup, NoDeviceOpenedSaysFailedToOpen) {
  DeviceView v;
  v.source = "ibv_devinfo:pod.txt";
  v.host.devices_not_opened = 3;
  Result r = RunOnView(RxeSetupCheck(), v, FixturePlan(""));
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("`Failed to open device` 3 time(s)"));
}

// RoCE over a VLAN as deployed (real capture): the address is on va.100,
// the VLAN over rxe0's parent va; that is no missing address.
TEST(RxeSetup, AddressOnAVlanOverTheParentPasses) {
  Result r = RunOn(RxeSetupCheck(), "rxe_vlan.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev va address", "va.100 (VLAN 100 over va): 198.18.1.1/24",
                                               Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 VLAN va.100 (VLAN 100 over va) operstate", "up", Verdict::kPass)));
  EXPECT_THAT(AllText(r), ::testing::Not(HasSubstr("ip addr add")));
}

// The same with the addresses on neither: the remedy puts one on the VLAN.
TEST(RxeSetup, NoAddressOnParentOrVlanAsksForOneOnTheVlan) {
  DeviceView v = FixtureProfile("rxe_vlan.profile");
  for (NetdevInfo& n : v.netdevs) n.addrs = {"fe80::bb:97ff:fe7b:593/64"};
  Result r = RunOnView(RxeSetupCheck(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip addr add ADDRESS/PREFIX dev va.100")));
}

// The VLAN carrying the address set down (real capture): its IPv4 GID stays
// in the table, but nothing leaves by it.
TEST(RxeSetup, VlanDownFails) {
  Result r = RunOn(RxeSetupCheck(), "rxe_vlan_down.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 VLAN va.100 (VLAN 100 over va) operstate", "down", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains("ip link set dev va.100 up"));
}

// rxe over an active-backup bond (real captures): both slaves up PASSes;
// one slave down is redundancy lost, a WARN naming it, while traffic goes on.
TEST(RxeSetup, BondWithBothSlavesUpPasses) {
  Result r = RunOn(RxeSetupCheck(), "rxe_bond.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev bond0 (bond) slave va1", "mii up", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev bond0 (bond) active slave", "va1", Verdict::kPass)));
}

TEST(RxeSetup, BondSlaveDownWarnsNamingIt) {
  Result r = RunOn(RxeSetupCheck(), "rxe_bond_slave_down.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev bond0 (bond) slave va1",
                                               "mii down, operstate down, backup, 1 link failure(s)", Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev bond0 (bond) active slave", "va2", Verdict::kPass)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("bond0 runs on va2 alone")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip link set dev va1 up")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("cat /proc/net/bonding/bond0")));
}

TEST(RxeSetup, BondWithNoSlaveUpFails) {
  DeviceView v = FixtureProfile("rxe_bond_slave_down.profile");
  for (NetdevInfo& n : v.netdevs)
    if (n.name == "va2") n.operstate = "down";
  Result r = RunOnView(RxeSetupCheck(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev bond0 (bond) slaves with link", "none", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev bond0 (bond) active slave", "va2", Verdict::kFail)));
}

// A process in another network namespace than the device's netdev, outside
// any container (`ip netns exec ns1 rdmacheck`, measured in the guest): the
// device is listed (rdma's shared netns mode), its netdev is not. That is a
// WARN naming the namespace, not a missing address to add.
TEST(RxeSetup, NetdevInAnotherNamespaceWarnsInsteadOfAskingForAnAddress) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  for (NetdevInfo& n : v.netdevs) {
    if (n.name != "va") continue;
    n = NetdevInfo();  // what the gather reads of a netdev sysfs does not list
    n.name = "va";
    n.addrs_known = true;
  }
  Result r = RunOnView(RxeSetupCheck(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev va", "not in it: no va under this namespace",
                                               Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("nsenter -t 1 -n rdmacheck -d rxe0")));
  EXPECT_THAT(AllText(r), ::testing::Not(HasSubstr("ip addr add")));
}
// rxe0 left on va after va joined bridge br0 (scenario 68, a real capture):
// the bridge takes va's frames, rxe0 receives nothing.
TEST(RxeSetupTest, RxeOnABridgePortFailsAndSaysToCreateItOnTheBridge) {
  Result r = RunOn(RxeSetupCheck(), "rxe_bridge_port.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 netdev va master", "port of br0 (bridge)", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains("rdma link delete rxe0 && rdma link add rxe0 type rxe netdev br0"));
  // Not asked for an address on the port: the address is the bridge's.
  for (const Evidence& e : r.evidence) EXPECT_THAT(e.subject, ::testing::Not(HasSubstr("address")));
  // Created on br0 (scenario 69's capture), it passes.
  Result ok = RunOn(RxeSetupCheck(), "rxe_bridge_fwd_drop.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(ok.verdict, Verdict::kPass) << AllText(ok);
}

}  // namespace
}  // namespace rdmacheck
