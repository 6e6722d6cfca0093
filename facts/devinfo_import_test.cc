#include "facts/devinfo_import.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string ReadFixture(const std::string& name) {
  std::ifstream in(absl::StrCat("fixtures/profiles/", name));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DevinfoImportTest, ConnectX6Verbose) {
  std::string text = ReadFixture("mlx5_cx6.devinfo.txt");
  ASSERT_FALSE(text.empty());
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo(text, "cx6.txt"));
  EXPECT_EQ(v.source, "ibv_devinfo:cx6.txt");
  EXPECT_FALSE(v.provenance.empty());  // the leading # lines
  EXPECT_FALSE(v.host.hostname.has_value());
  EXPECT_FALSE(v.host.providers_known);
  EXPECT_TRUE(v.netdevs.empty());
  ASSERT_EQ(v.devices.size(), 1u);
  const DeviceInfo& d = v.devices[0];
  EXPECT_EQ(d.name, "mlx5_0");
  EXPECT_EQ(d.driver, "mlx5");
  EXPECT_EQ(d.transport, "InfiniBand");
  EXPECT_EQ(d.fw_ver, "20.31.1014");
  EXPECT_EQ(d.node_guid, "b8ce:f603:00a1:b2c4");
  EXPECT_EQ(d.vendor_id, 0x02c9u);
  EXPECT_EQ(d.vendor_part_id, 4123u);
  EXPECT_EQ(d.hw_ver, "0x0");
  EXPECT_EQ(d.board_id, "MT_0000000222");
  EXPECT_FALSE(d.netdev.has_value());
  EXPECT_EQ(d.Attr("max_qp"), 262144u);
  EXPECT_EQ(d.Attr("max_qp_wr"), 32768u);
  // The device's max_sge, not the tag-matching block's "max_sge: 1".
  EXPECT_EQ(d.Attr("max_sge"), 30u);
  EXPECT_EQ(d.Attr("max_sge_rd"), 30u);
  EXPECT_EQ(d.Attr("max_cqe"), 4194303u);
  EXPECT_EQ(d.Attr("max_mr_size"), UINT64_MAX);
  EXPECT_EQ(d.Attr("page_size_cap"), 0xfffffffffffff000u);
  EXPECT_EQ(d.Attr("device_cap_flags"), 0xed721c36u);
  EXPECT_EQ(d.Attr("atomic_cap"), 1u);
  EXPECT_EQ(d.Attr("max_srq_wr"), 32767u);
  EXPECT_EQ(d.Attr("max_wq_type_rq"), 8388608u);
  EXPECT_EQ(d.Attr("phys_port_cnt"), 1u);
  EXPECT_FALSE(d.Attr("max_tso").has_value());  // nested caps are skipped
  ASSERT_EQ(d.ports.size(), 1u);
  const PortInfo& p = d.ports[0];
  EXPECT_EQ(p.port_num, 1);
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.phys_state, "LinkUp");
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.active_mtu, 4096);
  EXPECT_EQ(p.max_mtu, 4096);
  EXPECT_EQ(p.lid, 0);
  EXPECT_EQ(p.max_msg_sz, 0x40000000);
  EXPECT_EQ(p.gid_tbl_len, 255);
  EXPECT_EQ(p.pkey_tbl_len, 1);
  EXPECT_EQ(p.active_width, 2);
  EXPECT_EQ(p.active_speed, 32);
  EXPECT_TRUE(p.gids_known);
  ASSERT_EQ(p.gids.size(), 4u);
  // The long form is normalised to the short one.
  EXPECT_EQ(p.gids[0].gid, "fe80::bace:f6ff:fea1:b2c4");
  EXPECT_EQ(p.gids[0].type, GidType::kRoceV1);
  EXPECT_EQ(p.gids[2].gid, "::ffff:10.10.1.17");
  EXPECT_EQ(p.gids[3].index, 3);
  EXPECT_EQ(p.gids[3].gid, "::ffff:10.10.1.17");
  EXPECT_EQ(p.gids[3].type, GidType::kRoceV2);
  EXPECT_EQ(p.gids[3].netdev, "");
}

TEST(DevinfoImportTest, RxePairVerbose) {
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo(ReadFixture("rxe.devinfo.txt"), "rxe"));
  ASSERT_EQ(v.devices.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const DeviceInfo& d = v.devices[i];
    SCOPED_TRACE(d.name);
    EXPECT_EQ(d.name, absl::StrCat("rxe", i));
    EXPECT_EQ(d.driver, "rxe");
    EXPECT_FALSE(d.fw_ver.has_value());  // rxe prints none
    EXPECT_EQ(d.vendor_id, 0xffffffu);
    EXPECT_EQ(d.Attr("max_qp"), 1048560u);
    EXPECT_EQ(d.Attr("max_qp_wr"), 1048576u);
    EXPECT_EQ(d.Attr("max_sge"), 32u);
    EXPECT_EQ(d.Attr("max_cqe"), 32767u);
    EXPECT_EQ(d.Attr("max_srq_sge"), 27u);
    const PortInfo* p = d.Port(1);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->state, "ACTIVE");
    EXPECT_EQ(p->active_mtu, 1024);
    EXPECT_EQ(p->max_mtu, 4096);
    EXPECT_EQ(p->max_msg_sz, 0x800000);
    ASSERT_EQ(p->gids.size(), 2u);
    EXPECT_EQ(p->gids[1].gid, absl::StrCat("::ffff:198.18.0.", i + 1));
    EXPECT_EQ(p->gids[1].type, GidType::kRoceV2);
  }
}

TEST(DevinfoImportTest, PlainOutputWithoutVerbose) {
  // `ibv_devinfo` without -v: no limits, no GIDs (so gids_known stays false).
  const char* text =
      "hca_id:\tmlx4_0\n"
      "\ttransport:\t\t\tInfiniBand (0)\n"
      "\tfw_ver:\t\t\t\t2.42.5000\n"
      "\tnode_guid:\t\t\tf452:1403:0012:a5b0\n"
      "\tsys_image_guid:\t\t\tf452:1403:0012:a5b3\n"
      "\tvendor_id:\t\t\t0x02c9\n"
      "\tvendor_part_id:\t\t\t4099\n"
      "\thw_ver:\t\t\t\t0x1\n"
      "\tboard_id:\t\t\tMT_1090120019\n"
      "\tphys_port_cnt:\t\t\t2\n"
      "\t\tport:\t1\n"
      "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
      "\t\t\tmax_mtu:\t\t4096 (5)\n"
      "\t\t\tactive_mtu:\t\t2048 (4)\n"
      "\t\t\tsm_lid:\t\t\t1\n"
      "\t\t\tport_lid:\t\t7\n"
      "\t\t\tport_lmc:\t\t0x00\n"
      "\t\t\tlink_layer:\t\tInfiniBand\n"
      "\n"
      "\t\tport:\t2\n"
      "\t\t\tstate:\t\t\tPORT_DOWN (1)\n"
      "\t\t\tmax_mtu:\t\t4096 (5)\n"
      "\t\t\tactive_mtu:\t\t4096 (5)\n"
      "\t\t\tsm_lid:\t\t\t0\n"
      "\t\t\tport_lid:\t\t0\n"
      "\t\t\tport_lmc:\t\t0x00\n"
      "\t\t\tlink_layer:\t\tInfiniBand\n"
      "\n";
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo(text, "plain"));
  ASSERT_EQ(v.devices.size(), 1u);
  const DeviceInfo& d = v.devices[0];
  EXPECT_EQ(d.driver, "mlx4");
  EXPECT_EQ(d.Attr("phys_port_cnt"), 2u);
  EXPECT_FALSE(d.Attr("max_qp").has_value());
  ASSERT_EQ(d.ports.size(), 2u);
  EXPECT_EQ(d.Port(1)->active_mtu, 2048);
  EXPECT_EQ(d.Port(1)->lid, 7);
  EXPECT_EQ(d.Port(1)->sm_lid, 1);
  EXPECT_FALSE(d.Port(1)->gids_known);
  EXPECT_EQ(d.Port(2)->state, "DOWN");
}

TEST(DevinfoImportTest, OldStyleGidsOnInfiniBand) {
  // rdma-core before v28 printed GIDs in full hex with no type.
  const char* text =
      "hca_id:\tqib0\n"
      "\ttransport:\t\t\tInfiniBand (0)\n"
      "\t\tport:\t1\n"
      "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
      "\t\t\tlink_layer:\t\tInfiniBand\n"
      "\t\t\tmax_msg_sz:\t\t0x80000000\n"
      "\t\t\tgid_tbl_len:\t\t5\n"
      "\t\t\tactive_width:\t\t4X (2)\n"
      "\t\t\tactive_speed:\t\t10.0 Gbps (4)\n"
      "\t\t\tphys_state:\t\tDISABLED (3)\n"
      "\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0011:7500:0070:1234\n"
      "\t\t\tGID[  1]:\t\tfe80:0000:0000:0000:0011:7500:0070:1235, IB/RoCE v1\n";
  // max_msg_sz is a uint32 (qedr reports 0x80000000); more is said, not wrapped.
  std::string big(text);
  big.replace(big.find("0x80000000"), 10, "0x100000000");
  EXPECT_THAT(ParseIbvDevinfo(big, "old"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("old:6: max_msg_sz")));
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo(text, "old"));
  const PortInfo& p = v.devices[0].ports[0];
  EXPECT_EQ(p.max_msg_sz, 0x80000000u);
  EXPECT_EQ(p.phys_state, "Disabled");
  ASSERT_EQ(p.gids.size(), 2u);
  EXPECT_EQ(p.gids[0].gid, "fe80::11:7500:70:1234");
  EXPECT_EQ(p.gids[0].type, GidType::kIb);
  EXPECT_EQ(p.gids[1].type, GidType::kIb);  // IB/RoCE v1 on an IB port
}

TEST(DevinfoImportTest, LooksLikeIbvDevinfo) {
  EXPECT_TRUE(LooksLikeIbvDevinfo("hca_id:\trxe0\n"));
  EXPECT_TRUE(LooksLikeIbvDevinfo("# pasted from node7\n\nhca_id:\tmlx5_0\n"));
  EXPECT_FALSE(LooksLikeIbvDevinfo("rdmacheck-profile 1\n"));
  EXPECT_FALSE(LooksLikeIbvDevinfo(""));
}

struct BadCase {
  const char* name;
  const char* text;
  const char* where;
  const char* field;
  const char* what;
};

class DevinfoMalformedTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(DevinfoMalformedTest, IsInvalidArgumentWithFileLine) {
  const BadCase& c = GetParam();
  EXPECT_THAT(ParseIbvDevinfo(c.text, "in.txt"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(c.where), HasSubstr(c.field), HasSubstr(c.what))))
      << c.name;
}

#define DEV "hca_id:\trxe0\n\ttransport:\t\t\tInfiniBand (0)\n"
#define PORT "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tlink_layer:\t\tEthernet\n"

// TAIL: a flag-list line after the bad one, so it is not the paste's last
// line (a bad last line is a cut; see CutPastesKeepWhatCameBefore).
#define TAIL "\t\t\t\t\tSUPPORT_SEND\n"

const BadCase kBad[] = {
    {"empty", "", "in.txt:1: ", "hca_id", "no `hca_id:` block"},
    {"not_devinfo", "rdmacheck-profile 1\n", "in.txt:1: ", "hca_id", "no `hca_id:` block"},
    {"no_device_name", "hca_id:\n" TAIL, "in.txt:1: ", "hca_id", "no value"},
    {"bad_number", DEV "\tmax_qp:\t\t\t\tlots\n" TAIL, "in.txt:3: ", "max_qp",
     "expected a number"},
    {"attr_no_value", DEV "\tmax_qp_wr:\n" TAIL, "in.txt:3: ", "max_qp_wr", "no value"},
    {"state_without_code", DEV "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE\n" TAIL,
     "in.txt:4: ", "state", "expected `TEXT (NUMBER)`"},
    {"port_zero", DEV "\t\tport:\t0\n" TAIL, "in.txt:3: ", "port", "port number 0"},
    {"bad_gid", DEV PORT "\t\t\tGID[  0]:\t\tnot-a-gid, RoCE v2\n" TAIL, "in.txt:6: ",
     "GID[  0]", "is not a GID"},
    {"bad_gid_type", DEV PORT "\t\t\tGID[  0]:\t\tfe80::1, RoCE v3\n" TAIL, "in.txt:6: ",
     "GID[  0]", "unknown GID type"},
    {"duplicate_attr", DEV "\tmax_qp:\t\t\t\t1\n\tmax_qp:\t\t\t\t2\n" TAIL, "in.txt:4: ",
     "max_qp", "appears twice"},
};

// The output pasted twice, each after its command line (a user who ran
// ibv_devinfo again): the first run's block is read, the repeat left out
// and said; so is the same device twice without a command line between (two
// hosts' output in one post).
TEST(DevinfoImportTest, OutputOfASecondRunIsLeftOutWithAWarning) {
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo("root@pod:/# ibv_devinfo\n" DEV PORT "\n"
                                                     "root@pod:/# ibv_devinfo\n" DEV
                                                     "\tfw_ver:\t\t\t9.9\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n",
                                                     "twice.txt"));
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].ports.at(0).state, "ACTIVE");
  EXPECT_THAT(v.warnings, Contains(HasSubstr("twice.txt:9: device rxe0 again, in another run of the command: the "
                                             "block at line 2 is read, this one left out")));
  ASSERT_OK_AND_ASSIGN(DeviceView two, ParseIbvDevinfo(DEV PORT "\n" DEV "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n",
                                                       "hosts.txt"));
  ASSERT_EQ(two.devices.size(), 1u);
  EXPECT_EQ(two.devices[0].ports.at(0).state, "ACTIVE");
  EXPECT_THAT(two.warnings, Contains(HasSubstr("hosts.txt:7: device rxe0 again (another host's output, or the same "
                                               "pasted twice?): the block at line 1 is read, this one left out")));
}

// Lines a web archive ran together, and values a mail client wrapped onto
// the next line (without the quote marks): each key read as ibv_devinfo
// printed it, errors still named by the input's line.
TEST(DevinfoImportTest, RunTogetherAndWrappedLinesReadAsPrinted) {
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo(">> hca_id:\nmlx4_0\n>> transport: InfiniBand (0) fw_ver: 2.7.000\n"
                                                     ">> node_guid:\n0025:90ff:ff07:0acc\n"
                                                     ">> board_id:\nSM_1061000001000\n>> phys_port_cnt: 1 port: 1\n"
                                                     ">> state: PORT_ACTIVE\n(4)\n>> max_mtu: 2048 (4) active_mtu: 2048 (4)\n",
                                                     "mail.txt"));
  ASSERT_EQ(v.devices.size(), 1u);
  const DeviceInfo& d = v.devices[0];
  EXPECT_EQ(d.name, "mlx4_0");
  EXPECT_EQ(d.fw_ver, "2.7.000");
  EXPECT_EQ(d.node_guid, "0025:90ff:ff07:0acc");
  EXPECT_EQ(d.board_id, "SM_1061000001000");
  ASSERT_EQ(d.ports.size(), 1u);
  EXPECT_EQ(d.ports[0].state, "ACTIVE");
  EXPECT_EQ(d.ports[0].active_mtu, 2048);
  // A bad value after a split still names its own input line.
  EXPECT_THAT(ParseIbvDevinfo("hca_id: rxe0 transport: InfiniBand (0)\nport: 1 state: PORT_ACTIVE\n" TAIL, "x.txt"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x.txt:2: state: expected `TEXT (NUMBER)`")));
}

struct CutCase {
  const char* name;
  const char* text;
  const char* warning;  // the one warning
};

// Cut anywhere: what came before is kept, one warning names where it stops.
const CutCase kCut[] = {
    {"no_transport", "hca_id:\trxe0\n\tfw_ver:\t\t\t1\n",
     "in.txt:2: device rxe0 (line 1) has no transport line"},
    {"port_cut_before_state", DEV "\t\tport:\t1\n",
     "in.txt:3: port 1 of rxe0 (line 3) has no state line"},
    {"ports_missing", DEV "\tphys_port_cnt:\t\t\t1\n",
     "device rxe0 (line 1) has phys_port_cnt 1 but no port block"},
    {"verbose_cut", DEV "\tmax_mr_size:\t\t\t0xffffffffffffffff\n\tmax_qp:\t\t\t\t1\n",
     "in.txt:4: device rxe0 (line 1) ends inside its -v attribute list"},
    {"verbose_port_cut", DEV PORT "\t\t\tmax_msg_sz:\t\t0x800000\n",
     "port 1 of rxe0 (line 3) ends before its active_speed line"},
    {"cut_mid_value", DEV PORT "\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:5054:00ff:fe",
     "in.txt:6: the input ends inside this line (`GID[  0]:\t\tfe80:0000:0000:0000:5054:00ff:fe`)"},
};

class DevinfoCutTest : public ::testing::TestWithParam<CutCase> {};

TEST_P(DevinfoCutTest, CutPastesKeepWhatCameBefore) {
  const CutCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo(c.text, "in.txt"));
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].name, "rxe0");
  ASSERT_EQ(v.warnings.size(), 1u) << c.name;
  EXPECT_THAT(v.warnings[0], HasSubstr(c.warning)) << c.name;
  EXPECT_THAT(v.warnings[0], HasSubstr("facts after it are missing")) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Rows, DevinfoCutTest, ::testing::ValuesIn(kCut),
                         [](const ::testing::TestParamInfo<CutCase>& i) {
                           return std::string(i.param.name);
                         });

TEST(DevinfoImportTest, CutPortKeepsItsFactsAndLosesTheRest) {
  ASSERT_OK_AND_ASSIGN(
      DeviceView v,
      ParseIbvDevinfo(DEV "\tphys_port_cnt:\t\t\t2\n" PORT "\t\t\tactive_mtu:\t\t1024 (3)\n"
                          "\t\tport:\t2\n\t\t\tst",
                      "in.txt"));
  const DeviceInfo& d = v.devices[0];
  ASSERT_EQ(d.ports.size(), 2u);
  EXPECT_EQ(d.Port(1)->state, "ACTIVE");
  EXPECT_EQ(d.Port(1)->active_mtu, 1024);
  EXPECT_FALSE(d.Port(2)->state.has_value());  // checks SKIP: fact missing
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_THAT(v.warnings[0], HasSubstr("in.txt:9: port 2 of rxe0 (line 8) has no state line"));
}

TEST(DevinfoImportTest, FailedToOpenLinesAreCountedAndSkipped) {
  // As ibv_devinfo prints inside a pod given one device of several: stderr
  // lines first or interleaved, no device named.
  ASSERT_OK_AND_ASSIGN(
      DeviceView v, ParseIbvDevinfo("$ ibv_devinfo\nFailed to open device\nFailed to open device\n"
                                    DEV PORT "Failed to open device\n",
                                    "pod.txt"));
  EXPECT_EQ(v.host.devices_not_opened, 3u);
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_TRUE(v.warnings.empty());
  EXPECT_TRUE(LooksLikeIbvDevinfo("Failed to open device\nhca_id:\tmlx5_1\n"));
  // Nothing opened at all is still a view: no device, and why.
  ASSERT_OK_AND_ASSIGN(DeviceView none, ParseIbvDevinfo("Failed to open device\n", "pod.txt"));
  EXPECT_TRUE(none.devices.empty());
  EXPECT_EQ(none.host.devices_not_opened, 1u);
  ASSERT_OK_AND_ASSIGN(DeviceView empty, ParseIbvDevinfo("No IB devices found\n", "vm.txt"));
  EXPECT_TRUE(empty.devices.empty());
  EXPECT_FALSE(empty.host.devices_not_opened.has_value());
  EXPECT_TRUE(LooksLikeIbvDevinfo("[root@n1 ~]# ibv_devinfo -v\nNo IB devices found\n"));
}

TEST(DevinfoImportTest, IndentationLostStillImports) {
  ASSERT_OK_AND_ASSIGN(DeviceView v,
                       ParseIbvDevinfo("hca_id: mlx5_0\ntransport: InfiniBand (0)\n"
                                       "fw_ver: 16.35.2000\nphys_port_cnt: 1\nport: 1\n"
                                       "state: PORT_ACTIVE (4)\nmax_mtu: 4096 (5)\n"
                                       "active_mtu: 4096 (5)\nlink_layer: Ethernet\n",
                                       "flat.txt"));
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].fw_ver, "16.35.2000");
  EXPECT_EQ(v.devices[0].Port(1)->link_layer, "Ethernet");
  EXPECT_TRUE(v.warnings.empty());
}

TEST(DevinfoImportTest, ListingPastedAfterABlockEndsIt) {
  // `ibv_devinfo; ibv_devinfo -l` in one paste: the listing closes rxe0's
  // block, names one more device, and the lines after the names are nobody's
  // (they once went to the listed device's missing port).
  ASSERT_OK_AND_ASSIGN(
      DeviceView v,
      ParseIbvDevinfo(DEV "\t\tport:\t1\n2 HCAs found:\n\trxe0\n\trxe1\n"
                          "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tlink_layer:\t\tEthernet\n",
                      "two.txt"));
  ASSERT_EQ(v.devices.size(), 2u);
  EXPECT_EQ(v.devices[0].name, "rxe0");
  ASSERT_EQ(v.devices[0].ports.size(), 1u);
  EXPECT_FALSE(v.devices[0].Port(1)->state.has_value());
  EXPECT_EQ(v.devices[1].name, "rxe1");
  EXPECT_TRUE(v.devices[1].ports.empty());
  EXPECT_THAT(v.warnings, ::testing::ElementsAre(
                              HasSubstr("two.txt:7: 2 lines outside the hca_id blocks are not "
                                        "ibv_devinfo output"),
                              HasSubstr("two.txt:4: port 1 of rxe0 (line 3) has no state line")));
}

TEST(DevinfoImportTest, LoneHcaIdCutAfterItsColon) {
  // The paste's only line, cut after "hca_id:": no device, said so.
  EXPECT_THAT(ParseIbvDevinfo("hca_id:", "cut.txt"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no `hca_id:` block")));
  // After a whole block, the cut line ends the block it follows, once.
  ASSERT_OK_AND_ASSIGN(DeviceView v, ParseIbvDevinfo(DEV PORT "hca_id:", "cut.txt"));
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_THAT(v.warnings, ::testing::ElementsAre(HasSubstr(
                              "cut.txt:6: the input ends inside this line (`hca_id:`)")));
}

#undef DEV
#undef PORT
#undef TAIL

INSTANTIATE_TEST_SUITE_P(Rows, DevinfoMalformedTest, ::testing::ValuesIn(kBad),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

// A saved mail archive's markup and entities, named and numeric.
TEST(PastedLineTest, HtmlEntitiesDecoded) {
  EXPECT_EQ(PastedLine("<span class=\"quotelev1\">&gt; &#160; &#160;state: &#160; 4: ACTIVE</span><br>"),
            "state:   4: ACTIVE");
  EXPECT_EQ(PastedLine("G&#252;ltigkeitsbereich:Verbindung &#x27;x&#x27;"), "G\xc3\xbcltigkeitsbereich:Verbindung 'x'");
  // Not an entity: kept as typed.
  EXPECT_EQ(PastedLine("a &#; b &#xzz; c &#12345678901; d &#10;"), "a &#; b &#xzz; c &#12345678901; d &#10;");
  // Decoded once: an escaped entity is its text.
  EXPECT_EQ(PastedLine("<p>&amp;#160; &amp;gt;"), "&#160; &gt;");
}

// A mail stored quoted-printable, and markdown's inline code.
TEST(PastedLineTest, QuotedPrintableIndentationAndBackticks) {
  EXPECT_EQ(PastedLine("=A0=A0=A0 Firmware version: 20.33.1048=20"), "Firmware version: 20.33.1048");
  EXPECT_EQ(PastedLine("ens4: flags=3D4163<UP,BROADCAST,RUNNING>  mtu 1500"), "ens4: flags=4163<UP,BROADCAST,RUNNING>  mtu 1500");
  // Not quoted-printable: a value's own "=41" stays.
  EXPECT_EQ(PastedLine("key=41 value"), "key=41 value");
  EXPECT_EQ(PastedLine("`1: rocep65s0: node_type ca fw 2.42.5000`"), "1: rocep65s0: node_type ca fw 2.42.5000");
  EXPECT_EQ(PastedLine("```"), "```");
}

}  // namespace
}  // namespace rdmacheck
