#include "checks/device_present.h"

#include <dirent.h>

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

}  // namespace
}  // namespace rdmacheck
