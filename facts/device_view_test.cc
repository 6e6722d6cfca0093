#include "facts/device_view.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;

TEST(OnlyDevice, KeepsTheDeviceItsNetdevsAndItsEvents) {
  DeviceView v;
  v.host.hostname = "node3";
  for (const char* n : {"rxe0", "rxe1"}) {
    DeviceInfo d;
    d.name = n;
    d.netdev = std::string(n) == "rxe0" ? "va" : "vb";
    v.devices.push_back(d);
  }
  v.devices[0].ports.emplace_back();
  v.devices[0].ports[0].gids = {{1, "::ffff:198.18.0.1", GidType::kRoceV2, "va.100"}};
  for (const char* n : {"va", "vb", "va.100"}) {
    NetdevInfo nd;
    nd.name = n;
    v.netdevs.push_back(nd);
  }
  LinkWindow w;
  w.watched = {"rxe0", "rxe1"};
  w.unwatched = {{"mlx5_0", "Permission denied"}};
  w.events = {{"rxe0", 10, "PORT_ERR", 1}, {"rxe1", 12, "PORT_ERR", 1}};
  v.window = w;

  DeviceView one = OnlyDevice(v, "rxe0");
  ASSERT_EQ(one.devices.size(), 1u);
  EXPECT_EQ(one.devices[0].name, "rxe0");
  std::vector<std::string> nds;
  for (const NetdevInfo& n : one.netdevs) nds.push_back(n.name);
  EXPECT_THAT(nds, ElementsAre("va", "va.100"));
  EXPECT_EQ(one.host.hostname, "node3");
  EXPECT_THAT(one.window->watched, ElementsAre("rxe0"));
  EXPECT_TRUE(one.window->unwatched.empty());
  ASSERT_EQ(one.window->events.size(), 1u);
  EXPECT_EQ(one.window->events[0].device, "rxe0");

  EXPECT_EQ(OnlyDevice(v, "mlx9").devices.size(), 2u) << "no such device: the view as it is";
}

TEST(ClassifyGid, Forms) {
  struct Row {
    const char* gid;
    GidAddress::Kind kind;
    const char* ipv4;
  } rows[] = {
      {"::ffff:198.18.0.1", GidAddress::kIpv4Mapped, "198.18.0.1"},
      {"0000:0000:0000:0000:0000:ffff:0a0a:0111", GidAddress::kIpv4Mapped, "10.10.1.17"},
      {"fe80::c6ff:fe12:1", GidAddress::kLinkLocal, ""},
      {"2001:db8::1", GidAddress::kIpv6, ""},
      {"::", GidAddress::kZero, ""},
      {"not-a-gid", GidAddress::kInvalid, ""},
  };
  for (const Row& r : rows) {
    GidAddress a = ClassifyGid(r.gid);
    EXPECT_EQ(a.kind, r.kind) << r.gid;
    EXPECT_EQ(a.ipv4, r.ipv4) << r.gid;
  }
}


}  // namespace
}  // namespace rdmacheck
