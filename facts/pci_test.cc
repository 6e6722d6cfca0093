#include "facts/pci.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(ReadPciFacts, AdapterTrainedAtHalfWidth) {
  DeviceInfo d;
  d.name = "mlx5_0";
  ReadPciFacts(SysfsReader("fixtures/sysfs_hw"), &d);
  EXPECT_EQ(d.pci_address, "0000:3b:00.0");
  EXPECT_EQ(d.pci_link_speed, "16.0 GT/s PCIe");
  EXPECT_EQ(d.pci_link_width, 8);
  EXPECT_EQ(d.pci_max_link_width, 16);
  EXPECT_EQ(d.numa_node, "0");
  EXPECT_THAT(d.aer, ElementsAre(Pair("correctable", 4), Pair("fatal", 0), Pair("nonfatal", 0)));
}

TEST(ReadPciFacts, NoAerFilesNoAerFacts) {
  DeviceInfo d;
  d.name = "mlx5_1";
  ReadPciFacts(SysfsReader("fixtures/sysfs_hw"), &d);
  EXPECT_EQ(d.pci_address, "0000:af:00.0");
  EXPECT_TRUE(d.aer.empty());
}

TEST(ReadPciFacts, VirtualDeviceHasNone) {
  DeviceInfo d;
  d.name = "rxe0";
  ReadPciFacts(SysfsReader("fixtures/sysfs"), &d);
  EXPECT_FALSE(d.pci_address.has_value());
  EXPECT_FALSE(d.pci_link_width.has_value());
  EXPECT_FALSE(d.numa_node.has_value());
}

TEST(PcieSpeedGts, ParsesTheKernelsSpelling) {
  EXPECT_EQ(PcieSpeedGts("16.0 GT/s PCIe"), 16.0);
  EXPECT_EQ(PcieSpeedGts("2.5 GT/s"), 2.5);
  EXPECT_EQ(PcieSpeedGts("8.0 GT/s PCIe\n"), 8.0);
  EXPECT_EQ(PcieSpeedGts("Unknown"), std::nullopt);
  EXPECT_EQ(PcieSpeedGts("Unknown speed"), std::nullopt);
  EXPECT_EQ(PcieSpeedGts("16.0 MB/s"), std::nullopt);
}

}  // namespace
}  // namespace rdmacheck
