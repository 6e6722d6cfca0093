#include "facts/link_window.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/stop_flag.h"

namespace rdmacheck {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::Pair;

// A writable copy of fixtures/sysfs_hw, so a test can move a counter.
std::string CopyTree() {
  const fs::path dst = fs::path(std::getenv("TEST_TMPDIR")) / "sysfs_hw";
  fs::remove_all(dst);
  fs::copy("fixtures/sysfs_hw", dst, fs::copy_options::recursive);
  return dst.string();
}

DeviceView ViewOf(const std::string& dev) {
  DeviceView v;
  DeviceInfo d;
  d.name = dev;
  d.pci_address = "0000:3b:00.0";
  PortInfo p;
  p.port_num = 1;
  d.ports.push_back(p);
  v.devices.push_back(d);
  return v;
}

// Moves mlx5_0 port 1's symbol_error (37 in the tree) to 52 after `ms`, as
// a link taking errors during the window would.
std::thread MoveSymbolErrorAfter(const std::string& root, int ms) {
  return std::thread([root, ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    std::ofstream(root + "/class/infiniband/mlx5_0/ports/1/counters/symbol_error") << "52\n";
  });
}

LinkWindowOptions Quiet(double s) {
  LinkWindowOptions o;
  o.seconds = s;
  o.watch_events = false;
  return o;
}

TEST(SampleLinkWindow, CounterMovedDuringTheWindowShowsInTheEndSample) {
  const std::string root = CopyTree();
  DeviceView v = ViewOf("mlx5_0");
  std::thread writer = MoveSymbolErrorAfter(root, 100);
  SampleLinkWindow(SysfsReader(root), Quiet(0.4), &v);
  writer.join();
  ASSERT_TRUE(v.window.has_value());
  EXPECT_GE(v.window->ms, 380);
  EXPECT_FALSE(v.window->cut_short);
  const PortInfo& p = v.devices[0].ports[0];
  EXPECT_EQ(p.counters.at("symbol_error"), 37u);
  EXPECT_EQ(p.counters_after.at("symbol_error"), 52u);
  EXPECT_EQ(p.hw_counters.at("rx_write_requests"), 1200u);
  EXPECT_EQ(p.hw_counters_after.at("rx_write_requests"), 1200u);
  EXPECT_EQ(p.hw_counters.count("lifespan"), 0u) << "a setting, not a counter";
  EXPECT_THAT(v.devices[0].aer_after, Contains(Pair("correctable", 4u)));
  EXPECT_THAT(v.window->unwatched, Contains(Pair("mlx5_0", ::testing::HasSubstr("not watched"))));
}

TEST(SampleLinkWindow, GiveUpWhenEndsItAtTheFirstLookThatSaysSo) {
  const std::string root = CopyTree();
  DeviceView v = ViewOf("mlx5_0");
  std::thread writer = MoveSymbolErrorAfter(root, 150);
  LinkWindowOptions o = Quiet(30);
  o.check_every_s = 0.05;
  int looks = 0;
  bool saw_window = true;
  o.give_up_when = [&](const DeviceView& seen) {
    ++looks;
    saw_window = saw_window && seen.window.has_value();
    const PortInfo& p = seen.devices[0].ports[0];
    return p.counters_after.at("symbol_error") != p.counters.at("symbol_error");
  };
  auto t0 = std::chrono::steady_clock::now();
  SampleLinkWindow(SysfsReader(root), o, &v);
  writer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "not its 30 s";
  EXPECT_GE(looks, 2) << "looked before the move, and after it";
  EXPECT_TRUE(saw_window) << "each look sees the window so far";
  ASSERT_TRUE(v.window.has_value());
  EXPECT_FALSE(v.window->cut_short) << "given up is not interrupted";
  EXPECT_GE(v.window->ms, 150);
  EXPECT_LT(v.window->ms, 5000);
  EXPECT_EQ(v.devices[0].ports[0].counters_after.at("symbol_error"), 52u);
}

TEST(SampleLinkWindow, UnreadableCounterIsNamed) {
  DeviceView v = ViewOf("mlx5_1");
  SampleLinkWindow(SysfsReader("fixtures/sysfs_hw"), Quiet(0), &v);
  EXPECT_THAT(v.devices[0].ports[0].unreadable_counters, ::testing::ElementsAre("hw_counters/out_of_buffer"));
}

TEST(SampleLinkWindow, OnlyTheSelectedDeviceIsLookedAt) {
  DeviceView v = ViewOf("mlx5_0");
  v.devices.push_back(ViewOf("mlx5_1").devices[0]);
  LinkWindowOptions o = Quiet(0);
  o.only_device = "mlx5_1";
  SampleLinkWindow(SysfsReader("fixtures/sysfs_hw"), o, &v);
  EXPECT_TRUE(v.devices[0].ports[0].counters_after.empty()) << "mlx5_0 is not -d";
  EXPECT_FALSE(v.devices[1].ports[0].counters_after.empty());
  EXPECT_EQ(v.window->unwatched.count("mlx5_0"), 0u);
  EXPECT_EQ(v.window->unwatched.count("mlx5_1"), 1u);
}

TEST(SampleLinkWindow, StopFlagCutsItShort) {
  DeviceView v = ViewOf("mlx5_0");
  StopFlag().store(true);
  auto t0 = std::chrono::steady_clock::now();
  SampleLinkWindow(SysfsReader("fixtures/sysfs_hw"), Quiet(30), &v);
  StopFlag().store(false);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  ASSERT_TRUE(v.window.has_value());
  EXPECT_TRUE(v.window->cut_short);
  EXPECT_EQ(v.devices[0].ports[0].counters_after.at("symbol_error"), 37u) << "the end sample is still taken";
}

}  // namespace
}  // namespace rdmacheck
