#include "facts/gather.h"

#include <sys/stat.h>

#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kFixture[] = "fixtures/sysfs";

GatherOptions FixtureOptions() {
  GatherOptions o;
  o.sysfs_root = kFixture;
  o.proc_root = std::string(kFixture) + "/proc";
  o.dev_root = std::string(kFixture) + "/dev";
  o.root = std::string(kFixture) + "/root";
  o.use_verbs = false;
  o.live_host = false;
  return o;
}

class GatherFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(view_, GatherLive(FixtureOptions()));
  }
  DeviceView view_;
};

TEST_F(GatherFixtureTest, ListsBothDevicesSorted) {
  EXPECT_EQ(view_.source, "live");
  ASSERT_EQ(view_.devices.size(), 2u);
  EXPECT_EQ(view_.devices[0].name, "mlx5_0");
  EXPECT_EQ(view_.devices[1].name, "rxe0");
}

TEST_F(GatherFixtureTest, RxeDeviceFacts) {
  const DeviceInfo* rxe = view_.Device("rxe0");
  ASSERT_NE(rxe, nullptr);
  EXPECT_EQ(rxe->node_type, "CA");
  EXPECT_EQ(rxe->transport, "InfiniBand");
  EXPECT_EQ(rxe->node_guid, "a4b2:39ff:fe4e:1c2d");
  EXPECT_EQ(rxe->driver, "rxe");
  EXPECT_EQ(rxe->netdev, "va");
  EXPECT_EQ(rxe->uverbs, "uverbs0");
  EXPECT_FALSE(rxe->fw_ver.has_value()) << "rxe's empty fw_ver is no fact";
  EXPECT_FALSE(rxe->vendor_id.has_value());
  EXPECT_TRUE(rxe->attrs.empty()) << "use_verbs = false reads no attributes";
}

TEST_F(GatherFixtureTest, RxePortStateRateAndGids) {
  const PortInfo* p = view_.Device("rxe0")->Port(1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->state, "ACTIVE");        // "4: ACTIVE"
  EXPECT_EQ(p->phys_state, "LinkUp");   // "5: LinkUp"
  EXPECT_EQ(p->link_layer, "Ethernet");
  EXPECT_EQ(p->rate, "10 Gb/sec (1X QDR)");
  EXPECT_EQ(p->lid, 0);
  EXPECT_FALSE(p->active_mtu.has_value()) << "active_mtu comes from verbs only";
  EXPECT_TRUE(p->gids_known);
  // gids/2 and gids/3 are all zeros: skipped.
  ASSERT_EQ(p->gids.size(), 2u);
  EXPECT_EQ(p->gids[0].index, 0);
  EXPECT_EQ(p->gids[0].gid, "fe80::a4b2:39ff:fe4e:1c2d");
  EXPECT_EQ(p->gids[0].type, GidType::kRoceV2);
  EXPECT_EQ(p->gids[0].netdev, "va");
  EXPECT_EQ(p->gids[1].index, 1);
  EXPECT_EQ(p->gids[1].gid, "::ffff:198.18.0.1");
  EXPECT_EQ(p->gids[1].type, GidType::kRoceV2);
}

TEST_F(GatherFixtureTest, HwCountersWithoutLifespan) {
  const PortInfo* p = view_.Device("rxe0")->Port(1);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->hw_counters, ElementsAre(Pair("rcvd_pkts", 10u), Pair("retry_exceeded_err", 0u),
                                          Pair("send_err", 3u), Pair("sent_pkts", 12u)));
  EXPECT_TRUE(p->counters.empty());
}

TEST_F(GatherFixtureTest, InfinibandDeviceFactsAndPmaCounters) {
  const DeviceInfo* m = view_.Device("mlx5_0");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->driver, "mlx5");  // from the name: no device/driver link here
  EXPECT_EQ(m->fw_ver, "20.31.1014");
  EXPECT_EQ(m->hw_ver, "0x0");
  EXPECT_EQ(m->board_id, "MT_0000000222");
  EXPECT_EQ(m->vendor_id, 0x15b3u);
  EXPECT_EQ(m->vendor_part_id, 0x101bu);
  EXPECT_EQ(m->uverbs, "uverbs1");
  EXPECT_FALSE(m->netdev.has_value());
  const PortInfo* p = m->Port(1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->link_layer, "InfiniBand");
  EXPECT_EQ(p->lid, 0x1a);
  EXPECT_EQ(p->sm_lid, 1);
  ASSERT_EQ(p->gids.size(), 1u);
  EXPECT_EQ(p->gids[0].type, GidType::kIb) << "\"IB/RoCE v1\" on an IB port is IB";
  EXPECT_EQ(p->gids[0].netdev, "");
  // "N/A (no PMA)" is not a number: left out.
  EXPECT_THAT(p->counters, ElementsAre(Pair("port_xmit_data", 123456789012u),
                                       Pair("symbol_error", 0u)));
}

TEST_F(GatherFixtureTest, BoundNetdevWithoutAddressesOffTheLiveHost) {
  ASSERT_EQ(view_.netdevs.size(), 1u);
  const NetdevInfo* va = view_.Netdev("va");
  ASSERT_NE(va, nullptr);
  EXPECT_EQ(va->mtu, 1500);
  EXPECT_EQ(va->operstate, "up");
  EXPECT_EQ(va->ifindex, 3);
  EXPECT_FALSE(va->addrs_known) << "getifaddrs is only asked with live_host";
}

// live_host, not the roots' paths, says whether the running system is asked.
TEST(GatherTest, LiveHostAsksTheRunningSystemWhateverTheRoots) {
  GatherOptions o = FixtureOptions();
  o.live_host = true;
  o.read_rulesets = false;  // hermetic: no nft / iptables-save
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(o));
  const NetdevInfo* va = v.Netdev("va");
  ASSERT_NE(va, nullptr);
  EXPECT_TRUE(va->addrs_known) << "getifaddrs was asked";
  EXPECT_EQ(va->mtu, 1500) << "the files still come from the fixture";
}

TEST_F(GatherFixtureTest, HostFactsFromTheFakeTree) {
  const HostInfo& h = view_.host;
  EXPECT_EQ(h.mem_total, 8029148ull * 1024);
  EXPECT_EQ(h.rxe_loaded, true);
  EXPECT_EQ(h.sysfs_infiniband, true);
  EXPECT_EQ(h.dev_infiniband, true);
  EXPECT_EQ(h.in_container, true) << "docker in proc/1/cgroup";
  EXPECT_TRUE(h.providers_known);
  EXPECT_THAT(h.providers, ElementsAre("mlx5", "rxe"));
  EXPECT_THAT(h.sysctls, ::testing::IsSupersetOf({
                             Pair("net.ipv4.conf.all.accept_local", "1"),
                             Pair("net.ipv4.conf.all.rp_filter", "0"),
                             Pair("net.ipv4.conf.default.accept_local", "0"),
                             Pair("net.ipv4.conf.default.rp_filter", "2"),
                             Pair("net.ipv4.conf.va.accept_local", "1"),
                             Pair("net.ipv4.conf.va.arp_ignore", "0"),
                             Pair("net.ipv4.conf.va.arp_announce", "0"),
                             Pair("net.ipv4.ip_forward", "1"),
                             Pair("net.bridge.bridge-nf-call-iptables", "1"),
                             Pair("net.bridge.bridge-nf-call-ip6tables", "0"),
                         }));
  // net.ipv6.conf.all.forwarding is not in the tree: absent, not guessed.
  EXPECT_EQ(h.sysctls.count("net.ipv6.conf.all.forwarding"), 0u);
  EXPECT_EQ(h.sysctls.size(), 15u);
  // These come from the process itself, not the tree.
  EXPECT_TRUE(h.memlock_soft.has_value());
  EXPECT_TRUE(h.kernel.has_value());
}

TEST(GatherTest, OnlyDeviceSelectsOneAndItsNetdev) {
  GatherOptions o = FixtureOptions();
  o.only_device = "mlx5_0";
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(o));
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "mlx5_0");
  EXPECT_TRUE(v.netdevs.empty());
  EXPECT_EQ(v.host.sysctls.count("net.ipv4.conf.va.rp_filter"), 0u);
}

// Every part of the gather is a phase, from its start to its locals' end,
// in the order they ran.
TEST(GatherTest, PhasesCoverTheGatherInOrder) {
  GatherOptions o = FixtureOptions();
  PhaseLog log;
  o.phases = &log;
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(o));
  std::vector<std::string> names;
  for (const Phase& p : log.phases()) names.push_back(p.name);
  EXPECT_THAT(names, ElementsAre("gather.start", "gather.verbs mlx5_0", "gather.sysfs mlx5_0",
                                 "gather.verbs rxe0", "gather.sysfs rxe0", "gather.netdevs",
                                 "gather.host", "gather.rulesets", "gather.access", "gather.close"));
}

TEST(GatherTest, OnlyDeviceMissingIsNotFoundListingWhatExists) {
  GatherOptions o = FixtureOptions();
  o.only_device = "rxe9";
  EXPECT_THAT(GatherLive(o), StatusIs(absl::StatusCode::kNotFound,
                                      "no RDMA device named rxe9 (found: mlx5_0, rxe0)"));
}

TEST(GatherTest, MissingTreeLeavesFactsAbsentWithoutFailing) {
  GatherOptions o = FixtureOptions();
  o.sysfs_root = "fixtures/sysfs/does-not-exist";
  o.proc_root = "fixtures/sysfs/does-not-exist";
  o.dev_root = "fixtures/sysfs/does-not-exist";
  o.root = "fixtures/sysfs/does-not-exist";
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(o));
  EXPECT_TRUE(v.devices.empty());
  EXPECT_FALSE(v.host.mem_total.has_value());
  EXPECT_FALSE(v.host.in_container.has_value());
  EXPECT_EQ(v.host.sysfs_infiniband, false);
  EXPECT_TRUE(v.host.providers.empty());
  EXPECT_TRUE(v.host.sysctls.empty());
}

// This very machine: no RDMA in the kernel here (and in hosted CI), so zero
// devices; the host facts are still there.
TEST(GatherTest, ThisHostGathersWithHostFacts) {
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(GatherOptions{}));
  EXPECT_EQ(v.source, "live");
  struct stat st;
  if (::stat("/sys/class/infiniband", &st) != 0) {
    EXPECT_TRUE(v.devices.empty());
    EXPECT_EQ(v.host.sysfs_infiniband, false);
  }
  EXPECT_TRUE(v.host.memlock_soft.has_value());
  EXPECT_TRUE(v.host.memlock_hard.has_value());
  ASSERT_TRUE(v.host.kernel.has_value());
  EXPECT_FALSE(v.host.kernel->empty());
  EXPECT_TRUE(v.host.mem_total.has_value());
  EXPECT_GT(*v.host.mem_total, 0u);
  EXPECT_TRUE(v.host.is_root.has_value());
  EXPECT_TRUE(v.host.providers_known);
  EXPECT_EQ(v.host.sysctls.count("net.ipv4.conf.all.rp_filter"), 1u);
}

TEST(StripSysfsNumberTest, Table) {
  static const struct {
    const char* in;
    const char* out;
  } kRows[] = {
      {"5: LinkUp\n", "LinkUp"}, {"4: ACTIVE", "ACTIVE"}, {"1: CA", "CA"},
      {"4: RNIC", "RNIC"},       {"7: Phy Test", "Phy Test"}, {"Ethernet\n", "Ethernet"},
      {"x: y", "x: y"},
  };
  for (const auto& r : kRows) EXPECT_EQ(StripSysfsNumber(r.in), r.out) << r.in;
}

TEST(InferDriverTest, Table) {
  static const struct {
    const char* ibdev;
    const char* kernel;  // nullptr: no device/driver link
    bool rxe_parent;
    const char* node_type;
    const char* want;
  } kRows[] = {
      {"rxe0", nullptr, true, "CA", "rxe"},
      {"roce_a", nullptr, true, "CA", "rxe"},  // renamed rxe: "parent" tells
      {"mlx5_0", "mlx5_core", false, "CA", "mlx5"},
      {"ibp3s0", "mlx4_core", false, "CA", "mlx4"},
      {"bnxt_re0", "bnxt_en", false, "CA", "bnxt_re"},
      {"siw0", nullptr, false, "RNIC", "siw"},
      {"enp1s0_siw", "e1000e", false, "RNIC", "siw"},
      {"iwp1s0", "cxgb4", false, "RNIC", "cxgb4"},
      {"foo_3", nullptr, false, nullptr, "foo"},
  };
  for (const auto& r : kRows) {
    std::optional<std::string> k = r.kernel ? std::optional<std::string>(r.kernel) : std::nullopt;
    std::optional<std::string> nt =
        r.node_type ? std::optional<std::string>(r.node_type) : std::nullopt;
    EXPECT_EQ(InferDriver(r.ibdev, k, r.rxe_parent, nt), r.want) << r.ibdev;
  }
}

TEST(ApplyDeviceAttrTest, NumericFieldsByLibibverbsName) {
  ibv_device_attr_ex ex;
  std::memset(&ex, 0, sizeof(ex));
  ex.orig_attr.max_qp = 1048560;
  ex.orig_attr.max_qp_wr = 1048576;
  ex.orig_attr.max_sge = 32;
  ex.orig_attr.max_sge_rd = 32;
  ex.orig_attr.max_cqe = 32767;
  ex.orig_attr.max_mr_size = 0xffffffffffffffffull;
  ex.orig_attr.vendor_id = 0xffffff;
  ex.orig_attr.phys_port_cnt = 1;
  ex.orig_attr.max_pkeys = 64;
  std::strcpy(ex.orig_attr.fw_ver, "0.0.0");
  DeviceInfo dev;
  dev.name = "rxe0";
  ApplyDeviceAttr(ex, &dev);
  EXPECT_EQ(dev.Attr("max_qp"), 1048560u);
  EXPECT_EQ(dev.Attr("max_qp_wr"), 1048576u);
  EXPECT_EQ(dev.Attr("max_sge"), 32u);
  EXPECT_EQ(dev.Attr("max_sge_rd"), 32u);
  EXPECT_EQ(dev.Attr("max_cqe"), 32767u);
  EXPECT_EQ(dev.Attr("max_mr_size"), 0xffffffffffffffffull);
  EXPECT_EQ(dev.Attr("phys_port_cnt"), 1u);
  EXPECT_EQ(dev.Attr("max_pkeys"), 64u);
  EXPECT_EQ(dev.Attr("max_srq"), 0u);
  EXPECT_EQ(dev.vendor_id, 0xffffffu);
  EXPECT_EQ(dev.hw_ver, "0x0");
  EXPECT_EQ(dev.fw_ver, "0.0.0");
}

TEST(ApplyPortAttrTest, MtuInBytesAndSysfsWins) {
  ibv_port_attr a;
  std::memset(&a, 0, sizeof(a));
  a.state = IBV_PORT_ACTIVE;
  a.active_mtu = IBV_MTU_1024;
  a.max_mtu = IBV_MTU_4096;
  a.gid_tbl_len = 1024;
  a.active_speed = 4;
  a.active_width = 1;
  a.max_msg_sz = 0x800000;
  a.pkey_tbl_len = 64;
  a.link_layer = IBV_LINK_LAYER_ETHERNET;
  PortInfo p;
  p.state = "DOWN";  // as sysfs said: kept
  ApplyPortAttr(a, &p);
  EXPECT_EQ(p.active_mtu, 1024);
  EXPECT_EQ(p.max_mtu, 4096);
  EXPECT_EQ(p.gid_tbl_len, 1024);
  EXPECT_EQ(p.active_speed, 4);
  EXPECT_EQ(p.active_width, 1);
  EXPECT_EQ(p.max_msg_sz, 0x800000);
  EXPECT_EQ(p.pkey_tbl_len, 64);
  EXPECT_EQ(p.state, "DOWN");
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.lid, 0);

  PortInfo q;
  a.max_msg_sz = 0x80000000u;
  ApplyPortAttr(a, &q);
  EXPECT_EQ(q.state, "ACTIVE");
  EXPECT_EQ(q.max_msg_sz, 0x80000000u) << "a uint32, as qedr reports it";
}

}  // namespace
}  // namespace rdmacheck
