// The importer on real pastes (fixtures/pastes/devinfo, sources in
// fixtures/pastes/SOURCES.tsv): every one is read as a partial profile, and
// each shape users paste gives the facts it holds.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "facts/devinfo_import.h"
#include "facts/profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kDir = "fixtures/pastes/devinfo/";

DeviceView Import(const std::string& name) {
  absl::StatusOr<DeviceView> v = ReadProfileFile(kDir + name);
  EXPECT_TRUE(v.ok()) << name << ": " << v.status();
  return v.ok() ? *std::move(v) : DeviceView{};
}

std::vector<std::string> Warnings(const DeviceView& v) { return v.warnings; }

TEST(PasteImport, EveryRealPasteImportsAndRoundTrips) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 25u);
  int with_devices = 0, cut = 0;
  for (const std::string& n : names) {
    SCOPED_TRACE(n);
    absl::StatusOr<DeviceView> v = ReadProfileFile(kDir + n);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->source, absl::StrCat("ibv_devinfo:", kDir, n));
    if (!v->devices.empty()) ++with_devices;
    if (!v->warnings.empty()) ++cut;
    // What capture writes from it reads back the same.
    ASSERT_OK_AND_ASSIGN(DeviceView back, ParseProfile(WriteProfile(*v), n));
    EXPECT_EQ(back.devices.size(), v->devices.size());
  }
  EXPECT_GE(with_devices, 20);
  EXPECT_GE(cut, 10);  // most real pastes are cut somewhere
}

TEST(PasteImport, CutInsideTheAttributeListKeepsWhatCameBefore) {
  DeviceView v = Import("ucx7613-v-cx4lx-cut.txt");
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "mlx5_0");
  EXPECT_EQ(v.devices[0].driver, "mlx5");
  EXPECT_TRUE(v.devices[0].Attr("max_qp").has_value());
  EXPECT_FALSE(v.devices[0].Attr("local_ca_ack_delay").has_value());
  EXPECT_THAT(Warnings(v), Contains(HasSubstr("ends inside its -v attribute list")));
}

TEST(PasteImport, FailedToOpenLinesInAPod) {
  // One mlx4 VF of several given to a Kubernetes pod.
  DeviceView v = Import("k8s-rdma-plugin-failed-to-open-vf.txt");
  EXPECT_EQ(v.host.devices_not_opened, 8u);  // 5 before the block, 3 after
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "mlx4_2");
  DeviceView none = Import("ntb-cxl-iwp0s3-failed-to-open.txt");
  EXPECT_THAT(none.devices, IsEmpty());
  EXPECT_EQ(none.host.devices_not_opened, 1u);
}

TEST(PasteImport, DevicesWithoutTheirProvider) {
  DeviceView v = Import("nvcaffe590-list-0-hcas-warnings.txt");  // ibv_devinfo -l
  EXPECT_THAT(v.devices, IsEmpty());
  EXPECT_EQ(v.host.devices_without_provider, 5u);
  DeviceView pib = Import("pib-no-userspace-driver-warnings.txt");
  EXPECT_EQ(pib.host.devices_without_provider, 2u);
}

TEST(PasteImport, MailQuotedAndWrappedGidLines) {
  DeviceView v = Import("ompi-users-2009-mlx4-v-mailwrap.txt");
  ASSERT_FALSE(v.devices.empty());
  const DeviceInfo& d = v.devices[0];
  EXPECT_EQ(d.name, "mlx4_0");
  ASSERT_NE(d.Port(1), nullptr);
  ASSERT_FALSE(d.Port(1)->gids.empty());
  EXPECT_EQ(d.Port(1)->gids[0].gid, "fe80::18:8b90:97fe:73ce");
}

TEST(PasteImport, FragmentWithoutItsHcaIdLine) {
  DeviceView v = Import("ucx5045-v-headless-vendor0.txt");
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "unknown");
  EXPECT_THAT(Warnings(v), Contains(HasSubstr("starts inside a device block")));
}

TEST(PasteImport, OtherToolsOutputBeforeTheFirstBlock) {
  DeviceView v = Import("ompi10432-ibstat-then-devinfo-ofed.txt");
  EXPECT_FALSE(v.devices.empty());
  EXPECT_THAT(Warnings(v), Contains(HasSubstr("lines before the first hca_id block are not "
                                              "ibv_devinfo output")));
}

TEST(PasteImport, UdevNamesManyHcasAndIwarp) {
  DeviceView azure = Import("azhpc-udev-rdmaP-ibP.txt");
  ASSERT_GE(azure.devices.size(), 2u);
  EXPECT_TRUE(absl::StartsWith(azure.devices[0].name, "rdmaP"));
  EXPECT_FALSE(azure.devices[0].driver.has_value());  // not guessed from a udev name
  DeviceView many = Import("magnate3-bond-8hca-device-ports.txt");
  EXPECT_GE(many.devices.size(), 4u);
  DeviceView qedr = Import("linux-cifs-qedr0-iwarp-v-3space.txt");
  ASSERT_EQ(qedr.devices.size(), 1u);
  EXPECT_EQ(qedr.devices[0].transport, "iWARP");
  EXPECT_EQ(qedr.devices[0].Port(1)->max_msg_sz, 0x80000000u);
}

}  // namespace
}  // namespace rdmacheck
