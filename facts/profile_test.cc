#include "facts/profile.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "facts/paste_import.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kFixtures[] = "fixtures/profiles";

// Field-by-field equality of two views, `source` excepted (it names the
// file, so a round trip through another name changes it on purpose).
void ExpectViewsEqual(const DeviceView& a, const DeviceView& b, const std::string& ctx) {
  SCOPED_TRACE(ctx);
  EXPECT_EQ(a.provenance, b.provenance);
  const HostInfo& ha = a.host;
  const HostInfo& hb = b.host;
  EXPECT_EQ(ha.hostname, hb.hostname);
  EXPECT_EQ(ha.kernel, hb.kernel);
  EXPECT_EQ(ha.memlock_soft, hb.memlock_soft);
  EXPECT_EQ(ha.memlock_hard, hb.memlock_hard);
  EXPECT_EQ(ha.mem_total, hb.mem_total);
  EXPECT_EQ(ha.rxe_loaded, hb.rxe_loaded);
  EXPECT_EQ(ha.is_root, hb.is_root);
  EXPECT_EQ(ha.in_container, hb.in_container);
  EXPECT_EQ(ha.container_runtime, hb.container_runtime);
  EXPECT_EQ(ha.container_marker, hb.container_marker);
  EXPECT_EQ(ha.sysfs_infiniband, hb.sysfs_infiniband);
  EXPECT_EQ(ha.dev_infiniband, hb.dev_infiniband);
  EXPECT_EQ(ha.providers, hb.providers);
  EXPECT_EQ(ha.providers_known, hb.providers_known);
  EXPECT_EQ(ha.sysctls, hb.sysctls);
  EXPECT_EQ(ha.rulesets, hb.rulesets);
  EXPECT_EQ(ha.udp4791_socket, hb.udp4791_socket);
  EXPECT_EQ(ha.dev_nodes, hb.dev_nodes);
  EXPECT_EQ(ha.cap_ipc_lock, hb.cap_ipc_lock);
  EXPECT_EQ(ha.uptime_s, hb.uptime_s);
  ASSERT_EQ(a.window.has_value(), b.window.has_value());
  if (a.window) {
    EXPECT_EQ(a.window->ms, b.window->ms);
    EXPECT_EQ(a.window->started, b.window->started);
    EXPECT_EQ(a.window->watched, b.window->watched);
    EXPECT_EQ(a.window->unwatched, b.window->unwatched);
    EXPECT_EQ(a.window->cut_short, b.window->cut_short);
    ASSERT_EQ(a.window->events.size(), b.window->events.size());
    for (size_t i = 0; i < a.window->events.size(); ++i) {
      EXPECT_EQ(a.window->events[i].device, b.window->events[i].device);
      EXPECT_EQ(a.window->events[i].at_ms, b.window->events[i].at_ms);
      EXPECT_EQ(a.window->events[i].type, b.window->events[i].type);
      EXPECT_EQ(a.window->events[i].port, b.window->events[i].port);
    }
  }
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    const DeviceInfo& da = a.devices[i];
    const DeviceInfo& db = b.devices[i];
    SCOPED_TRACE(da.name);
    EXPECT_EQ(da.name, db.name);
    EXPECT_EQ(da.driver, db.driver);
    EXPECT_EQ(da.node_type, db.node_type);
    EXPECT_EQ(da.transport, db.transport);
    EXPECT_EQ(da.node_guid, db.node_guid);
    EXPECT_EQ(da.sys_image_guid, db.sys_image_guid);
    EXPECT_EQ(da.fw_ver, db.fw_ver);
    EXPECT_EQ(da.hw_ver, db.hw_ver);
    EXPECT_EQ(da.vendor_id, db.vendor_id);
    EXPECT_EQ(da.vendor_part_id, db.vendor_part_id);
    EXPECT_EQ(da.board_id, db.board_id);
    EXPECT_EQ(da.netdev, db.netdev);
    EXPECT_EQ(da.uverbs, db.uverbs);
    EXPECT_EQ(da.attrs, db.attrs);
    EXPECT_EQ(da.pci_address, db.pci_address);
    EXPECT_EQ(da.pci_link_speed, db.pci_link_speed);
    EXPECT_EQ(da.pci_link_width, db.pci_link_width);
    EXPECT_EQ(da.pci_max_link_speed, db.pci_max_link_speed);
    EXPECT_EQ(da.pci_max_link_width, db.pci_max_link_width);
    EXPECT_EQ(da.numa_node, db.numa_node);
    EXPECT_EQ(da.aer, db.aer);
    EXPECT_EQ(da.aer_after, db.aer_after);
    ASSERT_EQ(da.ports.size(), db.ports.size());
    for (size_t j = 0; j < da.ports.size(); ++j) {
      const PortInfo& pa = da.ports[j];
      const PortInfo& pb = db.ports[j];
      SCOPED_TRACE(absl::StrCat("port ", pa.port_num));
      EXPECT_EQ(pa.port_num, pb.port_num);
      EXPECT_EQ(pa.state, pb.state);
      EXPECT_EQ(pa.phys_state, pb.phys_state);
      EXPECT_EQ(pa.link_layer, pb.link_layer);
      EXPECT_EQ(pa.active_mtu, pb.active_mtu);
      EXPECT_EQ(pa.max_mtu, pb.max_mtu);
      EXPECT_EQ(pa.rate, pb.rate);
      EXPECT_EQ(pa.active_speed, pb.active_speed);
      EXPECT_EQ(pa.active_width, pb.active_width);
      EXPECT_EQ(pa.gid_tbl_len, pb.gid_tbl_len);
      EXPECT_EQ(pa.lid, pb.lid);
      EXPECT_EQ(pa.sm_lid, pb.sm_lid);
      EXPECT_EQ(pa.pkey_tbl_len, pb.pkey_tbl_len);
      EXPECT_EQ(pa.max_msg_sz, pb.max_msg_sz);
      EXPECT_EQ(pa.gids_known, pb.gids_known);
      EXPECT_EQ(pa.hw_counters, pb.hw_counters);
      EXPECT_EQ(pa.counters, pb.counters);
      EXPECT_EQ(pa.hw_counters_after, pb.hw_counters_after);
      EXPECT_EQ(pa.counters_after, pb.counters_after);
      EXPECT_EQ(pa.unreadable_counters, pb.unreadable_counters);
      ASSERT_EQ(pa.gids.size(), pb.gids.size());
      for (size_t k = 0; k < pa.gids.size(); ++k) {
        EXPECT_EQ(pa.gids[k].index, pb.gids[k].index);
        EXPECT_EQ(pa.gids[k].gid, pb.gids[k].gid);
        EXPECT_EQ(pa.gids[k].type, pb.gids[k].type);
        EXPECT_EQ(pa.gids[k].netdev, pb.gids[k].netdev);
      }
    }
  }
  ASSERT_EQ(a.netdevs.size(), b.netdevs.size());
  for (size_t i = 0; i < a.netdevs.size(); ++i) {
    const NetdevInfo& na = a.netdevs[i];
    const NetdevInfo& nb = b.netdevs[i];
    SCOPED_TRACE(na.name);
    EXPECT_EQ(na.name, nb.name);
    EXPECT_EQ(na.mtu, nb.mtu);
    EXPECT_EQ(na.operstate, nb.operstate);
    EXPECT_EQ(na.ifindex, nb.ifindex);
    EXPECT_EQ(na.addrs, nb.addrs);
    EXPECT_EQ(na.addrs_known, nb.addrs_known);
    EXPECT_EQ(na.qdiscs, nb.qdiscs);
    EXPECT_EQ(na.qdiscs_known, nb.qdiscs_known);
  }
}

// A view that sets every field, with the awkward values a naive writer would
// lose: empty strings, edge spaces, quotes, tabs, a leading '#', unlimited
// memlock, known-but-empty lists, GIDs known but none, GIDs without netdev.
DeviceView EverythingView() {
  DeviceView v;
  v.source = "live";
  v.provenance = {"captured by rdmacheck 0.1.0 on rxeguest", "", "  padded  ",
                  "\"quoted\" and \\ back\tslash"};
  HostInfo& h = v.host;
  h.hostname = "rxeguest";
  h.kernel = "6.1.0-28-amd64";
  h.memlock_soft = HostInfo::kUnlimited;
  h.memlock_hard = 8388608;
  h.mem_total = 25187332096;
  h.rxe_loaded = true;
  h.is_root = false;
  h.in_container = true;
  h.container_runtime = "podman";
  h.container_marker = "/run/.containerenv";
  h.sysfs_infiniband = true;
  h.dev_infiniband = false;
  h.providers = {"rxe", "mlx5", "odd name"};
  h.providers_known = true;
  h.sysctls = {{"net.ipv4.conf.all.rp_filter", "0"},
               {"net.ipv4.ip_local_port_range", "32768\t60999"},
               {"empty.value", ""}};
  // Rulesets as the tools print them: tabs, '#' and '[' lines, an empty
  // line, an empty ruleset, one without a final newline, one of only "\n".
  h.rulesets = {
      {"nft", "# Warning: table ip filter is managed by iptables-nft, do not touch!\n"
              "table inet filter {\n\tchain input {\n\t\ttype filter hook input priority filter; "
              "policy accept;\n\t\tudp dport 4791 counter packets 0 bytes 0 drop comment \"x\"\n"
              "\t}\n}\n\n[odd]\n"},
      {"iptables-nft", ""},
      {"iptables-legacy", "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT"},
      {"ip6tables-nft", "\n"}};
  h.udp4791_socket = true;
  h.cap_ipc_lock = false;
  h.dev_nodes = {{"uverbs0", "rw"}, {"uverbs1", "Permission denied"}, {"rdma_cm", "missing"}};

  DeviceInfo d;
  d.name = "rxe0";
  d.driver = "rxe";
  d.node_type = "CA";
  d.transport = "InfiniBand";
  d.node_guid = "0000:c6ff:fe12:0001";
  d.sys_image_guid = "0000:c6ff:fe12:0001";
  d.fw_ver = "";
  d.hw_ver = "0x0";
  d.vendor_id = 0xffffff;
  d.vendor_part_id = 0;
  d.board_id = "# not a comment";
  d.netdev = "va";
  d.uverbs = "uverbs0";
  d.attrs = {{"max_qp", 1048560},
             {"max_qp_wr", 1048576},
             {"max_mr_size", UINT64_MAX},
             {"page_size_cap", 0xfffff000},
             {"zero", 0}};
  PortInfo p;
  p.port_num = 1;
  p.state = "ACTIVE";
  p.phys_state = "LinkUp";
  p.link_layer = "Ethernet";
  p.active_mtu = 1024;
  p.max_mtu = 4096;
  p.rate = "10 Gb/sec (1X FDR10)";
  p.active_speed = 8;
  p.active_width = 1;
  p.gid_tbl_len = 1024;
  p.lid = 0;
  p.sm_lid = 0;
  p.pkey_tbl_len = 64;
  p.max_msg_sz = 8388608;
  p.gids = {{0, "fe80::c6ff:fe12:1", GidType::kRoceV2, "va"},
            {1, "::ffff:198.18.0.1", GidType::kRoceV2, "va"},
            {2, "fe80::2", GidType::kRoceV1, ""},
            {5, "fe80::5", GidType::kIb, ""},
            {6, "fe80::6", GidType::kUnknown, "weird dev"}};
  p.gids_known = true;
  p.hw_counters = {{"retry_exceeded_err", 7}, {"send_err", 0}};
  p.counters = {{"port_xmit_data", UINT64_MAX}};
  p.hw_counters_after = {{"retry_exceeded_err", 9}, {"send_err", 0}};
  p.counters_after = {{"port_xmit_data", 3}};  // wrapped
  p.unreadable_counters = {"hw_counters/out_of_buffer", "counters/symbol error"};
  d.ports.push_back(p);
  PortInfo p2;
  p2.port_num = 2;
  p2.gids_known = true;  // read, and empty
  d.ports.push_back(p2);
  PortInfo p3;
  p3.port_num = 3;
  p3.gids = {{0, "fe80::3", GidType::kIb, ""}};
  p3.gids_known = false;  // odd but representable
  d.ports.push_back(p3);
  v.devices.push_back(d);

  DeviceInfo bare;
  bare.name = "mlx5_0";  // nothing else known
  v.devices.push_back(bare);
  DeviceInfo pci;
  pci.name = "mlx5_1";
  pci.pci_address = "0000:3b:00.0";
  pci.pci_link_speed = "8.0 GT/s PCIe";
  pci.pci_link_width = 8;
  pci.pci_max_link_speed = "16.0 GT/s PCIe";
  pci.pci_max_link_width = 16;
  pci.numa_node = "-1";
  pci.aer = {{"correctable", 4}, {"fatal", 0}};
  pci.aer_after = {{"correctable", 9}, {"fatal", 0}};
  v.devices.push_back(pci);
  h.uptime_s = 93784;
  LinkWindow w;
  w.ms = 2003;
  w.started = "2026-12-01T13:20:05Z";
  w.watched = {"rxe0"};
  w.unwatched = {{"mlx5_0", "ibv_open_device(dev=mlx5_0): Permission denied"}};
  w.events = {{"rxe0", 512, "PORT_ERR", 1}, {"rxe0", 1010, "PORT_ACTIVE", 1}, {"rxe0", 1500, "DEVICE_FATAL", std::nullopt}};
  w.cut_short = true;
  v.window = w;

  NetdevInfo n;
  n.name = "va";
  n.mtu = 1500;
  n.operstate = "up";
  n.ifindex = 4;
  n.addrs = {"198.18.0.1/24", "fe80::c6ff:fe12:1/64"};
  n.addrs_known = true;
  n.qdiscs = {Qdisc{"tbf", "root", 50000000, 4094, std::nullopt, std::nullopt, std::nullopt},
              Qdisc{"netem", "1:1", std::nullopt, std::nullopt, std::nullopt, 5000, 0.5}};
  n.qdiscs_known = true;
  v.netdevs.push_back(n);
  NetdevInfo empty_addrs;
  empty_addrs.name = "vb";
  empty_addrs.addrs_known = true;
  empty_addrs.qdiscs_known = true;
  v.netdevs.push_back(empty_addrs);
  NetdevInfo unknown_addrs;
  unknown_addrs.name = "lo";
  v.netdevs.push_back(unknown_addrs);
  return v;
}

TEST(ProfileTest, RoundTripsEveryField) {
  DeviceView v = EverythingView();
  std::string text = WriteProfile(v);
  ASSERT_OK_AND_ASSIGN(DeviceView back, ParseProfile(text, "every.profile"));
  EXPECT_EQ(back.source, "profile:every.profile");
  ExpectViewsEqual(v, back, text);
  // And the text is stable: writing the parsed view gives the same text.
  EXPECT_EQ(WriteProfile(back), text);
}

TEST(ProfileTest, RulesetsAreWrittenLineByLine) {
  std::string text = WriteProfile(EverythingView());
  EXPECT_THAT(text, HasSubstr("\n[ruleset nft]\nline # Warning: table ip filter"));
  EXPECT_THAT(text, HasSubstr("\nline \"\\tchain input {\"\n"));
  EXPECT_THAT(text, HasSubstr("\nline \"\"\nline [odd]\n"));
  EXPECT_THAT(text, HasSubstr("\n[ruleset iptables-nft]\n\n"));
  EXPECT_THAT(text, HasSubstr("line COMMIT\nfinal_newline no\n"));
  EXPECT_THAT(text, HasSubstr("\ndev_node uverbs1 \"Permission denied\"\n"));
  EXPECT_THAT(text, HasSubstr("\nudp4791_socket yes\n"));
}

TEST(ProfileTest, ContainerFactsAreWrittenAndReadBack) {
  std::string text = WriteProfile(EverythingView());
  EXPECT_THAT(text, HasSubstr("\nin_container yes\ncontainer_runtime podman\n"
                              "container_marker /run/.containerenv\n"));
  ASSERT_OK_AND_ASSIGN(DeviceView back, ParseProfile(text, "c.profile"));
  EXPECT_EQ(back.host.container_runtime, "podman");
  EXPECT_EQ(back.host.container_marker, "/run/.containerenv");
}

TEST(ProfileTest, RoundTripsEmptyView) {
  DeviceView v;
  ASSERT_OK_AND_ASSIGN(DeviceView back, ParseProfile(WriteProfile(v), "empty.profile"));
  ExpectViewsEqual(v, back, "empty");
  EXPECT_FALSE(back.host.providers_known);
  EXPECT_FALSE(back.host.memlock_soft.has_value());
}

TEST(ProfileTest, WriterSpellsTheDocumentedForms) {
  std::string text = WriteProfile(EverythingView());
  EXPECT_THAT(text, HasSubstr("\nrdmacheck-profile 1\n"));
  EXPECT_THAT(text, HasSubstr("\nmemlock_soft unlimited\n"));
  EXPECT_THAT(text, HasSubstr("\nproviders rxe mlx5 \"odd name\"\n"));
  EXPECT_THAT(text, HasSubstr("\ngid 1 ::ffff:198.18.0.1 RoCEv2 va\n"));
  EXPECT_THAT(text, HasSubstr("\ngid 2 fe80::2 RoCEv1\n"));
  EXPECT_THAT(text, HasSubstr("\nattr page_size_cap 0xfffff000\n"));
  EXPECT_THAT(text, HasSubstr("\nfw_ver \"\"\n"));
  EXPECT_THAT(text, HasSubstr("\n[port rxe0 2]\ngids_known yes\n"));
  EXPECT_THAT(text, HasSubstr("\nrate 10 Gb/sec (1X FDR10)\n"));
  EXPECT_THAT(text, HasSubstr("\n[netdev vb]\naddrs\n"));
}

TEST(ProfileTest, ParsesTheExampleOfTheDoc) {
  const char* text = R"(# free comment
rdmacheck-profile 1
provenance captured by rdmacheck 0.1.0 on rxeguest, kernel 6.1.0-28-amd64, 2026-11-29T09:00:00Z
[host]
hostname rxeguest
memlock_soft 8388608
rxe_loaded yes
providers
sysctl net.ipv4.conf.all.rp_filter 0
[device rxe0]
driver rxe
attr max_qp_wr 1048576
[port rxe0 1]
state ACTIVE
active_mtu 4096
gid 1 ::ffff:198.18.0.1 RoCEv2 va
hw_counter retry_exceeded_err 0
[netdev va]
mtu 9000
addrs 198.18.0.1/24
)";
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseProfile(text, "doc.profile"));
  ASSERT_EQ(v.provenance.size(), 1u);
  EXPECT_THAT(v.provenance[0], HasSubstr("2026-11-29T09:00:00Z"));
  EXPECT_EQ(v.host.memlock_soft, 8388608u);
  EXPECT_TRUE(v.host.providers_known);
  EXPECT_TRUE(v.host.providers.empty());
  EXPECT_EQ(v.host.sysctls.at("net.ipv4.conf.all.rp_filter"), "0");
  ASSERT_NE(v.Device("rxe0"), nullptr);
  EXPECT_EQ(v.Device("rxe0")->Attr("max_qp_wr"), 1048576u);
  const PortInfo* p = v.Device("rxe0")->Port(1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->active_mtu, 4096);
  EXPECT_TRUE(p->gids_known);
  ASSERT_EQ(p->gids.size(), 1u);
  EXPECT_EQ(p->gids[0].type, GidType::kRoceV2);
  EXPECT_EQ(p->gids[0].netdev, "va");
  EXPECT_EQ(p->hw_counters.at("retry_exceeded_err"), 0u);
  ASSERT_NE(v.Netdev("va"), nullptr);
  EXPECT_EQ(v.Netdev("va")->mtu, 9000);
  EXPECT_EQ(v.Netdev("va")->addrs, std::vector<std::string>{"198.18.0.1/24"});
}

struct BadCase {
  const char* name;
  const char* text;
  const char* where;  // "file:line"
  const char* field;  // substring naming the field
  const char* what;   // substring saying what is wrong
};

constexpr char kHead[] = "rdmacheck-profile 1\n";

class MalformedTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(MalformedTest, IsInvalidArgumentWithFileLineAndField) {
  const BadCase& c = GetParam();
  EXPECT_THAT(ParseProfile(c.text, "bad.profile"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(c.where), HasSubstr(c.field), HasSubstr(c.what))))
      << c.name;
}

// Each row names the line the error must point at.
const BadCase kBadCases[] = {
    {"empty_file", "", "bad.profile:1: ", "rdmacheck-profile", "missing version line"},
    {"no_version", "# just a comment\n[host]\n", "bad.profile:2: ", "rdmacheck-profile",
     "missing version line"},
    {"version_2", "rdmacheck-profile 2\n", "bad.profile:1: ", "rdmacheck-profile",
     "supported versions: 1"},
    {"version_not_number", "rdmacheck-profile one\n", "bad.profile:1: ", "rdmacheck-profile",
     "one number"},
    {"unknown_host_key", "rdmacheck-profile 1\n[host]\nhostnme x\n", "bad.profile:3: ",
     "hostnme", "unknown key in [host]"},
    {"bad_container_runtime", "rdmacheck-profile 1\n[host]\ncontainer_runtime lxd\n",
     "bad.profile:3: ", "container_runtime", "expected docker, podman, kubernetes or generic"},
    {"bad_number", "rdmacheck-profile 1\n[host]\nmem_total 24GiB\n", "bad.profile:3: ",
     "mem_total", "non-negative number"},
    {"negative_number", "rdmacheck-profile 1\n[device d]\nattr max_qp -1\n", "bad.profile:3: ",
     "attr max_qp", "non-negative number"},
    {"qdisc_bad_token", "rdmacheck-profile 1\n[netdev va]\nqdiscs tbf@root,burst_bytes=4k\n", "bad.profile:3: ",
     "qdiscs", "burst_bytes '4k' is not a whole number"},
    {"mtu_not_ib", "rdmacheck-profile 1\n[device d]\n[port d 1]\nactive_mtu 1500\n",
     "bad.profile:4: ", "active_mtu", "not an IB MTU"},
    {"mtu_too_big", "rdmacheck-profile 1\n[device d]\n[port d 1]\nmax_mtu 8192\n",
     "bad.profile:4: ", "max_mtu", "not an IB MTU"},
    {"port_zero", "rdmacheck-profile 1\n[device d]\n[port d 0]\n", "bad.profile:3: ",
     "[port d 0]", "1..255"},
    {"port_undeclared_device", "rdmacheck-profile 1\n[device d]\n[port e 1]\n",
     "bad.profile:3: ", "[port e 1]", "device e is not declared"},
    {"gid_type_unknown",
     "rdmacheck-profile 1\n[device d]\n[port d 1]\ngid 0 fe80::1 RoCEv3 va\n",
     "bad.profile:4: ", "gid 0", "unknown GID type `RoCEv3`"},
    {"gid_not_ipv6", "rdmacheck-profile 1\n[device d]\n[port d 1]\ngid 0 fe80::zz RoCEv2\n",
     "bad.profile:4: ", "gid 0", "not an IPv6-form GID"},
    {"gid_truncated", "rdmacheck-profile 1\n[device d]\n[port d 1]\ngid 0 fe80::1\n",
     "bad.profile:4: ", "gid", "expected `gid INDEX GID TYPE [NETDEV]`"},
    {"duplicate_device", "rdmacheck-profile 1\n[device d]\n\n[device d]\n", "bad.profile:4: ",
     "[device d]", "duplicate section"},
    {"duplicate_host", "rdmacheck-profile 1\n[host]\n[host]\n", "bad.profile:3: ", "[host]",
     "duplicate section"},
    {"duplicate_port", "rdmacheck-profile 1\n[device d]\n[port d 1]\n[port d 1]\n",
     "bad.profile:4: ", "[port d 1]", "duplicate section"},
    {"key_without_value", "rdmacheck-profile 1\n[host]\nkernel\n", "bad.profile:3: ", "kernel",
     "no value (truncated line?)"},
    {"attr_without_number", "rdmacheck-profile 1\n[device d]\nattr max_qp\n",
     "bad.profile:3: ", "attr", "expected `attr NAME NUMBER`"},
    {"bad_bool", "rdmacheck-profile 1\n[host]\nrxe_loaded maybe\n", "bad.profile:3: ",
     "rxe_loaded", "yes or no"},
    {"bad_state", "rdmacheck-profile 1\n[device d]\n[port d 1]\nstate PORT_ACTIVE\n",
     "bad.profile:4: ", "state", "not a port state"},
    {"key_before_section", "rdmacheck-profile 1\nhostname x\n", "bad.profile:2: ", "hostname",
     "before the first section"},
    {"unknown_section", "rdmacheck-profile 1\n[hots]\n", "bad.profile:2: ", "[hots]",
     "unknown section"},
    {"unterminated_quote", "rdmacheck-profile 1\n[host]\nhostname \"abc\n", "bad.profile:3: ",
     "hostname", "unterminated quoted string"},
    {"duplicate_key", "rdmacheck-profile 1\n[netdev va]\nmtu 1500\nmtu 9000\n",
     "bad.profile:4: ", "mtu", "given twice"},
    {"duplicate_attr", "rdmacheck-profile 1\n[device d]\nattr max_qp 1\nattr max_qp 2\n",
     "bad.profile:4: ", "attr max_qp", "given twice"},
    {"vendor_id_overflow", "rdmacheck-profile 1\n[device d]\nvendor_id 0x100000000\n",
     "bad.profile:3: ", "vendor_id", "out of range"},
    {"header_unclosed", "rdmacheck-profile 1\n[device d\n", "bad.profile:2: ", "[device d",
     "must end with ']'"},
    {"ruleset_unknown_source", "rdmacheck-profile 1\n[ruleset pf]\n", "bad.profile:2: ",
     "[ruleset pf]", "unknown ruleset source"},
    {"ruleset_duplicate", "rdmacheck-profile 1\n[ruleset nft]\n[ruleset nft]\n",
     "bad.profile:3: ", "[ruleset nft]", "duplicate section"},
    {"ruleset_unknown_key", "rdmacheck-profile 1\n[ruleset nft]\ntable inet x {\n",
     "bad.profile:3: ", "table", "unknown key in [ruleset nft]"},
    {"ruleset_line_after_final", "rdmacheck-profile 1\n[ruleset nft]\nline a\nfinal_newline no\nline b\n",
     "bad.profile:5: ", "line", "after `final_newline no`"},
    {"dev_node_no_state", "rdmacheck-profile 1\n[host]\ndev_node uverbs0\n", "bad.profile:3: ",
     "dev_node", "expected `dev_node NAME STATE`"},
    {"udp4791_bad_bool", "rdmacheck-profile 1\n[host]\nudp4791_socket 1\n", "bad.profile:3: ",
     "udp4791_socket", "yes or no"},
    {"window_named", "rdmacheck-profile 1\n[window w]\n", "bad.profile:2: ", "[window]", "takes no name"},
    {"window_twice", "rdmacheck-profile 1\n[window]\nms 5\n[window]\n", "bad.profile:4: ", "[window]",
     "duplicate section"},
    {"window_ms_text", "rdmacheck-profile 1\n[window]\nms 2s\n", "bad.profile:3: ", "ms", "non-negative number"},
    {"event_truncated", "rdmacheck-profile 1\n[window]\nevent rxe0 512\n", "bad.profile:3: ", "event",
     "expected `event DEVICE AT_MS TYPE [PORT]`"},
    {"event_bad_type", "rdmacheck-profile 1\n[window]\nevent rxe0 512 port-error 1\n", "bad.profile:3: ",
     "event", "not an event type"},
    {"event_bad_port", "rdmacheck-profile 1\n[window]\nevent rxe0 512 PORT_ERR 300\n", "bad.profile:3: ",
     "event rxe0 PORT", "out of range"},
    {"counter_after_no_number", "rdmacheck-profile 1\n[device d]\n[port d 1]\ncounter_after symbol_error\n",
     "bad.profile:4: ", "counter_after", "expected `counter_after NAME NUMBER`"},
    {"unreadable_twice", "rdmacheck-profile 1\n[device d]\n[port d 1]\nunreadable_counter a\nunreadable_counter a\n",
     "bad.profile:5: ", "unreadable_counter", "given twice"},
};

INSTANTIATE_TEST_SUITE_P(Rows, MalformedTest, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

TEST(ProfileTest, CrlfAndIndentationAreAccepted) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ParseProfile("rdmacheck-profile 1\r\n[host]\r\n  kernel 6.1\r\n", "x"));
  EXPECT_EQ(v.host.kernel, "6.1");
}

TEST(ProfileTest, GidsKnownFollowsGidLinesUnlessSaid) {
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseProfile(R"(rdmacheck-profile 1
[device d]
[port d 1]
gid 0 fe80::1 IB
[port d 2]
[port d 3]
gids_known yes
[port d 4]
gids_known no
gid 0 fe80::1 IB
)",
                                                  "g"));
  const DeviceInfo& d = v.devices[0];
  EXPECT_TRUE(d.Port(1)->gids_known);
  EXPECT_FALSE(d.Port(2)->gids_known);
  EXPECT_TRUE(d.Port(3)->gids_known);
  EXPECT_FALSE(d.Port(4)->gids_known);
  EXPECT_EQ(d.Port(4)->gids.size(), 1u);
}

std::vector<std::string> FixtureFiles(absl::string_view suffix) {
  std::vector<std::string> out;
  DIR* dir = opendir(kFixtures);
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (absl::EndsWith(name, suffix)) out.push_back(absl::StrCat(kFixtures, "/", name));
  }
  closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ProfileFixturesTest, EveryProfileParsesAndRoundTrips) {
  std::vector<std::string> files = FixtureFiles(".profile");
  ASSERT_GE(files.size(), 10u) << "fixtures not in runfiles?";
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    ASSERT_OK_AND_ASSIGN(DeviceView v, ReadProfileFile(f));
    EXPECT_EQ(v.source, absl::StrCat("profile:", f));
    EXPECT_FALSE(v.provenance.empty()) << "every fixture says where it came from";
    std::string text = WriteProfile(v);
    ASSERT_OK_AND_ASSIGN(DeviceView back, ParseProfile(text, f));
    ExpectViewsEqual(v, back, text);
  }
}

// `--profile` takes any paste --from reads, not only a profile or
// ibv_devinfo; text of no format is still refused naming its line.
TEST(ProfileFixturesTest, AnyPasteFormatReadsAndNoFormatNamesTheFormatsTried) {
  const std::string ibstat = absl::StrCat(::testing::TempDir(), "/ibstat.txt");
  std::ofstream(ibstat) << "# pasted\n\nCA 'mlx5_0'\n\tCA type: MT4123\n\tPort 1:\n\t\tState: Active\n";
  ASSERT_OK_AND_ASSIGN(DeviceView v, ReadProfileFile(ibstat));
  EXPECT_EQ(v.source, "ibstat:" + ibstat);
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "mlx5_0");
  ASSERT_EQ(v.devices[0].ports.size(), 1u);
  EXPECT_EQ(v.devices[0].ports[0].state, "ACTIVE");
  const std::string notes = absl::StrCat(::testing::TempDir(), "/notes.txt");
  std::ofstream(notes) << "\n\nthe node is slow since Tuesday\n";
  EXPECT_THAT(ReadProfileFile(notes),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(absl::StrCat(notes, ":3: not a format rdmacheck reads")),
                             HasSubstr("rdmacheck profile"), HasSubstr("ibv_devinfo"),
                             HasSubstr("its first line fits none: `the node is slow since Tuesday`"))));
}

TEST(ProfileFixturesTest, EveryDevinfoTextImportsAndRoundTrips) {
  std::vector<std::string> files = FixtureFiles(".devinfo.txt");
  ASSERT_GE(files.size(), 2u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    ASSERT_OK_AND_ASSIGN(DeviceView v, ReadProfileFile(f));
    EXPECT_EQ(v.source, absl::StrCat("ibv_devinfo:", f));
    ASSERT_OK_AND_ASSIGN(DeviceView back, ParseProfile(WriteProfile(v), f));
    ExpectViewsEqual(v, back, f);
  }
}

// What WriteProfile gives for each fixture, kept byte for byte under
// fixtures/profiles/written/, so a change to the writer that alters any
// fixture's text shows here. `bazel run //facts:profile_test` with
// RDMACHECK_REWRITE=1 rewrites them in the source tree (only for a change
// meant to alter the text).
TEST(ProfileFixturesTest, EveryFixtureIsWrittenAsRecorded) {
  std::vector<std::string> files = FixtureFiles(".profile");
  for (const std::string& f : FixtureFiles(".devinfo.txt")) files.push_back(f);
  ASSERT_GE(files.size(), 12u);
  const char* workspace = getenv("BUILD_WORKSPACE_DIRECTORY");
  bool rewrite = workspace != nullptr && getenv("RDMACHECK_REWRITE") != nullptr;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::string written =
        absl::StrCat(kFixtures, "/written/", f.substr(f.rfind('/') + 1), ".written");
    ASSERT_OK_AND_ASSIGN(DeviceView v, ReadProfileFile(f));
    std::string text = WriteProfile(v);
    if (rewrite) std::ofstream(absl::StrCat(workspace, "/", written), std::ios::binary) << text;
    std::ifstream in(written, std::ios::binary);
    ASSERT_TRUE(in) << written << " missing";
    std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, want);
  }
}

TEST(ProfileFixturesTest, RxeMtu1500HasThePairAndItsHost) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadProfileFile("fixtures/profiles/rxe_mtu1500.profile"));
  EXPECT_EQ(v.host.memlock_soft, 8388608u);
  EXPECT_EQ(v.host.rxe_loaded, true);
  // A real capture: Debian's ibverbs-providers ships every provider.
  EXPECT_THAT(v.host.providers, ::testing::Contains("rxe"));
  EXPECT_THAT(v.host.providers, ::testing::Contains("mlx5"));
  EXPECT_EQ(v.host.sysctls.at("net.ipv4.conf.va.rp_filter"), "0");
  EXPECT_EQ(v.host.sysctls.at("net.ipv4.conf.default.accept_local"), "1");
  ASSERT_EQ(v.devices.size(), 2u);
  const DeviceInfo* rxe0 = v.Device("rxe0");
  ASSERT_NE(rxe0, nullptr);
  EXPECT_EQ(rxe0->Attr("max_qp"), 1048560u);
  EXPECT_EQ(rxe0->Attr("max_qp_wr"), 1048576u);
  EXPECT_EQ(rxe0->Attr("max_cqe"), 32767u);
  EXPECT_EQ(rxe0->Attr("max_mr_size"), UINT64_MAX);
  const PortInfo* p = rxe0->Port(1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->active_mtu, 1024);
  EXPECT_EQ(p->max_mtu, 4096);
  ASSERT_EQ(p->gids.size(), 2u);
  EXPECT_EQ(p->gids[1].gid, "::ffff:198.18.0.1");
  EXPECT_EQ(p->gids[1].type, GidType::kRoceV2);
  EXPECT_EQ(v.Device("rxe1")->Port(1)->gids[1].gid, "::ffff:198.18.0.2");
  EXPECT_EQ(v.Netdev("va")->mtu, 1500);
  EXPECT_EQ(v.Netdev("vb")->addrs[0], "198.18.0.2/24");
}

TEST(ProfileFixturesTest, FaultFixturesCarryTheirFault) {
  ASSERT_OK_AND_ASSIGN(DeviceView none, ReadProfileFile("fixtures/profiles/no_device.profile"));
  EXPECT_TRUE(none.devices.empty());
  EXPECT_TRUE(none.host.providers_known);
  EXPECT_TRUE(none.host.providers.empty());
  EXPECT_EQ(none.host.rxe_loaded, false);
  EXPECT_EQ(none.host.sysfs_infiniband, false);

  ASSERT_OK_AND_ASSIGN(DeviceView down,
                       ReadProfileFile("fixtures/profiles/rxe_port_down.profile"));
  EXPECT_EQ(down.Device("rxe0")->Port(1)->state, "DOWN");
  EXPECT_EQ(down.Device("rxe0")->Port(1)->phys_state, "Disabled");
  EXPECT_EQ(down.Netdev("va")->operstate, "down");

  ASSERT_OK_AND_ASSIGN(DeviceView mem,
                       ReadProfileFile("fixtures/profiles/rxe_memlock_64k.profile"));
  EXPECT_EQ(mem.host.memlock_soft, 65536u);

  ASSERT_OK_AND_ASSIGN(DeviceView old,
                       ReadProfileFile("fixtures/profiles/rxe_old_kernel.profile"));
  EXPECT_EQ(old.Device("rxe0")->Attr("max_qp"), 65536u);
  EXPECT_EQ(old.Device("rxe0")->Attr("max_qp_wr"), 16384u);

  ASSERT_OK_AND_ASSIGN(DeviceView big, ReadProfileFile("fixtures/profiles/rxe_mtu9000.profile"));
  EXPECT_EQ(big.Device("rxe0")->Port(1)->active_mtu, 4096);
  EXPECT_EQ(big.Netdev("va")->mtu, 9000);
}

TEST(ProfileFixturesTest, VendorFixturesCarryTheTableLimits) {
  struct Row {
    const char* file;
    const char* dev;
    uint64_t max_qp, max_qp_wr, max_sge, max_cqe;
  };
  const Row rows[] = {
      {"mlx5_cx6.profile", "mlx5_0", 262144, 32768, 30, 4194303},
      {"mlx4_cx3.profile", "mlx4_0", 393144, 16351, 32, 4194303},
      {"siw.profile", "siw0", 102400, 32768, 6, 3276800},
      {"qib_legacy.profile", "qib0", 16384, 16383, 96, 196607},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.file);
    ASSERT_OK_AND_ASSIGN(DeviceView v,
                         ReadProfileFile(absl::StrCat("fixtures/profiles/", r.file)));
    const DeviceInfo* d = v.Device(r.dev);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->Attr("max_qp"), r.max_qp);
    EXPECT_EQ(d->Attr("max_qp_wr"), r.max_qp_wr);
    EXPECT_EQ(d->Attr("max_sge"), r.max_sge);
    EXPECT_EQ(d->Attr("max_cqe"), r.max_cqe);
  }
  ASSERT_OK_AND_ASSIGN(DeviceView siw, ReadProfileFile("fixtures/profiles/siw.profile"));
  EXPECT_EQ(siw.devices[0].transport, "iWARP");
  EXPECT_EQ(siw.devices[0].Attr("max_sge_rd"), 1u);
  EXPECT_FALSE(siw.devices[0].ports[0].gids_known);
  ASSERT_OK_AND_ASSIGN(DeviceView qib, ReadProfileFile("fixtures/profiles/qib_legacy.profile"));
  const PortInfo& qp = qib.devices[0].ports[0];
  EXPECT_EQ(qp.link_layer, "InfiniBand");
  EXPECT_EQ(qp.lid, 5);
  ASSERT_EQ(qp.gids.size(), 1u);
  EXPECT_EQ(qp.gids[0].type, GidType::kIb);
  EXPECT_EQ(qp.gids[0].netdev, "");
}

TEST(ReadProfileFileTest, MissingFileIsNotFoundNamingThePath) {
  EXPECT_THAT(ReadProfileFile("fixtures/profiles/nope.profile"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("fixtures/profiles/nope.profile")));
}

// /dev/zero would grow memory until killed; a FIFO with no writer would
// block with no deadline.
TEST(ReadProfileFileTest, NotARegularFileIsRefused) {
  EXPECT_THAT(ReadProfileFile("/dev/zero"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ReadProfileFile(/dev/zero): not a regular file (a profile is read from a file)")));
}

TEST(ReadProfileFileTest, DirectoryIsInvalidArgument) {
  EXPECT_THAT(ReadProfileFile("fixtures/profiles"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is a directory")));
}

TEST(ReadProfileFileTest, ErrorsNameThePathAndLine) {
  std::string path = absl::StrCat(::testing::TempDir(), "/broken.profile");
  {
    std::ofstream out(path);
    out << "rdmacheck-profile 1\n[host]\nmemlock_soft lots\n";
  }
  EXPECT_THAT(ReadProfileFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(absl::StrCat(path, ":3: memlock_soft"))));
}

}  // namespace
}  // namespace rdmacheck
