#include "checks/device_present.h"

#include <dirent.h>

#include <map>
#include <string>

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
using ::testing::Not;

TEST(DevicePresent, PassesWithRxePair) {
  Result r = RunOn(DevicePresentCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("RDMA devices", "rxe0 (rxe)", Verdict::kPass)));
}

TEST(DevicePresent, FailsWithNoDeviceAndSaysHowToAddRxe) {
  Result r = RunOn(DevicePresentCheck(), "no_device.profile");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("RDMA devices", "0", Verdict::kFail)));
  std::string text = AllText(r);
  EXPECT_THAT(text, HasSubstr("modprobe rdma_rxe"));
  EXPECT_THAT(text, HasSubstr("rdma link add rxe0 type rxe netdev"));
  EXPECT_THAT(text, HasSubstr("ibv_devices"));
}

// A profile made from pastes of ulimit or ip addr alone lists no devices:
// its having none says nothing (SKIP); the same profile saying the devices
// were listed and none found FAILs.
TEST(DevicePresent, InputThatListsNoDevicesSkips) {
  DeviceView v;
  v.source = "pastes:ulimit.txt";
  v.host.memlock_soft = 65536;
  v.host.devices_listed = false;
  Result r = RunOnView(DevicePresentCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("the input lists no devices"));
  v.host.devices_listed.reset();
  EXPECT_EQ(RunOnView(DevicePresentCheck(), v, DefaultPlan()).verdict, Verdict::kFail);
}

TEST(DevicePresent, NamedDeviceMissingNamesTheOnesThatExist) {
  Options o;
  o.device = "mlx5_0";
  Result r = RunOn(DevicePresentCheck(), "rxe_mtu9000.profile", "", o);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("RDMA device", "only rxe0", Verdict::kFail)));
  EXPECT_THAT(AllText(r), HasSubstr("rdmacheck -d rxe0"));
}

TEST(DevicePresent, NamedDevicePresentPasses) {
  Options o;
  o.device = "rxe1";
  EXPECT_EQ(RunOn(DevicePresentCheck(), "rxe_mtu9000.profile", "", o).verdict, Verdict::kPass);
}

// Causes without a fixture file: each host state gets its own remedy.
struct CauseRow {
  const char* name;
  bool sysfs, rxe, in_container, dev_ib;
  std::vector<std::string> providers;
  const char* must_say;
  const char* must_not_say;
};

TEST(DevicePresent, NamesTheLikelyCause) {
  const CauseRow rows[] = {
      {"container without /dev/infiniband", true, false, true, false, {"mlx5"},
       "--device=/dev/infiniband/uverbs0", "modprobe rdma_rxe"},
      {"no provider library", true, false, false, true, {}, "apt-get install ibverbs-providers",
       "--device="},
      {"no provider and no kernel device: both said", false, false, false, false, {},
       "apt-get install ibverbs-providers", "--device="},
      {"rxe loaded, no link", true, true, false, true, {"rxe"}, "rdma link add rxe0", "modprobe rdma_rxe"},
      {"no rdma at all", false, false, false, false, {"rxe"}, "modprobe rdma_rxe", "--device="},
      // This project's CI machine: a container on a kernel without RDMA.
      {"container on a host without rdma", false, false, true, false, {"rxe"},
       "run these on the host, not in this container", "modprobe ib_uverbs"},
      {"sysfs but no uverbs", true, false, false, true, {"mlx5"}, "modprobe ib_uverbs", "rdma link add"},
  };
  for (const CauseRow& row : rows) {
    SCOPED_TRACE(row.name);
    DeviceView v;
    v.source = "test";
    v.host.sysfs_infiniband = row.sysfs;
    v.host.rxe_loaded = row.rxe;
    v.host.in_container = row.in_container;
    v.host.dev_infiniband = row.dev_ib;
    v.host.providers = row.providers;
    v.host.providers_known = true;
    Result r = RunOnView(DevicePresentCheck(), v, DefaultPlan());
    EXPECT_EQ(r.verdict, Verdict::kFail);
    EXPECT_THAT(AllText(r), HasSubstr(row.must_say));
    EXPECT_THAT(AllText(r), Not(HasSubstr(row.must_not_say)));
  }
}

// rdma's exclusive netns mode seen from another network namespace
// (measured in the guest: `rdma system set netns exclusive`, then `ip netns
// exec ns1 ibv_devices` lists nothing while rxe0/rxe1 exist in the host's).
TEST(DevicePresent, ExclusiveNetnsModeFromAnotherNamespaceIsNamed) {
  DeviceView v;
  v.source = "live";
  v.host.sysfs_infiniband = true;
  v.host.rxe_loaded = true;
  v.host.in_container = false;
  v.host.providers = {"rxe"};
  v.host.providers_known = true;
  v.host.rdma_netns_mode = "exclusive";
  v.host.own_netns = true;
  Result r = RunOnView(DevicePresentCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rdma netns mode", "exclusive, and this process is in another",
                                               Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("nsenter -t 1 -n rdmacheck")));
  EXPECT_THAT(AllText(r), Not(HasSubstr("rdma link add rxe0")));
  // The same in the host's namespace, or in shared mode: the usual causes.
  v.host.own_netns = false;
  r = RunOnView(DevicePresentCheck(), v, DefaultPlan());
  EXPECT_THAT(AllText(r), Not(HasSubstr("netns")));
  EXPECT_THAT(AllText(r), HasSubstr("rdma link add rxe0"));
}

TEST(DevicePresent, EveryFixtureWithADevicePasses) {
  DIR* d = opendir("fixtures/profiles");
  ASSERT_NE(d, nullptr);
  int seen = 0;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() < 8 || n.substr(n.size() - 8) != ".profile") continue;
    DeviceView v = FixtureProfile(n);
    Result r = RunOnView(DevicePresentCheck(), v, DefaultPlan());
    EXPECT_EQ(r.verdict, v.devices.empty() ? Verdict::kFail : Verdict::kPass) << n;
    ++seen;
  }
  closedir(d);
  EXPECT_GE(seen, 8);
}

// The kernel lists rxe0 but this process has no /dev/infiniband/uverbs0
// (a container run without --device): libibverbs cannot list it, so it is
// not present for any application here.
DeviceView WithNodes(std::map<std::string, std::string> nodes, bool in_container,
                     const char* runtime) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.host.dev_nodes = std::move(nodes);
  v.host.in_container = in_container;
  if (runtime != nullptr) v.host.container_runtime = runtime;
  return v;
}

TEST(DevicePresent, DeviceWithoutItsNodeInAContainerFailsWithTheEnginesFlag) {
  for (const char* runtime : {"docker", "podman"}) {
    SCOPED_TRACE(runtime);
    Options o;
    o.device = "rxe0";
    Result r = RunOnView(DevicePresentCheck(), WithNodes({{"uverbs0", "missing"}}, true, runtime),
                         DefaultPlan(), o);
    EXPECT_EQ(r.verdict, Verdict::kFail);
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 /dev/infiniband/uverbs0", "missing", Verdict::kFail)));
    std::string text = AllText(r);
    EXPECT_THAT(text, HasSubstr(std::string(runtime) + " run --device=/dev/infiniband/uverbs0"));
    EXPECT_THAT(text, HasSubstr("missing here: --device=/dev/infiniband/uverbs0"));
    EXPECT_THAT(text, Not(HasSubstr("modprobe rdma_rxe")));
  }
}

TEST(DevicePresent, DeviceWithoutItsNodeOnAHostNamesIbUverbs) {
  Result r = RunOnView(DevicePresentCheck(), WithNodes({{"uverbs0", "missing"}}, false, nullptr),
                       DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(AllText(r), HasSubstr("modprobe ib_uverbs"));
  EXPECT_THAT(AllText(r), Not(HasSubstr("--device=")));
}

TEST(DevicePresent, NodePresentOrNotLookedAtPasses) {
  EXPECT_EQ(RunOnView(DevicePresentCheck(), WithNodes({{"uverbs0", "rw"}}, true, "docker"), DefaultPlan())
                .verdict,
            Verdict::kPass);
  // A node that exists but cannot be opened is listed by libibverbs:
  // rxe-setup's finding, not this one's.
  EXPECT_EQ(RunOnView(DevicePresentCheck(), WithNodes({{"uverbs0", "Permission denied"}}, true, "docker"),
                      DefaultPlan())
                .verdict,
            Verdict::kPass);
  EXPECT_EQ(RunOnView(DevicePresentCheck(), WithNodes({}, true, "docker"), DefaultPlan()).verdict,
            Verdict::kPass);
}

TEST(DevicePresent, OneUsableDeviceIsEnoughWithoutMinusD) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  ASSERT_FALSE(v.devices.empty());
  v.host.in_container = true;
  v.host.dev_nodes = {{"uverbs0", "rw"}, {"uverbs1", "missing"}};
  EXPECT_EQ(RunOnView(DevicePresentCheck(), v, DefaultPlan()).verdict, Verdict::kPass);
  v.host.dev_nodes = {{"uverbs0", "missing"}, {"uverbs1", "missing"}};
  EXPECT_EQ(RunOnView(DevicePresentCheck(), v, DefaultPlan()).verdict, Verdict::kFail);
}

}  // namespace
}  // namespace rdmacheck
