// The importer on real pastes (fixtures/pastes/devinfo, sources in
// fixtures/pastes/SOURCES.tsv): every one is read as a partial profile, and
// each shape users paste gives the facts it holds.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "facts/devinfo_import.h"
#include "facts/paste_import.h"
#include "facts/profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

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
  // ibv_devices lists the device ibv_devinfo, pasted after it, fails to open.
  DeviceView none = Import("ntb-cxl-iwp0s3-failed-to-open.txt");
  ASSERT_EQ(none.devices.size(), 1u);
  EXPECT_EQ(none.devices[0].name, "iwp0s3");
  EXPECT_EQ(none.devices[0].node_guid, "9a15:0bce:93c3:3a74");
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

// The other tools' real pastes (fixtures/pastes/*/), each alone.
TEST(PasteImport, EveryOtherToolsPasteImports) {
  // Not these, and why: the 2017 prototype of the rdma tool (a format it
  // never shipped), ifconfig (not ip), ip addr cut down by grep to its inet
  // lines (no interface line to own them), an ibstatus block without its
  // header line.
  const std::set<std::string> kNot = {
      "rdma_link/netdev2017-rdmatool-rfc-format-wrapped.txt",
      "ip_addr/azhpc21-ifconfig-ib0-warning.txt",
      "ip_addr/opa-ff4-grep-inet-ipoib-pkeys.txt",
      "ibstatus/openshift-docs96176-diff-tabs-down.txt",
      // Personal notes that rewrote ip's <FLAGS> as [FLAGS] and ibdev2netdev's
      // "==>" as "...".
      "mixed/ip-link-square-brackets-and-ibdev2netdev-dots-html-notes.txt",
      // A shell loop's and a script's own lines over /sys/class/infiniband_mad.
      "mixed/xdr-smi-umad-sysfs-mapping-vm-cut.txt",
      // `ll /dev/infiniband`: character devices, no RDMA device named.
      "mixed/zh-locale-ll-dev-infiniband-issm-cut.txt",
      // One attribute of `ibv_devinfo -v` through grep, no device named.
      "mixed/ibv_devinfo-v-grep-mcast-mlx4-xen-slash-artifacts.txt",
      "mixed/siw-ibv_devinfo-grep-active_mtu-invalid.txt",
      // `rdma system show`: the namespace mode, no device.
      "mixed/lore-parav-rdma-sys-netns.txt",
      "mixed/lore-phaddad-rdma-system-privileged-qkey.txt",
  };
  // JSON that does not parse: the line where it breaks. Two quotes lost in
  // a commit message's hand-written example; a core dump's lines in the
  // middle of `rdma res show qp -jp -dd`.
  const std::map<std::string, std::string> kBadJson = {
      {"rdma_dev/rdma-dev-j-p-pretty-json-invalid-quotes-mailarchive.txt", ":10: JSON that does not parse (column 31: "},
      {"rdma_link/rdma-res-show-qp-jp-dd-hns-broken-json-core-dump-before-after.txt", ":18: JSON that does not parse ("},
      // Two runs' JSON with the poster's words between them.
      {"rdma_link/rdma-res-srq-json-pretty-before-after.txt", ":23: JSON that does not parse ("},
      // `rdma res show srq -jp -dd` whose JSON the tool itself broke.
      {"rdma_link/lore-hns-rdma-res-srq-json-raw.txt", ":11: JSON that does not parse ("},
      {"rdma_link/rdma-res-srq-json-raw-hns3-elided.txt", ":6: JSON that does not parse ("},
  };
  int read = 0;
  for (const char* kind : {"ibstat", "ibstatus", "show_gids", "rdma_link", "rdma_dev", "ip_addr", "ulimit", "ibdev2netdev",
                           "ibv_devices", "sysfs_class", "sysfs_cat", "mixed"}) {
    for (const auto& e : std::filesystem::directory_iterator(absl::StrCat("fixtures/pastes/", kind))) {
      std::string rel = absl::StrCat(kind, "/", e.path().filename().string());
      SCOPED_TRACE(rel);
      absl::StatusOr<DeviceView> v = ReadPastes({e.path().string()});
      if (auto bad = kBadJson.find(rel); bad != kBadJson.end()) {
        EXPECT_THAT(v.status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad->second)));
        continue;
      }
      if (kNot.count(rel)) {
        EXPECT_THAT(v.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("not a format rdmacheck reads (tried: ")));
        continue;
      }
      ASSERT_TRUE(v.ok()) << v.status();
      ++read;
    }
  }
  EXPECT_GE(read, 25);
}

// Pastes collected after the importers were written (2026-12-05), which the
// first versions refused.
TEST(PasteImport, PortFragmentAfterAnIbvDevinfoDashDCommandLine) {
  // "_ibv_devinfo -d mlx5_bond_0 -v_" then only phys_state and four GIDs.
  ASSERT_OK_AND_ASSIGN(DeviceView v, ReadPastes({"fixtures/pastes/devinfo/nccl769-bond-v-gid-tail-only.txt"}));
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "mlx5_bond_0");
  ASSERT_NE(v.devices[0].Port(1), nullptr);
  EXPECT_EQ(v.devices[0].Port(1)->gids.size(), 4u);
  EXPECT_THAT(Warnings(v), Contains(HasSubstr("starts inside a port block, before its hca_id and port lines: its facts "
                                              "are kept as device `mlx5_bond_0` (named by the ibv_devinfo -d command "
                                              "line) port 1 (assumed: no port number in it)")));
}

TEST(PasteImport, RdmaLinkWrappedOntoTwoLines) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/rdma_link/lore-kheib-ib-ipoib-netdev-wrapped-quoted.txt"}));
  ASSERT_EQ(v.devices.size(), 1u);
  const PortInfo* p = v.devices[0].Port(1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->state, "ACTIVE") << "from the continuation line";
  EXPECT_EQ(p->phys_state, "LinkUp");
  EXPECT_THAT(v.provenance, Contains("rdma link: mlx5_0/1 netdev ibp196s0f0"));
}

TEST(PasteImport, UlimitDashLAfterAContainerPrompt) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/ulimit/qdrant1885-docker-run-ulimit-l-8192.txt"}));
  EXPECT_EQ(v.host.memlock_soft, 8192u * 1024);
}

TEST(PasteImport, IpJsonCutMidElementKeepsTheWholeOnes) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/ip_addr/kata5903-ip-json-eth0-ib0-pretty-cut.txt"}));
  ASSERT_EQ(v.netdevs.size(), 1u);
  EXPECT_EQ(v.netdevs[0].name, "eth0");
  EXPECT_EQ(v.netdevs[0].mtu, 1500);
  EXPECT_THAT(Warnings(v), Contains(HasSubstr("the JSON ends inside an element (truncated paste?)")));
}

// JSON pasted below the command that printed it (a prompt line first), and
// iproute2's first JSON form of `rdma link` (2017: "ifname": "mlx5_0/1").
TEST(PasteImport, JsonAfterItsCommandLineAndTheFirstRdmaJsonForm) {
  ASSERT_OK_AND_ASSIGN(DeviceView v, ReadPastes({"fixtures/pastes/ip_addr/lazy-evaluation-ip-4-j-address.txt"}));
  // Cut inside its second element (ens3): the first is read.
  ASSERT_NE(v.Netdev("lo"), nullptr);
  EXPECT_EQ(v.Netdev("lo")->mtu, 65536);
  EXPECT_EQ(v.Netdev("ens3"), nullptr);
  EXPECT_THAT(Warnings(v), Contains(HasSubstr("lazy-evaluation-ip-4-j-address.txt:34: the JSON ends inside an element")));
  ASSERT_OK_AND_ASSIGN(DeviceView r, ReadPastes({"fixtures/pastes/rdma_link/iproute2-7fc75744-rdma-link-d-p-j.txt"}));
  ASSERT_EQ(r.devices.size(), 2u);
  const DeviceInfo* d = r.Device("mlx5_1");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(d->Port(1), nullptr);
  EXPECT_EQ(d->Port(1)->state, "ACTIVE");
  // A prompt line alone before JSON of another tool is still no format.
  EXPECT_THAT(ParsePaste("$ ls -j\n[{\"a\": 1}]\n", "ls.txt").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ls.txt:1: not a format rdmacheck reads")));
}

// `rdma dev` (and `rdma -j dev`): the devices, their firmware and GUIDs; with
// `rdma link` in the same paste, its ports too. A wrapped line is joined.
TEST(PasteImport, RdmaDevTextAndJson) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/rdma_dev/lore-linux-rdma-yztyx-cx3pro-two-kernels-quoted.txt"}));
  ASSERT_EQ(v.devices.size(), 2u);
  const DeviceInfo* d = v.Device("ibp9s0f0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->fw_ver, "2.42.5000");
  EXPECT_EQ(d->node_guid, "1c34:da03:0007:7a60");
  EXPECT_EQ(d->sys_image_guid, "1c34:da03:0007:7a63");
  ASSERT_OK_AND_ASSIGN(DeviceView m,
                       ReadPastes({"fixtures/pastes/mixed/lore-linux-rdma-20200926-rdma-dev-and-link.txt"}));
  const DeviceInfo* ib = m.Device("ibp0s9");
  ASSERT_NE(ib, nullptr);
  EXPECT_EQ(ib->fw_ver, "4.4.9999");
  ASSERT_NE(ib->Port(2), nullptr);
  EXPECT_EQ(ib->Port(1)->state, "ACTIVE");
  ASSERT_OK_AND_ASSIGN(DeviceView w, ParsePaste("0: mlx5_0: node_type ca fw 16.26.0055 node_guid 248a:0703:00a5:29d0\n"
                                                "sys_image_guid 248a:0703:00a5:29d0 adaptive-moderation on\n",
                                                "wrapped.txt"));
  ASSERT_NE(w.Device("mlx5_0"), nullptr);
  EXPECT_EQ(w.Device("mlx5_0")->sys_image_guid, "248a:0703:00a5:29d0");
  // As iproute2's rdma/dev.c prints it with -j (rxe: no "fw").
  ASSERT_OK_AND_ASSIGN(DeviceView j, ParsePaste("[{\"ifindex\":0,\"ifname\":\"rxe0\",\"node_type\":\"ca\",\"node_guid\":"
                                                "\"5054:00ff:fe12:3456\",\"sys_image_guid\":\"5054:00ff:fe12:3456\"}]\n",
                                                "dev.json"));
  ASSERT_NE(j.Device("rxe0"), nullptr);
  EXPECT_EQ(j.Device("rxe0")->node_guid, "5054:00ff:fe12:3456");
  EXPECT_FALSE(j.Device("rxe0")->fw_ver.has_value());
}

// `ibdev2netdev -v`: the PCI address first, the firmware and the port's state
// before the arrow.
TEST(PasteImport, Ibdev2netdevVerbose) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/ibdev2netdev/dss-ansible-readme-ibdev2netdev-v-cx6.txt"}));
  ASSERT_EQ(v.devices.size(), 4u);
  const DeviceInfo* d = v.Device("mlx5_3");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->fw_ver, "20.28.1002");
  ASSERT_NE(d->Port(1), nullptr);
  EXPECT_EQ(d->Port(1)->state, "ACTIVE");
  ASSERT_NE(v.Netdev("p3p1"), nullptr);
  EXPECT_EQ(v.Netdev("p3p1")->operstate, "up");
}

TEST(PasteImport, IbstatGivesPortsAndFirmware) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/ibstat/mooncake1999-cx7-cx6dx-multi.txt"}));
  const DeviceInfo* d = v.Device("mlx5_0");
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->fw_ver.has_value());
  ASSERT_NE(d->Port(1), nullptr);
  EXPECT_TRUE(d->Port(1)->state.has_value());
  EXPECT_TRUE(d->Port(1)->link_layer.has_value());
  EXPECT_THAT(v.fact_sources["mlx5_0 port 1 state"],
              HasSubstr("fixtures/pastes/ibstat/mooncake1999-cx7-cx6dx-multi.txt:10"));
}

TEST(PasteImport, UlimitShowGidsAndIbdev2netdev) {
  ASSERT_OK_AND_ASSIGN(DeviceView u, ReadPastes({"fixtures/pastes/ulimit/ucx8229-memlock-64.txt"}));
  EXPECT_EQ(u.host.memlock_soft, 64u * 1024);
  ASSERT_OK_AND_ASSIGN(DeviceView hard,
                       ReadPastes({"fixtures/pastes/ulimit/docker-for-linux1099-hard-limits.txt"}));
  EXPECT_EQ(hard.host.memlock_hard, HostInfo::kUnlimited);  // after `ulimit -Ha`
  EXPECT_FALSE(hard.host.memlock_soft.has_value());
  ASSERT_OK_AND_ASSIGN(DeviceView g,
                       ReadPastes({"fixtures/pastes/show_gids/mooncake1617-rocep-ionic.txt"}));
  const DeviceInfo* d = g.Device("rocep105s0");
  ASSERT_NE(d, nullptr);
  ASSERT_FALSE(d->Port(1)->gids.empty());
  EXPECT_EQ(d->Port(1)->gids[0].type, GidType::kRoceV2);
  EXPECT_EQ(d->Port(1)->gids[0].netdev, "enp105s0");
  ASSERT_OK_AND_ASSIGN(DeviceView n,
                       ReadPastes({"fixtures/pastes/ibstat/magnate3-ibpanic-netdev-name.txt"}));
  ASSERT_NE(n.Netdev("ens4f0"), nullptr);
  EXPECT_EQ(n.Netdev("ens4f0")->operstate, "down");
}

// show_gids pasted in a sentence: the row's last netdev carries the post's
// full stop, which is dropped and said; the rows before keep theirs.
TEST(PasteImport, ShowGidsNetdevBeforeTheTextsFullStop) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/show_gids/show_gids-two-pods-macvlan-no-fence.txt"}));
  const DeviceInfo* d = v.Device("mlx5_4");
  ASSERT_NE(d, nullptr);
  std::vector<std::string> netdevs;
  for (const GidEntry& g : d->Port(1)->gids) netdevs.push_back(g.netdev);
  EXPECT_THAT(netdevs, ElementsAre("net1", "net1", "net1", "net1"));
  EXPECT_THAT(v.warnings, Contains(HasSubstr(":10: netdev `net1.` read as net1")));
  ASSERT_OK_AND_ASSIGN(DeviceView vlan, ParsePaste("DEV\tPORT\tINDEX\tGID\tIPv4\tVER\tDEV\n"
                                                   "mlx5_0\t1\t3\tfe80:0000:0000:0000:0000:0000:0000:0001\t\tv2\teth0.100\n",
                                                   "vlan.txt"));
  EXPECT_EQ(vlan.Device("mlx5_0")->Port(1)->gids[0].netdev, "eth0.100");
  EXPECT_TRUE(vlan.warnings.empty());
}

// A fourth held-out set (2026-12-05): what the first reading refused or
// read wrong.
TEST(PasteImport, HeldOutSetFourReadRight) {
  const std::string p = "fixtures/pastes/";
  // A mail archive's HTML source: tags and entities dropped; `ulimit -l`
  // after ibv_devinfo read too, its value two lines down past a <br>.
  ASSERT_OK_AND_ASSIGN(DeviceView html, ReadPastes({p + "mixed/html-source-suse-ibv_devinfo-mlx4-ulimit-l-nbsp-gt.txt"}));
  ASSERT_EQ(html.devices.size(), 1u);
  EXPECT_EQ(html.devices[0].name, "mlx4_0");
  EXPECT_EQ(html.devices[0].fw_ver, "2.6.000");
  EXPECT_EQ(html.host.memlock_soft, HostInfo::kUnlimited);
  // A pastebin's list ("- " on every line); libibverbs 1.1's "link_layer: IB".
  ASSERT_OK_AND_ASSIGN(DeviceView qib, ReadPastes({p + "devinfo/ibv_devinfo-qib0-pastebin-list-dash-prefixed-link_layer-IB.txt"}));
  ASSERT_EQ(qib.devices.size(), 1u);
  EXPECT_EQ(qib.devices[0].ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(qib.devices[0].ports[0].lid, 173);
  // A gist's table: "Rate: 56 | |".
  ASSERT_OK_AND_ASSIGN(DeviceView win, ReadPastes({p + "ibstat/ibstat-windows-winof-ibv_device0-initializing-gist-table-pipes.txt"}));
  ASSERT_EQ(win.devices.size(), 1u);
  EXPECT_EQ(win.devices[0].fw_ver, "2.42.5000");
  ASSERT_EQ(win.devices[0].ports.size(), 1u);
  EXPECT_EQ(win.devices[0].ports[0].state, "INIT");
  // `rdma res show qp`: the QP's state INIT is no port state.
  ASSERT_OK_AND_ASSIGN(DeviceView res, ReadPastes({p + "rdma_link/rdma-res-show-qp-pd-ibp0s9-double-quoted-mail.txt"}));
  ASSERT_EQ(res.devices.size(), 1u);
  ASSERT_EQ(res.devices[0].ports.size(), 1u);
  EXPECT_FALSE(res.devices[0].ports[0].state.has_value());
  // `rdma stat show link` wrapped over eight lines: all 23 counters.
  ASSERT_OK_AND_ASSIGN(DeviceView stat, ReadPastes({p + "rdma_link/rdma-stat-show-link-mlx5-wrapped-trailing-spaces-mailarchive.txt"}));
  ASSERT_EQ(stat.devices.size(), 1u);
  const std::map<std::string, uint64_t>& c = stat.devices[0].ports[0].hw_counters;
  EXPECT_EQ(c.size(), 23u);
  EXPECT_EQ(c.at("rx_read_requests"), 4u);
  EXPECT_EQ(c.at("rx_icrc_encapsulated"), 0u);
  // `ip a` with its newlines lost: three records in one line; the record
  // pasted again after the prompt (cut at "mtu 655") left out, said.
  ASSERT_OK_AND_ASSIGN(DeviceView ip, ReadPastes({p + "ip_addr/ip-a-openshift-pod-zh-cn-docs-newlines-collapsed-cut.txt"}));
  std::vector<std::string> names;
  for (const NetdevInfo& n : ip.netdevs) names.push_back(n.name);
  EXPECT_THAT(names, ElementsAre("lo", "eth0", "net1"));
  EXPECT_EQ(ip.Netdev("lo")->mtu, 65536);
  EXPECT_EQ(ip.Netdev("net1")->mtu, 1500);
  EXPECT_THAT(ip.Netdev("net1")->addrs, Contains("192.168.4.225/28"));
  EXPECT_THAT(ip.warnings, Contains(HasSubstr("netdev lo again")));
  // OFED's older "<===>", two entries run into one line after the command.
  ASSERT_OK_AND_ASSIGN(DeviceView old, ReadPastes({p + "ibdev2netdev/ibdev2netdev-old-arrow-format-two-lines-joined-pdf-manual-plus-dat-conf.txt"}));
  ASSERT_EQ(old.devices.size(), 1u);
  EXPECT_EQ(old.devices[0].ports.size(), 2u);
  EXPECT_THAT(old.provenance, Contains("ibdev2netdev: mlx4_0/2 netdev eth2"));
  EXPECT_THAT(old.provenance, Contains("ibdev2netdev: mlx4_0/1 netdev eth3"));
  // ibdev2netdev above ibstat: both read.
  ASSERT_OK_AND_ASSIGN(DeviceView both, ReadPastes({p + "mixed/ibdev2netdev-redacted-names-plus-ibstat-elided-to-link-layer-zh-doc.txt"}));
  ASSERT_NE(both.Netdev("ibxxxxxx0"), nullptr);
  EXPECT_EQ(both.Netdev("ibxxxxxx0")->operstate, "up");
  EXPECT_EQ(both.devices[0].ports[0].link_layer, "InfiniBand");
}

// A fifth held-out set (2026-12-05): what the first reading refused or read
// wrong.
TEST(PasteImport, HeldOutSetFiveReadRight) {
  const std::string p = "fixtures/pastes/";
  // `cat` of a port's sysfs files: GID types and netdevs without the GIDs
  // themselves give the port and its netdev; a GID read so is a GID.
  ASSERT_OK_AND_ASSIGN(DeviceView cat, ReadPastes({p + "sysfs_cat/cat-gid_attrs-ndevs-types-ls-crlf-zh-notes.txt"}));
  ASSERT_EQ(cat.devices.size(), 1u);
  EXPECT_EQ(cat.devices[0].name, "mlx5_1");
  EXPECT_THAT(cat.provenance, Contains("sysfs: mlx5_1/1 netdev enp1s0f1"));
  ASSERT_OK_AND_ASSIGN(DeviceView gid, ReadPastes({p + "mixed/ibstat-roceP1p1s0f1-4space-cat-sys-gids-0-apt-search.txt"}));
  const PortInfo* port = gid.Device("roceP1p1s0f1")->Port(1);
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->state, "ACTIVE");  // ibstat's
  ASSERT_EQ(port->gids.size(), 1u);  // cat's
  EXPECT_EQ(port->gids[0].gid, "fe80::bace:f6ff:fe2d:1707");
  // `rdma statistic show link mana_0/1 -p`: one counter a line.
  ASSERT_OK_AND_ASSIGN(DeviceView mana, ReadPastes({p + "rdma_link/rdma-statistic-show-link-mana_0-pretty-patch-mail.txt"}));
  ASSERT_EQ(mana.devices.size(), 1u);
  EXPECT_EQ(mana.devices[0].ports[0].hw_counters.at("requester_timeout"), 45u);
  EXPECT_EQ(mana.devices[0].ports[0].hw_counters.at("general_hw_error"), 6u);
  // A mail's no-break spaces for indentation.
  ASSERT_OK_AND_ASSIGN(DeviceView nbsp, ReadPastes({p + "devinfo/ibv_devinfo-i40iw-iwarp-two-plus-mlx5-ib-lsmod-5space-indent-mail.txt"}));
  ASSERT_GE(nbsp.devices.size(), 2u);
  EXPECT_EQ(nbsp.devices[0].name, "i40iw0");
  EXPECT_EQ(nbsp.devices[0].transport, "iWARP");
  // `ls -l /sys/class/infiniband/` cut inside its only link.
  ASSERT_OK_AND_ASSIGN(DeviceView cut, ReadPastes({p + "sysfs_class/node-exporter-issue-template-ls-l-sys-class-infiniband-irdma-cut.txt"}));
  ASSERT_EQ(cut.devices.size(), 1u);
  EXPECT_EQ(cut.devices[0].name, "irdma0");
  EXPECT_FALSE(cut.devices[0].pci_address.has_value());
  EXPECT_THAT(cut.warnings, Contains(HasSubstr("the link of irdma0 is cut")));
  // show_gids rows a mail client wrapped after the GID.
  ASSERT_OK_AND_ASSIGN(DeviceView wrapped, ReadPastes({p + "show_gids/show_gids-script-bnxt_re-vlan-cxgb4-hfi1-mlx5-double-quoted-wrapped.txt"}));
  const DeviceInfo* bnxt = wrapped.Device("bnxt_re0");
  ASSERT_NE(bnxt, nullptr);
  EXPECT_EQ(bnxt->Port(1)->gids.size(), 12u);
  const GidEntry* vlan = nullptr;
  for (const GidEntry& g : bnxt->Port(1)->gids)
    if (g.index == 10) vlan = &g;
  ASSERT_NE(vlan, nullptr);
  EXPECT_EQ(vlan->gid, "::ffff:172.31.43.187");
  EXPECT_EQ(vlan->netdev, "bnxt_roce.43");
  // `ip -o a` beside `rdma res show qp`: one line per address.
  ASSERT_OK_AND_ASSIGN(DeviceView oneline, ReadPastes({p + "mixed/rdma-res-show-qp-oneline-hns-mlx5-flowed-wrap-ip-o-a.txt"}));
  ASSERT_NE(oneline.Netdev("lo"), nullptr);
  EXPECT_THAT(oneline.Netdev("lo")->addrs, ElementsAre("127.0.0.1/8", "::1/128"));
  EXPECT_THAT(oneline.warnings, Not(Contains(HasSubstr("again"))));
  // ibv_devinfo -v with its port lines elided: the GIDs have no port, said.
  ASSERT_OK_AND_ASSIGN(DeviceView elided, ReadPastes({p + "mixed/ibv_devinfo-v-rxe0-elided-wrapped-ipv6-global-gids-ip-addr.txt"}));
  EXPECT_THAT(elided.warnings, Contains(HasSubstr("a port's line in device rxe0 before any `port:` line")));
}

TEST(PasteImport, HeldOutSetSixReadRight) {
  const std::string p = "fixtures/pastes/";
  // Two ibstatus runs (before and after a cable was pulled) in a mail
  // archive's HTML, indented with `&#160;`: the first run is read, the
  // second said.
  ASSERT_OK_AND_ASSIGN(DeviceView runs, ReadPastes({p + "ibstatus/mlx4-ibstatus-before-after-unplug-html160-ompi-2012.txt"}));
  ASSERT_EQ(runs.devices.size(), 1u);
  ASSERT_EQ(runs.devices[0].ports.size(), 2u);
  EXPECT_EQ(runs.devices[0].ports[0].state, "ACTIVE");
  EXPECT_EQ(runs.devices[0].ports[0].rate, "56 Gb/sec (4X FDR)");
  EXPECT_THAT(runs.warnings, Contains(HasSubstr("device mlx4_0 port 1 again, in another run of the command: line 7 is "
                                                "read, this one left out")));
  // ibstat's port lines without their CA line.
  ASSERT_OK_AND_ASSIGN(DeviceView headless, ReadPastes({p + "ibstat/azure-ibstat-fragment-ellipsis-polling.txt"}));
  ASSERT_EQ(headless.devices.size(), 1u);
  EXPECT_EQ(headless.devices[0].name, "unknown");
  EXPECT_EQ(headless.devices[0].ports[0].state, "DOWN");
  EXPECT_EQ(headless.devices[0].ports[0].phys_state, "Polling");
  // `rdma res`'s summary alone, run twice.
  ASSERT_OK_AND_ASSIGN(DeviceView res, ReadPastes({p + "rdma_link/mlx5-rdma-res-summary-before-after-libfabric.txt"}));
  std::vector<std::string> names;
  for (const DeviceInfo& d : res.devices) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"));
  // ibv_devices' header, then the prompt: the list is whole, and empty.
  ASSERT_OK_AND_ASSIGN(DeviceView empty, ReadPastes({p + "ibv_devices/rxe-arria10-ibv_devices-empty-rxe_cfg.txt"}));
  EXPECT_THAT(empty.devices, IsEmpty());
  EXPECT_NE(empty.host.devices_listed, false);
  EXPECT_THAT(empty.warnings, Contains(HasSubstr(":20: ibv_devices listed no device")));
  // ... after libibverbs' warning that rxe has no provider.
  ASSERT_OK_AND_ASSIGN(DeviceView noprov, ReadPastes({p + "mixed/rxe-ibv_devices-no-userspace-driver.txt"}));
  EXPECT_THAT(noprov.devices, IsEmpty());
  EXPECT_EQ(noprov.host.devices_without_provider, 1u);
  // ibv_devices beside ibv_devinfo -d mlx5_0: all four devices.
  ASSERT_OK_AND_ASSIGN(DeviceView talos, ReadPastes({p + "mixed/talos-k8s-ls-ibv_devices-ibv_devinfo-cut.txt"}));
  names.clear();
  for (const DeviceInfo& d : talos.devices) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"));
  EXPECT_EQ(talos.devices[0].fw_ver, "20.29.1016");  // ibv_devinfo's
  EXPECT_EQ(talos.devices[3].node_guid, "88e9:a4ff:ff8d:dcda");  // ibv_devices'
  // Another tool's prompt ends the device block: `ifconfig`'s German lines
  // after it are counted as left out, not read as unknown keys of mthca0.
  ASSERT_OK_AND_ASSIGN(DeviceView mthca, ReadPastes({p + "devinfo/mthca-ibv_devinfo-german-ifconfig-html-2007.txt"}));
  ASSERT_EQ(mthca.devices.size(), 1u);
  EXPECT_EQ(mthca.devices[0].ports[0].active_mtu, 2048);
  EXPECT_THAT(mthca.warnings, Contains(HasSubstr(":1: 15 lines outside the hca_id blocks are not ibv_devinfo output")));
  // `ll /dev/infiniband` is refused with what to paste instead.
  EXPECT_THAT(ReadPastes({p + "mixed/zh-locale-ll-dev-infiniband-issm-cut.txt"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("`ls /dev/infiniband` lists the character devices (uverbs, umad, issm)")));
}

TEST(PasteImport, HeldOutSetSevenReadRight) {
  const std::string p = "fixtures/pastes/";
  auto names = [](const DeviceView& v) {
    std::vector<std::string> n;
    for (const DeviceInfo& d : v.devices) n.push_back(d.name);
    return n;
  };
  // ibdev2netdev of two hosts: the second host's ports are left out, said.
  ASSERT_OK_AND_ASSIGN(DeviceView hosts, ReadPastes({p + "ibdev2netdev/ibdev2netdev-alias-2hosts-ip-indented.txt"}));
  EXPECT_EQ(hosts.Netdev("ens801f0"), nullptr);
  EXPECT_THAT(hosts.warnings, Contains(HasSubstr(":8: device mlx5_0 port 1 again")));
  // ... but plain then -v of the same ports adds -v's state and firmware.
  ASSERT_OK_AND_ASSIGN(DeviceView v, ReadPastes({p + "ibdev2netdev/sriov-cni-vf-setup-plain-then-v-vfs-down.txt"}));
  EXPECT_EQ(v.devices[0].fw_ver, "12.23.1020");
  EXPECT_EQ(v.devices[0].ports[0].state, "ACTIVE");
  EXPECT_THAT(v.warnings, Not(Contains(HasSubstr("again"))));
  // A mail stored quoted-printable: "=A0=A0... Firmware version: 20.33.1048".
  ASSERT_OK_AND_ASSIGN(DeviceView qp, ReadPastes({p + "ibstat/ibstat-mlx5-cut-nbsp-qp.txt"}));
  EXPECT_EQ(qp.devices[0].fw_ver, "20.33.1048");
  // `rdma dev` in backticks, wrapped between node_guid and its value.
  ASSERT_OK_AND_ASSIGN(DeviceView dev, ReadPastes({p + "rdma_dev/rdma-dev-backticked-wrapped-cx4lx-cx3.txt"}));
  ASSERT_EQ(dev.devices.size(), 2u);
  EXPECT_EQ(dev.devices[0].node_guid, "7cfe:9003:0026:88ac");
  EXPECT_EQ(dev.devices[1].sys_image_guid, "0002:c903:0042:dff3");
  // `rdma link` run three more times, in another namespace and after a
  // change: the first run is read, each other one that differs is said.
  ASSERT_OK_AND_ASSIGN(DeviceView runs, ReadPastes({p + "rdma_link/rdma-link-netns-quoted-cn.txt"}));
  EXPECT_THAT(runs.warnings, Contains(HasSubstr(":21: device roceo12399/1 again")));
  // ... and alike twice (with and without -d), read with no warning.
  ASSERT_OK_AND_ASSIGN(DeviceView alike, ReadPastes({p + "rdma_link/iproute2-15259427-rdma-link-show-old-format.txt"}));
  EXPECT_THAT(alike.warnings, Not(Contains(HasSubstr("again"))));
  // `rdma res` lines behind the poster's prefix, among dmesg lines.
  ASSERT_OK_AND_ASSIGN(DeviceView res, ReadPastes({p + "rdma_link/rdma-res-interlaced-dmesg-maxqp-cx4-qp-encoded.txt"}));
  EXPECT_THAT(names(res), ElementsAre("mlx5_0"));
  // A plain `ls /sys/class/infiniband` beside ip addr, and beside ibv_devices.
  ASSERT_OK_AND_ASSIGN(DeviceView ls, ReadPastes({p + "mixed/rxe-netns-ip-addr-ls-sys-class-infiniband-annotated.txt"}));
  EXPECT_THAT(names(ls), ElementsAre("rxe0", "rxe1", "rxe2"));
  ASSERT_OK_AND_ASSIGN(DeviceView erdma, ReadPastes({p + "ibv_devices/erdma-container-ls-ibv_devices.txt"}));
  EXPECT_THAT(names(erdma), ElementsAre("erdma_0", "erdma_1"));
  // `ls -l`'s "total 0" names no device.
  ASSERT_OK_AND_ASSIGN(DeviceView total, ReadPastes({p + "sysfs_class/node-exporter-issue-template-ls-l-sys-class-infiniband-irdma-cut.txt"}));
  EXPECT_EQ(total.Device("total"), nullptr);
  // ip's header wrapped before "qdisc mq state UP": the state is read.
  ASSERT_OK_AND_ASSIGN(DeviceView ip, ReadPastes({p + "ip_addr/ip-a-ipoib-child-mlx5-gmail-wrapped.txt"}));
  ASSERT_NE(ip.Netdev("ib0.beef"), nullptr);
  EXPECT_EQ(ip.Netdev("ib0.beef")->operstate, "up");
}

TEST(PasteImport, HeldOutSetEightReadRight) {
  const std::string p = "fixtures/pastes/";
  // `rdma dev` wrapped before node_guid, and between node_guid and its value.
  ASSERT_OK_AND_ASSIGN(DeviceView dev, ReadPastes({p + "rdma_dev/lore-kheib-rdma-dev-proto-siw-wrapped.txt"}));
  ASSERT_EQ(dev.devices.size(), 4u);
  EXPECT_EQ(dev.devices[0].node_guid, "248a:0703:004b:f094");
  EXPECT_EQ(dev.devices[3].name, "siw0");
  EXPECT_EQ(dev.devices[3].node_guid, "0200:00ff:fe00:0000");
  // `rdma statistic show` wrapped between a counter's name and its value.
  ASSERT_OK_AND_ASSIGN(DeviceView stat, ReadPastes({p + "rdma_link/lore-leon-rdma-statistic-wrapped.txt"}));
  ASSERT_NE(stat.Device("mlx5_3"), nullptr);
  ASSERT_NE(stat.Device("mlx5_3")->Port(1), nullptr);
  EXPECT_EQ(stat.Device("mlx5_3")->Port(1)->hw_counters.at("rx_atomic_requests"), 0u);
  EXPECT_EQ(stat.Device("mlx5_3")->Port(1)->hw_counters.size(), 23u);
}

TEST(PasteImport, HeldOutSetNineReadRight) {
  const std::string p = "fixtures/pastes/";
  // A blog's code block saved on one line of HTML, its lines split by <br>.
  ASSERT_OK_AND_ASSIGN(DeviceView hexo, ReadPastes({p + "ibstatus/ibstatus-hexo-html-figure.txt"}));
  ASSERT_EQ(hexo.devices.size(), 2u);
  EXPECT_EQ(hexo.devices[1].name, "mlx5_1");
  EXPECT_EQ(hexo.devices[1].ports[0].state, "ACTIVE");
  EXPECT_EQ(hexo.devices[1].ports[0].link_layer, "Ethernet");
  EXPECT_THAT(hexo.warnings, Contains(HasSubstr("lines joined by <br> were read as lines")));
  // `cat` of a device's own sysfs files: fw_ver (read twice: the first is
  // kept, said), and rxe's parent glued to the next prompt.
  ASSERT_OK_AND_ASSIGN(DeviceView qedr, ReadPastes({p + "sysfs_cat/sysfs-qedr0-fw-ver.txt"}));
  ASSERT_EQ(qedr.devices.size(), 1u);
  EXPECT_EQ(qedr.devices[0].fw_ver, "8. 37. 7. 0");
  EXPECT_THAT(qedr.warnings, Contains(HasSubstr("qedr0 fw_ver again (`8.37.7.0`)")));
  ASSERT_OK_AND_ASSIGN(DeviceView parent, ReadPastes({p + "mixed/ip-a-sysfs-rxe-parent-no-newline.txt"}));
  ASSERT_NE(parent.Device("rxe0"), nullptr);
  EXPECT_THAT(parent.provenance, Contains("sysfs: rxe0 parent enp0s29u1u7u3c2"));
  // `ip link show` with its index cut off.
  ASSERT_OK_AND_ASSIGN(DeviceView ip, ReadPastes({p + "ip_addr/ip-link-ipoib-vf-guids.txt"}));
  ASSERT_NE(ip.Netdev("ib4"), nullptr);
  EXPECT_EQ(ip.Netdev("ib4")->mtu, 4092);
  EXPECT_EQ(ip.Netdev("ib4")->operstate, "down");
  EXPECT_FALSE(ip.Netdev("ib4")->ifindex.has_value());
}

// ulimit and ip addr list no devices: merged alone, the view says so;
// with a paste that lists them, it does not.
TEST(PasteImport, DevicesListedOnlyWhenAPasteListsThem) {
  const std::string dir = ::testing::TempDir();
  const std::string u = dir + "/only-ulimit.txt", d = dir + "/no-devices.txt";
  std::ofstream(u) << "$ ulimit -l\n65536\n";
  std::ofstream(d) << "No IB devices found\n";
  ASSERT_OK_AND_ASSIGN(DeviceView alone, ReadPastes({u}));
  EXPECT_EQ(alone.host.devices_listed, false);
  ASSERT_OK_AND_ASSIGN(DeviceView both, ReadPastes({u, d}));
  EXPECT_FALSE(both.host.devices_listed.has_value());
  EXPECT_TRUE(both.devices.empty());
}

// A tool's failure pasted alone: ibstatus's glob finding no device is the
// device list (empty); ibstat's ibpanic lists none (device-present SKIPs).
// Lines from clustervision/trinity #219 and Azure/azhpc-images #213.
TEST(PasteImport, AToolsFailureAloneSaysWhatItMeans) {
  ASSERT_OK_AND_ASSIGN(DeviceView none,
                       ParsePaste("[root@node045 ~]# ibstatus\nFatal error:  device '*': sys files not found "
                                  "(/sys/class/infiniband/*/ports)\n",
                                  "ibstatus.txt"));
  EXPECT_TRUE(none.devices.empty());
  EXPECT_FALSE(none.host.devices_listed.has_value());
  EXPECT_THAT(none.warnings, ElementsAre(HasSubstr("ibstatus.txt:2: ibstatus found no RDMA device")));
  ASSERT_OK_AND_ASSIGN(DeviceView panic,
                       ParsePaste("ibpanic: [769778] main: stat of IB device 'mlx5_an0' failed: No such file or "
                                  "directory\n",
                                  "ibstat.txt"));
  EXPECT_TRUE(panic.devices.empty());
  EXPECT_EQ(panic.host.devices_listed, false);
  EXPECT_THAT(panic.warnings, ElementsAre(HasSubstr("ibstat.txt:1: ibstat stopped with an error before listing")));
}

// A third held-out set (2026-12-05): ibv_devices, in a fence beside lspci,
// with whitespace collapsed and two hosts' lists in one post, and empty
// after libibverbs refused the device.
TEST(PasteImport, IbvDevicesListsDevicesAndTheirNodeGuids) {
  const std::string dir = "fixtures/pastes/ibv_devices/";
  ASSERT_OK_AND_ASSIGN(DeviceView bond, ReadPastes({dir + "ibv_devices-mlx5-bond-lspci-rhel7.txt"}));
  ASSERT_EQ(bond.devices.size(), 1u);
  EXPECT_EQ(bond.devices[0].name, "mlx5_bond_0");
  EXPECT_EQ(bond.devices[0].driver, "mlx5");
  EXPECT_EQ(bond.devices[0].node_guid, "e8eb:d303:0038:1588");
  EXPECT_THAT(bond.warnings, IsEmpty());

  ASSERT_OK_AND_ASSIGN(DeviceView two, ReadPastes({dir + "ibv_devices-vf-zero-guid-collapsed-whitespace.txt"}));
  ASSERT_EQ(two.devices.size(), 4u);  // the server's; the client's mlx5_0 and mlx5_1 are left out
  EXPECT_EQ(two.devices[0].name, "mlx5_2");
  EXPECT_EQ(two.devices[0].node_guid, "0000:0000:0000:0000");
  EXPECT_EQ(two.devices[1].node_guid, "506b:4b03:0028:5028");
  EXPECT_THAT(two.warnings,
              ElementsAre(HasSubstr(":16: device mlx5_0 again, in another run of the command: line 8 is read"),
                          HasSubstr(":17: device mlx5_1 again")));

  ASSERT_OK_AND_ASSIGN(DeviceView none, ReadPastes({dir + "ibv_devices-empty-rxe-abi-warning.txt"}));
  EXPECT_TRUE(none.devices.empty());
  EXPECT_FALSE(none.host.devices_listed.has_value());  // listed, and none there
  EXPECT_THAT(none.warnings, Contains(HasSubstr(":4: libibverbs left out device rxe0: `libibverbs: Warning: Driver "
                                                "rxe does not support the kernel ABI of 1")));
}

// `ls -lR /sys/class/infiniband`, before and after irdma was unloaded: the
// devices, and their PCI addresses from the links' targets.
TEST(PasteImport, SysfsClassLinksGiveDevicesAndPciAddresses) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ReadPastes({"fixtures/pastes/sysfs_class/ls-lR-sys-class-infiniband-irdma0-3-plus-mlx5_0.txt"}));
  ASSERT_EQ(v.devices.size(), 5u);
  EXPECT_EQ(v.devices[0].name, "irdma0");
  EXPECT_EQ(v.devices[0].driver, "irdma");
  EXPECT_EQ(v.devices[0].pci_address, "0000:1a:00.0");
  EXPECT_EQ(v.devices[1].pci_address, "0000:1a:00.3");
  EXPECT_EQ(v.devices[4].name, "mlx5_0");
  EXPECT_EQ(v.devices[4].pci_address, "0000:3b:00.0");
  EXPECT_THAT(v.warnings, ElementsAre(HasSubstr("device mlx5_0 again")));
  // A soft device's link has no PCI address.
  ASSERT_OK_AND_ASSIGN(DeviceView rxe,
                       ParsePaste("lrwxrwxrwx 1 root root 0 Dec  5 08:00 rxe0 -> ../../devices/virtual/infiniband/rxe0\n",
                                  "ls.txt"));
  ASSERT_EQ(rxe.devices.size(), 1u);
  EXPECT_EQ(rxe.devices[0].driver, "rxe");
  EXPECT_FALSE(rxe.devices[0].pci_address.has_value());
}

// Values devinfo.c prints that no fact holds: an iWARP port's physical
// state 0 is none (cxgb3), a provider's own link layer (Xeon Phi's scif0)
// is left out with a warning; the rest of each paste is read.
TEST(PasteImport, IwarpPhysStateZeroAndAProvidersOwnLinkLayer) {
  DeviceView cxgb = Import("ompi-users-cxgb3-iwarp-devinfo-v-two-nodes.txt");
  ASSERT_FALSE(cxgb.devices.empty());
  EXPECT_EQ(cxgb.devices[0].name, "cxgb3_0");
  ASSERT_FALSE(cxgb.devices[0].ports.empty());
  EXPECT_FALSE(cxgb.devices[0].ports[0].phys_state.has_value());
  EXPECT_THAT(cxgb.warnings, Not(Contains(HasSubstr("phys_state"))));
  DeviceView scif = Import("ompi-users-xeonphi-mlx4-scif0-devinfo.txt");
  ASSERT_EQ(scif.devices.size(), 2u);
  EXPECT_EQ(scif.devices[1].name, "scif0");
  EXPECT_EQ(scif.devices[1].transport, "SCIF");
  EXPECT_FALSE(scif.devices[1].ports[0].link_layer.has_value());
  EXPECT_EQ(scif.devices[1].ports[0].state, "ACTIVE");
  EXPECT_THAT(scif.warnings,
              Contains(HasSubstr(":56: link_layer: `SCIF` is neither Ethernet, InfiniBand nor Unknown: left out")));
}

// ibv_devinfo and `rdma link` in one paste (an irdma guide, an openEuler
// hns page), read by --from: both are read, as two pastes would be.
TEST(PasteImport, IbvDevinfoWithRdmaLinkBesideIt) {
  ASSERT_OK_AND_ASSIGN(DeviceView irdma, ReadPastes({kDir + "irdma-e810-devinfo-rdmalink-md.txt"}));
  ASSERT_EQ(irdma.devices.size(), 2u);
  ASSERT_EQ(irdma.devices[0].ports.size(), 1u);
  EXPECT_EQ(irdma.devices[0].ports[0].state, "ACTIVE");
  EXPECT_EQ(irdma.devices[0].ports[0].phys_state, "LinkUp");  // rdma link's alone
  EXPECT_EQ(irdma.devices[0].ports[0].active_mtu, 1024);     // ibv_devinfo's alone
  ASSERT_OK_AND_ASSIGN(DeviceView hns, ReadPastes({kDir + "openeuler-hns-rdma-link-roceo1-3-ibv_devinfo-d.txt"}));
  std::vector<std::string> names;
  for (const DeviceInfo& d : hns.devices) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("roceo1", "roceo2", "roceo3"));
  ASSERT_EQ(hns.devices[2].ports.size(), 1u);
  EXPECT_EQ(hns.devices[2].ports[0].state, "ACTIVE");
}

// `--profile FILE` reads what is pasted beside ibv_devinfo as --from does
// (irdma0 is in `rdma link` alone), and the lines rdma link's reader took
// are not counted among those left out: only its command line is.
TEST(PasteImport, ProfileFileReadsWhatIsPastedBesideIbvDevinfo) {
  const std::string f = "fixtures/pastes/mixed/magnate3-irdma-rdma-link-then-devinfo-v.txt";
  ASSERT_OK_AND_ASSIGN(DeviceView v, ReadProfileFile(f));
  EXPECT_EQ(v.source, "ibv_devinfo:" + f);
  std::vector<std::string> names;
  for (const DeviceInfo& d : v.devices) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("irdma1", "irdma0"));
  ASSERT_EQ(v.devices[1].ports.size(), 1u);
  EXPECT_EQ(v.devices[1].ports[0].state, "DOWN");
  EXPECT_EQ(v.fact_sources["irdma0 port 1 state"], f + ":2");
  EXPECT_THAT(v.warnings, Contains(f + ":1: 1 line before the first hca_id block is not ibv_devinfo output and was "
                                       "left out"));
  ASSERT_OK_AND_ASSIGN(DeviceView from, ReadPastes({f}));
  EXPECT_EQ(from.devices.size(), v.devices.size());
  EXPECT_EQ(from.warnings, v.warnings);
}

TEST(PasteImport, SeveralPastesMergeAndDisagreementsAreSaid) {
  const std::string dir = ::testing::TempDir();
  const std::string a = dir + "/devinfo.txt", b = dir + "/ibstat.txt", c = dir + "/ulimit.txt";
  std::ofstream(a) << "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n"
                      "\tfw_ver:\t\t\t16.35.2000\n\t\tport:\t1\n"
                      "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tlink_layer:\t\tEthernet\n";
  std::ofstream(b) << "CA 'mlx5_0'\n\tFirmware version: 16.35.2000\n\tPort 1:\n"
                      "\t\tState: Down\n\t\tPhysical state: Disabled\n\t\tRate: 25\n";
  std::ofstream(c) << "$ ulimit -a\nmax locked memory       (kbytes, -l) 8192\n";
  ASSERT_OK_AND_ASSIGN(DeviceView v, ReadPastes({a, b, c}));
  ASSERT_EQ(v.devices.size(), 1u);
  const PortInfo* p = v.devices[0].Port(1);
  EXPECT_EQ(p->state, "ACTIVE");        // the first paste's
  EXPECT_EQ(p->phys_state, "Disabled");  // only ibstat had it
  EXPECT_EQ(p->rate, "25 Gb/sec");
  EXPECT_EQ(v.host.memlock_soft, 8192u * 1024);
  EXPECT_EQ(v.fact_sources["host memlock_soft"], c + ":2");
  EXPECT_EQ(v.fact_sources["mlx5_0 port 1 phys_state"], b + ":5");
  EXPECT_THAT(v.warnings, Contains(HasSubstr(b + ":4: mlx5_0 port 1 state DOWN disagrees with ")));
  EXPECT_THAT(v.warnings, Contains(HasSubstr(": ACTIVE (the earlier one is kept)")));
  // The kept value is named by the paste it came from, not the later one.
  EXPECT_THAT(v.warnings, Contains(HasSubstr("disagrees with ibv_devinfo:" + a + ": ACTIVE")));
  // A file of none of the formats: which were tried, and its first line.
  const std::string junk = dir + "/notes.txt";
  std::ofstream(junk) << "\nthe node is slow since Tuesday\n";
  EXPECT_THAT(ReadPastes({a, junk}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(junk + ":2: not a format rdmacheck reads (tried: rdmacheck "
                                       "profile, ibv_devinfo"),
                             HasSubstr("ulimit -a); its first line fits none: `the node is slow"))));
}

}  // namespace
}  // namespace rdmacheck
