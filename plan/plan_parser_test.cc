#include "plan/plan_parser.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A QP class that is valid on its own, for rows whose mistake is elsewhere.
constexpr char kQp[] = "[qp q]\nmax_send_wr = 1\nmax_recv_wr = 1\n";

struct BadRow {
  const char* what;
  std::string text;
  std::string where;    // "t.plan:LINE: FIELD" the first message line starts with
  std::string detail;   // substring of the message
};

std::vector<BadRow> BadRows() {
  const std::string q = kQp;
  return {
      {"not a number", "[qp q]\nmax_send_wr = lots\nmax_recv_wr = 1\n",
       "t.plan:2: max_send_wr", "'lots' is not a whole number"},
      {"negative number", "[qp q]\nmax_send_wr = -1\nmax_recv_wr = 1\n",
       "t.plan:2: max_send_wr", "-1 is out of range (1..2147483647)"},
      {"wr over 2^31-1", "[qp q]\nmax_send_wr = 2147483648\nmax_recv_wr = 1\n",
       "t.plan:2: max_send_wr", "2147483648 is out of range (1..2147483647)"},
      {"wr overflows 64 bits", "[qp q]\nmax_send_wr = 1\nmax_recv_wr = 99999999999999999999\n",
       "t.plan:3: max_recv_wr", "is out of range (1..2147483647)"},
      {"count zero", q + "count = 0\n", "t.plan:4: count", "0 is out of range (1..16777216)"},
      {"count over 2^24", q + "count = 16777217\n", "t.plan:4: count",
       "16777217 is out of range (1..16777216)"},
      {"cqe zero", "[cq c]\ncqe = 0\n" + q, "t.plan:2: cqe", "0 is out of range (1..2147483647)"},
      {"path mtu 1500", "[plan]\npath_mtu = 1500\n" + q, "t.plan:2: path_mtu",
       "1500 is not an IB MTU (256, 512, 1024, 2048, 4096)"},
      {"path mtu as enum", "[plan]\npath_mtu = 5\n" + q, "t.plan:2: path_mtu",
       "5 is not an IB MTU"},
      {"gid index 256", "[plan]\ngid_index = 256\n" + q, "t.plan:2: gid_index",
       "256 is out of range (0..255)"},
      {"port 0", "[plan]\nport = 0\n" + q, "t.plan:2: port", "0 is out of range (1..255)"},
      {"gid type", "[plan]\ngid_type = RoCEv3\n" + q, "t.plan:2: gid_type",
       "'RoCEv3' is not a GID type (IB, RoCEv1, RoCEv2)"},
      {"gid type vs link", "[plan]\ngid_type = IB\nlink_layer = Ethernet\n" + q,
       "t.plan:2: gid_type", "IB does not go with link_layer = Ethernet at line 3"},
      {"ip version", "[plan]\nip_version = 5\n" + q, "t.plan:2: ip_version",
       "'5' is not an IP version (4, 6)"},
      {"link layer", "[plan]\nlink_layer = eth\n" + q, "t.plan:2: link_layer",
       "'eth' is not a link layer (Ethernet, InfiniBand)"},
      {"device name", "[plan]\ndevice = rxe 0\n" + q, "t.plan:2: device",
       "'rxe 0' is not a device name"},
      {"qp type", q + "type = RD\n", "t.plan:4: type", "'RD' is not a QP type (RC, UC, UD)"},
      {"size word", "[plan]\nmemory_budget = lots\n" + q, "t.plan:2: memory_budget",
       "'lots' is not a size"},
      {"decimal size unit", "[plan]\nmemory_budget = 1GB\n" + q, "t.plan:2: memory_budget",
       "uses a decimal unit (write 1 GiB"},
      {"zero budget", "[plan]\nmemory_budget = 0\n" + q, "t.plan:2: memory_budget",
       "too small"},
      {"unknown section near qp", "[qpp q]\nmax_send_wr = 1\n", "t.plan:1: [qpp q]",
       "unknown section kind 'qpp' (did you mean [qp NAME]?)"},
      {"unknown section", "[flow f]\n" + q, "t.plan:1: [flow f]",
       "(allowed: [plan], [cq NAME], [srq NAME], [qp NAME], [part ID], [counter NAME], [perf])"},
      {"perf with a name", "[perf fast]\n" + q, "t.plan:1: [perf fast]", "[perf] takes no name (write [perf])"},
      {"perf twice", "[perf]\n[perf]\n" + q, "t.plan:2: [perf]", "declared twice (first at line 1)"},
      {"perf bandwidth a word", "[perf]\nmin_write_bw_gbps = fast\n" + q, "t.plan:2: min_write_bw_gbps",
       "'fast' is not a positive number (Gb/s, e.g. 90 or 0.3)"},
      {"perf latency zero", "[perf]\nmax_write_lat_us = 0\n" + q, "t.plan:2: max_write_lat_us",
       "'0' is not a positive number (microseconds, e.g. 5)"},
      {"perf message size", "[perf]\nmessage_size = 2 GiB\n" + q, "t.plan:2: message_size", "too large"},
      {"perf key in [plan]", "[plan]\nmax_write_lat_us = 3\n" + q, "t.plan:2: max_write_lat_us",
       "max_write_lat_us belongs in [perf]"},
      {"unknown section near part", "[parts 4123]\n" + q, "t.plan:1: [parts 4123]",
       "unknown section kind 'parts' (did you mean [part ID]?)"},
      {"unknown section near counter", "[counters symbol_error]\n" + q,
       "t.plan:1: [counters symbol_error]", "(did you mean [counter NAME]?)"},
      {"min rate word", "[plan]\nmin_rate = fast\n" + q, "t.plan:2: min_rate",
       "'fast' is not a rate in Gb/s (write e.g. 100 Gb/sec, 100 Gb/s, 100 Gbps, 100G or 56, "
       "or the sysfs form 200 Gb/sec (4X HDR))"},
      {"min rate in Mb/s", "[plan]\nmin_rate = 100 Mb/s\n" + q, "t.plan:2: min_rate",
       "'100 Mb/s' is not a rate in Gb/s"},
      {"min rate bad width", "[plan]\nmin_rate = 200 Gb/sec (3X HDR)\n" + q, "t.plan:2: min_rate",
       "has width '3X' (1X, 2X, 4X, 8X or 12X)"},
      {"min rate zero", "[plan]\nmin_rate = 0 Gb/s\n" + q, "t.plan:2: min_rate",
       "'0 Gb/s' is no minimum (write a rate above 0 Gb/s, or delete the line)"},
      {"link width", "[plan]\nlink_width = 3X\n" + q, "t.plan:2: link_width",
       "'3X' is not a link width (1X, 2X, 4X, 8X, 12X)"},
      {"link width without X", "[plan]\nlink_width = 4\n" + q, "t.plan:2: link_width",
       "'4' is not a link width"},
      {"part id a word", "[part cx6]\nmin_fw_ver = 20.31.1014\n" + q, "t.plan:1: [part cx6]",
       "'cx6' is not a vendor_part_id (decimal as ibv_devinfo prints it, e.g. [part 4123], or 0x hex)"},
      {"part id over 32 bits", "[part 4294967296]\n" + q, "t.plan:1: [part 4294967296]",
       "is not a vendor_part_id"},
      {"part without id", "[part]\nmin_fw_ver = 1\n" + q, "t.plan:1: [part]",
       "section needs a name (write [part ID])"},
      {"fw version word", "[part 4123]\nmin_fw_ver = 20.x\n" + q, "t.plan:2: min_fw_ver",
       "'20.x' is not a firmware version (1-4 dot-separated whole numbers, as fw_ver prints it, "
       "e.g. 20.31.1014)"},
      {"fw version of 5 parts", "[part 4123]\nmin_fw_ver = 1.2.3.4.5\n" + q, "t.plan:2: min_fw_ver",
       "'1.2.3.4.5' is not a firmware version"},
      {"duplicate part, hex and decimal", "[part 4123]\n[part 0x101b]\n" + q,
       "t.plan:2: [part 0x101b]", "declared twice (first at line 1)"},
      {"fw version in [plan]", "[plan]\nmin_fw_ver = 1.2\n" + q, "t.plan:2: min_fw_ver",
       "min_fw_ver belongs in [part ID]"},
      {"counter name with dash", "[counter port-errors]\nmax_per_s = 1\n" + q,
       "t.plan:1: [counter port-errors]",
       "'port-errors' is not a counter name (its file name under ports/N/counters or hw_counters: "
       "letters, digits, '_')"},
      {"counter without max_per_s", "[counter symbol_error]\n" + q, "t.plan:1: max_per_s",
       "missing in [counter symbol_error] (required: how fast the counter may climb, "
       "e.g. max_per_s = 0.5)"},
      {"negative max_per_s", "[counter symbol_error]\nmax_per_s = -1\n" + q, "t.plan:2: max_per_s",
       "'-1' is not a rate per second (a number >= 0, fractions allowed, e.g. 0.5)"},
      {"max_per_s exponent", "[counter symbol_error]\nmax_per_s = 1e3\n" + q, "t.plan:2: max_per_s",
       "'1e3' is not a rate per second"},
      {"max_per_s typo", "[counter symbol_error]\nmax_per_sec = 1\n" + q, "t.plan:2: max_per_sec",
       "unknown key in [counter symbol_error] (did you mean max_per_s?)"},
      {"duplicate counter", "[counter link_downed]\nmax_per_s = 0\n[counter link_downed]\n" + q,
       "t.plan:3: [counter link_downed]", "declared twice (first at line 1)"},
      {"section without name", "[qp]\nmax_send_wr = 1\n", "t.plan:1: [qp]",
       "section needs a name (write [qp NAME])"},
      {"plan with name", "[plan p]\n" + q, "t.plan:1: [plan p]", "[plan] takes no name"},
      {"header without ]", "[cq c\ncqe = 1\n" + q, "t.plan:1: [cq c", "no closing ']'"},
      {"bad section name", "[cq a/b]\ncqe = 1\n" + q, "t.plan:1: [cq a/b]",
       "'a/b' is not a name"},
      {"unknown key typo", "[qp q]\nmax_send_wr = 1\nmax_recv_wrr = 1\n",
       "t.plan:3: max_recv_wrr", "unknown key in [qp q] (did you mean max_recv_wr?)"},
      {"key of another section", q + "cqe = 5\n", "t.plan:4: cqe",
       "cqe belongs in [cq NAME]"},
      {"unknown key far from any", "[cq c]\ncqe = 1\ncolour = red\n" + q, "t.plan:3: colour",
       "allowed: cqe, count"},
      {"duplicate key", q + "max_send_wr = 2\n", "t.plan:4: max_send_wr",
       "set twice in [qp q] (first at line 2)"},
      {"duplicate section", q + q, "t.plan:4: [qp q]", "declared twice (first at line 1)"},
      {"duplicate plan", "[plan]\n[plan]\n" + q, "t.plan:2: [plan]",
       "declared twice (first at line 1)"},
      {"key outside a section", "name = x\n" + q, "t.plan:1: name",
       "key outside any section"},
      {"no equals sign", "[qp q]\nmax_send_wr 1\nmax_recv_wr = 1\n", "t.plan:2: max_send_wr",
       "'max_send_wr 1' has no '=' (write key = value)"},
      {"empty value", "[qp q]\nmax_send_wr =\nmax_recv_wr = 1\n", "t.plan:2: max_send_wr",
       "empty value"},
      {"value only a comment", "[qp q]\nmax_send_wr = # soon\nmax_recv_wr = 1\n",
       "t.plan:2: max_send_wr", "empty value"},
      {"unclosed quote", "[plan]\ndescription = \"abc\n" + q, "t.plan:2: description",
       "quote that is not closed"},
      {"no qp section", "[plan]\nname = x\n\n[cq c]\ncqe = 4\n", "t.plan:5: qp",
       "no [qp NAME] section"},
      {"empty file", "", "t.plan:1: qp", "no [qp NAME] section"},
      {"undeclared send cq", "[cq c0]\ncqe = 4\n" + q + "send_cq = cq1\n",
       "t.plan:6: send_cq", "'cq1' is not a declared [cq NAME] (did you mean c0?)"},
      {"undeclared cq, none declared", q + "cq = main\n", "t.plan:4: cq",
       "'main' is not a declared [cq NAME] (no [cq NAME] section is declared)"},
      {"undeclared srq", "[srq s0]\nmax_wr = 4\n[qp q]\nmax_send_wr = 1\nsrq = shared_receive\n",
       "t.plan:5: srq", "'shared_receive' is not a declared [srq NAME] (declared: s0)"},
      {"srq's cq undeclared", "[srq s]\nmax_wr = 4\ncq = nope\n" + q, "t.plan:3: cq",
       "'nope' is not a declared [cq NAME]"},
      {"cq missing cqe (truncated)", q + "cq = c\n\n[cq c]\ncount = 2\n", "t.plan:6: cqe",
       "missing in [cq c]"},
      {"cq header at end of file", q + "cq = c\n[cq c]", "t.plan:5: cqe", "missing in [cq c]"},
      {"srq missing max_wr", "[srq s]\nmax_sge = 1\n" + q, "t.plan:1: max_wr",
       "missing in [srq s]"},
      {"qp missing max_send_wr", "[qp q]\nmax_recv_wr = 1\n", "t.plan:1: max_send_wr",
       "missing in [qp q]"},
      {"qp missing max_recv_wr", "[qp q]\nmax_send_wr = 1\n", "t.plan:1: max_recv_wr",
       "required unless srq is set"},
      {"recv caps with srq", "[srq s]\nmax_wr = 4\n" + q + "srq = s\n", "t.plan:5: max_recv_wr",
       "not used with srq = s at line 6"},
      {"cq and send_cq", "[cq c]\ncqe = 4\n" + q + "cq = c\nsend_cq = c\n", "t.plan:7: send_cq",
       "conflicts with cq at line 6"},
  };
}

TEST(ParsePlanTest, RejectsMalformedPlansNamingFileLineAndField) {
  std::vector<BadRow> rows = BadRows();
  ASSERT_GE(rows.size(), 20u);
  for (const BadRow& r : rows) {
    SCOPED_TRACE(r.what);
    absl::StatusOr<Plan> p = ParsePlan(r.text, "t.plan");
    EXPECT_THAT(p, StatusIs(absl::StatusCode::kInvalidArgument,
                            AllOf(StartsWith(r.where + ": "), HasSubstr(r.detail))));
  }
}

// Each row above has exactly one mistake, so one message line: nothing cascades.
TEST(ParsePlanTest, OneMistakeGivesOneMessageLine) {
  for (const BadRow& r : BadRows()) {
    SCOPED_TRACE(r.what);
    absl::StatusOr<Plan> p = ParsePlan(r.text, "t.plan");
    ASSERT_FALSE(p.ok());
    std::vector<std::string> lines = absl::StrSplit(p.status().message(), '\n');
    EXPECT_EQ(lines.size(), 1u) << p.status().message();
  }
}

TEST(ParsePlanTest, CollectsEveryProblemInFileOrder) {
  // Errors found at the end (references) still appear in line order.
  std::string text =
      "[plan]\n"            // 1
      "gid_index = 300\n"   // 2
      "[qp q]\n"            // 3
      "max_send_wr = 1\n"   // 4
      "max_recv_wr = x\n"   // 5
      "cq = ghost\n"        // 6
      "typo_key = 1\n";     // 7
  absl::StatusOr<Plan> p = ParsePlan(text, "m.plan");
  ASSERT_FALSE(p.ok());
  std::vector<std::string> lines = absl::StrSplit(p.status().message(), '\n');
  EXPECT_THAT(lines, ElementsAre(StartsWith("m.plan:2: gid_index: 300 is out of range"),
                                 StartsWith("m.plan:5: max_recv_wr: 'x' is not"),
                                 StartsWith("m.plan:6: cq: 'ghost' is not a declared"),
                                 StartsWith("m.plan:7: typo_key: unknown key in [qp q]")));
}

TEST(ParsePlanTest, CapsTheNumberOfReportedProblems) {
  std::string text = "[qp q]\nmax_send_wr = 1\nmax_recv_wr = 1\n";
  for (int i = 0; i < 60; ++i) text += "count = 1\n";  // 59 duplicates
  absl::StatusOr<Plan> p = ParsePlan(text, "c.plan");
  ASSERT_FALSE(p.ok());
  std::vector<std::string> lines = absl::StrSplit(p.status().message(), '\n');
  ASSERT_EQ(lines.size(), 51u);
  EXPECT_EQ(lines.back(), "c.plan: 9 more problems not shown");
}

TEST(ParsePlanTest, PerfSection) {
  ASSERT_OK_AND_ASSIGN(Plan p, ParsePlan("[qp q]\nmax_send_wr = 1\nmax_recv_wr = 1\n"
                                         "[perf]\nmin_write_bw_gbps = 0.3\nmax_write_lat_us = 1000\n"
                                         "message_size = 64 KiB\n",
                                         "t.plan"));
  ASSERT_TRUE(p.perf.has_value());
  EXPECT_EQ(p.perf->line, 4);
  EXPECT_DOUBLE_EQ(*p.perf->min_write_bw_gbps, 0.3);
  EXPECT_EQ(p.perf->min_write_bw_line, 5);
  EXPECT_DOUBLE_EQ(*p.perf->max_write_lat_us, 1000);
  EXPECT_EQ(p.perf->max_write_lat_line, 6);
  EXPECT_EQ(*p.perf->message_size, 65536u);
  ASSERT_OK_AND_ASSIGN(Plan none, ParsePlan("[qp q]\nmax_send_wr = 1\nmax_recv_wr = 1\n", "t.plan"));
  EXPECT_FALSE(none.perf.has_value());
}

TEST(ParsePlanTest, DefaultsAndSyntaxVariants) {
  std::string text =
      "\xEF\xBB\xBF# leading BOM, CRLF line ends, comments of both kinds\r\n"
      "; comment\r\n"
      "[plan]   ; header comment\r\n"
      "description = \"has # and ; inside\"  # trailing\r\n"
      "gid_type = roce v2\r\n"
      "link_layer = ETHERNET\r\n"
      "mr_bytes = 3 GiB\r\n"
      "\r\n"
      "  [qp  only]\r\n"
      "  max_send_wr=7\r\n"
      "max_recv_wr = 9  ;why\r\n"
      "type = ud\r\n";
  ASSERT_OK_AND_ASSIGN(Plan p, ParsePlan(text, "dir/sub/variants.plan"));
  EXPECT_EQ(p.path, "dir/sub/variants.plan");
  EXPECT_EQ(p.name, "variants");  // no name key: the file's stem
  EXPECT_FALSE(p.is_default);
  EXPECT_EQ(p.description, "has # and ; inside");
  EXPECT_EQ(p.gid_type, GidType::kRoceV2);
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.mr_bytes, uint64_t{3} << 30);
  EXPECT_EQ(p.device, std::nullopt);
  EXPECT_EQ(p.port, std::nullopt);
  EXPECT_EQ(p.path_mtu, std::nullopt);
  EXPECT_EQ(p.gid_index, std::nullopt);
  EXPECT_EQ(p.memory_budget, std::nullopt);
  EXPECT_TRUE(p.cqs.empty());
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "only");
  EXPECT_EQ(q.line, 9);
  EXPECT_EQ(q.count, 1u);
  EXPECT_EQ(q.type, QpType::kUd);
  QpCaps want;
  want.max_send_wr = 7;
  want.max_recv_wr = 9;
  want.max_send_sge = 1;  // the format's default
  want.max_recv_sge = 1;
  want.max_inline_data = 0;
  EXPECT_EQ(q.caps, want);
  EXPECT_EQ(q.send_cq, "");
  EXPECT_EQ(q.recv_cq, "");
  EXPECT_EQ(q.srq, "");
  EXPECT_EQ(q.mr_bytes, 0u);
}

TEST(ParsePlanTest, ForwardReferencesSrqAndSeparateCqs) {
  std::string text =
      "[qp ud]\n"                 // 1: refers to CQs and an SRQ declared below
      "type = UD\n"
      "count = 3\n"
      "max_send_wr = 64\n"
      "max_send_sge = 0\n"
      "max_inline_data = 188\n"
      "send_cq = scq\n"
      "recv_cq = rcq\n"
      "srq = pool\n"
      "mr_bytes = 4K\n"
      "[srq pool]\n"              // 11
      "max_wr = 1024\n"
      "max_sge = 2\n"
      "count = 2\n"
      "cq = rcq\n"
      "[cq scq]\n"                // 16
      "cqe = 192\n"
      "[cq rcq]\n"                // 18
      "cqe = 1024\n"
      "count = 2\n";
  ASSERT_OK_AND_ASSIGN(Plan p, ParsePlan(text, "f.plan"));
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.type, QpType::kUd);
  EXPECT_EQ(q.count, 3u);
  EXPECT_EQ(q.caps.max_send_wr, 64u);
  EXPECT_EQ(q.caps.max_send_sge, 0u);
  EXPECT_EQ(q.caps.max_inline_data, 188u);
  EXPECT_EQ(q.caps.max_recv_wr, 0u);  // receives come from the SRQ
  EXPECT_EQ(q.send_cq, "scq");
  EXPECT_EQ(q.recv_cq, "rcq");
  EXPECT_EQ(q.srq, "pool");
  EXPECT_EQ(q.mr_bytes, 4096u);
  ASSERT_NE(p.Srq("pool"), nullptr);
  EXPECT_EQ(p.Srq("pool")->line, 11);
  EXPECT_EQ(p.Srq("pool")->max_wr, 1024u);
  EXPECT_EQ(p.Srq("pool")->max_sge, 2u);
  EXPECT_EQ(p.Srq("pool")->count, 2u);
  EXPECT_EQ(p.Srq("pool")->cq, "rcq");
  ASSERT_NE(p.Cq("scq"), nullptr);
  EXPECT_EQ(p.Cq("scq")->line, 16);
  EXPECT_EQ(p.Cq("scq")->cqe, 192u);
  EXPECT_EQ(p.Cq("scq")->count, 1u);
  ASSERT_NE(p.Cq("rcq"), nullptr);
  EXPECT_EQ(p.Cq("rcq")->cqe, 1024u);
  EXPECT_EQ(p.Cq("rcq")->count, 2u);
}

TEST(ParsePlanTest, MinRateInEveryAcceptedForm) {
  const struct {
    const char* text;
    double gbps;
  } rows[] = {
      {"100 Gb/sec", 100},         {"100 Gb/s", 100},    {"100Gb/s", 100},
      {"100 Gbps", 100},           {"100G", 100},        {"56", 56},
      {"12.5 Gb/sec", 12.5},       {"200 Gb/sec (4X HDR)", 200},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.text);
    std::string text = std::string("[plan]\n# rate\nmin_rate = ") + r.text + "  # why\n" + kQp;
    ASSERT_OK_AND_ASSIGN(Plan p, ParsePlan(text, "r.plan"));
    EXPECT_EQ(p.min_rate, r.text);
    EXPECT_DOUBLE_EQ(p.min_rate_gbps.value_or(-1), r.gbps);
    EXPECT_EQ(p.min_rate_line, 3);
  }
}

TEST(ParsePlanTest, LinkWidthPartsAndCounters) {
  std::string text =
      "[plan]\n"                    // 1
      "link_width = 2x\n"           // 2: split cables, stored upper case
      "[part 4123]\n"               // 3
      "min_fw_ver = 20.31.1014\n"   // 4
      "[part 0x1017]\n"             // 5: hex is 4119
      "[counter symbol_error]\n"    // 6
      "max_per_s = 0.5\n"           // 7
      "[counter link_downed]\n"     // 8
      "max_per_s = 0\n" +           // 9
      std::string(kQp);
  ASSERT_OK_AND_ASSIGN(Plan p, ParsePlan(text, "w.plan"));
  EXPECT_EQ(p.link_width, "2X");
  EXPECT_EQ(p.link_width_line, 2);
  EXPECT_EQ(p.min_rate, std::nullopt);
  EXPECT_EQ(p.min_rate_gbps, std::nullopt);
  ASSERT_EQ(p.parts.size(), 2u);
  ASSERT_NE(p.Part(4123), nullptr);
  EXPECT_EQ(p.Part(4123)->line, 3);
  EXPECT_EQ(p.Part(4123)->min_fw_ver, "20.31.1014");
  ASSERT_NE(p.Part(4119), nullptr);
  EXPECT_EQ(p.Part(4119)->line, 5);
  EXPECT_EQ(p.Part(4119)->min_fw_ver, std::nullopt);
  EXPECT_EQ(p.Part(4129), nullptr);
  ASSERT_EQ(p.counter_limits.size(), 2u);
  ASSERT_NE(p.CounterLimitFor("symbol_error"), nullptr);
  EXPECT_EQ(p.CounterLimitFor("symbol_error")->line, 6);
  EXPECT_DOUBLE_EQ(p.CounterLimitFor("symbol_error")->max_per_s, 0.5);
  ASSERT_NE(p.CounterLimitFor("link_downed"), nullptr);
  EXPECT_DOUBLE_EQ(p.CounterLimitFor("link_downed")->max_per_s, 0);
  EXPECT_EQ(p.CounterLimitFor("port_rcv_errors"), nullptr);
}

TEST(ParsePlanSizeTest, UnitsAndErrors) {
  struct Row {
    const char* text;
    uint64_t bytes;
  } good[] = {
      {"0", 0},
      {"512", 512},
      {"512B", 512},
      {"4 KiB", 4096},
      {"4k", 4096},
      {"240 MiB", 240ull << 20},
      {"16M", 16ull << 20},
      {"1GiB", 1ull << 30},
      {"1 g", 1ull << 30},
      {"2 TiB", 2ull << 40},
      {"3T", 3ull << 40},
      {"  8 mib ", 8ull << 20},
  };
  for (const Row& r : good) {
    SCOPED_TRACE(r.text);
    ASSERT_OK_AND_ASSIGN(uint64_t got, ParsePlanSize(r.text));
    EXPECT_EQ(got, r.bytes);
  }
  struct BadSize {
    const char* text;
    const char* detail;
  } bad[] = {
      {"", "is not a size"},
      {"MiB", "'MiB' is not a size"},
      {"1.5 GiB", "'1.5 GiB' is not a size"},
      {"-1", "is not a size"},
      {"10 MB", "'10 MB' uses a decimal unit (write 10 MiB"},
      {"2kb", "uses a decimal unit (write 2 KiB"},
      {"5 PiB", "is not a size"},
      {"20000000 TiB", "is too large"},
      {"99999999999999999999", "is too large"},
  };
  for (const BadSize& b : bad) {
    SCOPED_TRACE(b.text);
    EXPECT_THAT(ParsePlanSize(b.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(b.detail)));
  }
}

// ---- Fixture files (data = //fixtures:plans) ----

constexpr char kDir[] = "fixtures/plans/";

Plan MustRead(const std::string& file) {
  absl::StatusOr<Plan> p = ReadPlanFile(kDir + file);
  EXPECT_THAT(p, rdmacheck::testing::IsOk());
  return p.ok() ? *std::move(p) : Plan();
}

QpCaps Caps(uint32_t swr, uint32_t ssge, uint32_t rwr, uint32_t rsge) {
  QpCaps c;
  c.max_send_wr = swr;
  c.max_send_sge = ssge;
  c.max_recv_wr = rwr;
  c.max_recv_sge = rsge;
  return c;
}

TEST(PlanFixturesTest, Ipv6GuestPlan) {
  Plan p = MustRead("rxe_guest_ipv6.plan");
  EXPECT_EQ(p.ip_version, 6);
  EXPECT_EQ(p.gid_type, GidType::kRoceV2);
  EXPECT_EQ(p.gid_index, std::nullopt);
  EXPECT_EQ(MustRead("rxe_guest.plan").ip_version, std::nullopt);
}

TEST(PlanFixturesTest, ConfigA) {
  Plan p = MustRead("config_a.plan");
  EXPECT_EQ(p.path, "fixtures/plans/config_a.plan");
  EXPECT_EQ(p.name, "config_a");
  EXPECT_THAT(p.description, HasSubstr("1000 RC QPs"));
  EXPECT_EQ(p.device, std::nullopt);
  EXPECT_EQ(p.port, std::nullopt);
  EXPECT_EQ(p.path_mtu, 4096);
  EXPECT_EQ(p.gid_type, GidType::kRoceV2);
  EXPECT_EQ(p.gid_index, 1);
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.min_rate, std::nullopt);
  EXPECT_EQ(p.memory_budget, uint64_t{512} << 20);
  EXPECT_EQ(p.mr_bytes, std::nullopt);
  ASSERT_EQ(p.cqs.size(), 1u);
  EXPECT_EQ(p.cqs[0].name, "gw_cq");
  EXPECT_EQ(p.cqs[0].cqe, 512u);
  EXPECT_EQ(p.cqs[0].count, 1000u);
  EXPECT_TRUE(p.srqs.empty());
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "gw");
  EXPECT_EQ(q.count, 1000u);
  EXPECT_EQ(q.type, QpType::kRc);
  EXPECT_EQ(q.caps, Caps(256, 4, 256, 1));
  EXPECT_EQ(q.send_cq, "gw_cq");
  EXPECT_EQ(q.recv_cq, "gw_cq");
  EXPECT_EQ(q.srq, "");
  EXPECT_EQ(q.mr_bytes, 0u);
  EXPECT_EQ(p.TotalQps(), 1000u);
}

TEST(PlanFixturesTest, ConfigB) {
  Plan p = MustRead("config_b.plan");
  EXPECT_EQ(p.name, "config_b");
  EXPECT_EQ(p.path_mtu, std::nullopt);
  EXPECT_EQ(p.gid_type, std::nullopt);
  EXPECT_EQ(p.memory_budget, uint64_t{64} << 20);
  ASSERT_EQ(p.cqs.size(), 1u);
  EXPECT_EQ(p.cqs[0].name, "bulk_cq");
  EXPECT_EQ(p.cqs[0].cqe, 8192u);
  EXPECT_EQ(p.cqs[0].count, 4u);
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "bulk");
  EXPECT_EQ(q.count, 4u);
  EXPECT_EQ(q.type, QpType::kRc);
  EXPECT_EQ(q.caps, Caps(4096, 8, 4096, 1));
  EXPECT_EQ(q.send_cq, "bulk_cq");
  EXPECT_EQ(q.recv_cq, "bulk_cq");
  EXPECT_EQ(q.mr_bytes, uint64_t{16} << 20);
}

TEST(PlanFixturesTest, ConfigC) {
  Plan p = MustRead("config_c.plan");
  EXPECT_EQ(p.name, "config_c");
  EXPECT_EQ(p.memory_budget, uint64_t{16} << 20);
  ASSERT_EQ(p.cqs.size(), 1u);
  EXPECT_EQ(p.cqs[0].name, "shared_cq");
  EXPECT_EQ(p.cqs[0].cqe, 16384u);
  EXPECT_EQ(p.cqs[0].count, 1u);
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "lowlat");
  EXPECT_EQ(q.count, 64u);
  EXPECT_EQ(q.caps, Caps(128, 2, 128, 1));
  EXPECT_EQ(q.send_cq, "shared_cq");
  EXPECT_EQ(q.recv_cq, "shared_cq");
  // The shared CQ covers every WR of every QP (docs/plan-format.md, the CQ sizing rule).
  EXPECT_EQ(uint64_t{q.count} * (q.caps.max_send_wr + q.caps.max_recv_wr), p.cqs[0].cqe);
}

TEST(PlanFixturesTest, IncidentEinval) {
  Plan p = MustRead("incident_einval.plan");
  EXPECT_EQ(p.name, "incident_einval");
  ASSERT_EQ(p.cqs.size(), 1u);
  EXPECT_EQ(p.cqs[0].name, "client_cq");
  EXPECT_EQ(p.cqs[0].cqe, 65792u);
  EXPECT_EQ(p.cqs[0].count, 1u);
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "client");
  EXPECT_EQ(q.count, 1u);
  EXPECT_EQ(q.caps, Caps(65536, 16, 256, 1));
  EXPECT_EQ(q.send_cq, "client_cq");
  EXPECT_EQ(q.recv_cq, "client_cq");
}

TEST(PlanFixturesTest, IncidentCq3000) {
  Plan p = MustRead("incident_cq3000.plan");
  EXPECT_EQ(p.name, "incident_cq3000");
  ASSERT_EQ(p.cqs.size(), 1u);
  EXPECT_EQ(p.cqs[0].name, "small_cq");
  EXPECT_EQ(p.cqs[0].cqe, 3000u);
  EXPECT_EQ(p.cqs[0].count, 8u);
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "worker");
  EXPECT_EQ(q.count, 8u);
  EXPECT_EQ(q.caps, Caps(2048, 4, 2048, 1));
  EXPECT_EQ(q.send_cq, "small_cq");
  EXPECT_EQ(q.recv_cq, "small_cq");
  // The point of the fixture: one QP's queues outnumber its CQ.
  EXPECT_LT(p.cqs[0].cqe, q.caps.max_send_wr + q.caps.max_recv_wr);
}

TEST(PlanFixturesTest, IncidentMemory) {
  Plan p = MustRead("incident_memory.plan");
  EXPECT_EQ(p.name, "incident_memory");
  EXPECT_EQ(p.memory_budget, uint64_t{1} << 30);
  ASSERT_EQ(p.cqs.size(), 1u);
  EXPECT_EQ(p.cqs[0].name, "conn_cq");
  EXPECT_EQ(p.cqs[0].cqe, 8192u);
  EXPECT_EQ(p.cqs[0].count, 800u);
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "conn");
  EXPECT_EQ(q.count, 800u);
  EXPECT_EQ(q.caps, Caps(4096, 16, 4096, 1));
  EXPECT_EQ(q.send_cq, "conn_cq");
  EXPECT_EQ(q.recv_cq, "conn_cq");
}

TEST(PlanFixturesTest, IncidentMemoryFixed) {
  Plan p = MustRead("incident_memory_fixed.plan");
  EXPECT_EQ(p.name, "incident_memory_fixed");
  EXPECT_EQ(p.memory_budget, uint64_t{1} << 30);
  ASSERT_EQ(p.cqs.size(), 2u);
  EXPECT_EQ(p.cqs[0].name, "core_cq");
  EXPECT_EQ(p.cqs[0].cqe, 8192u);
  EXPECT_EQ(p.cqs[0].count, 32u);
  EXPECT_EQ(p.cqs[1].name, "conn_cq");
  EXPECT_EQ(p.cqs[1].cqe, 512u);
  EXPECT_EQ(p.cqs[1].count, 768u);
  ASSERT_EQ(p.qp_classes.size(), 2u);
  EXPECT_EQ(p.qp_classes[0].name, "core");
  EXPECT_EQ(p.qp_classes[0].count, 32u);
  EXPECT_EQ(p.qp_classes[0].type, QpType::kRc);
  EXPECT_EQ(p.qp_classes[0].caps, Caps(4096, 4, 4096, 1));
  EXPECT_EQ(p.qp_classes[0].send_cq, "core_cq");
  EXPECT_EQ(p.qp_classes[1].name, "conn");
  EXPECT_EQ(p.qp_classes[1].count, 768u);
  EXPECT_EQ(p.qp_classes[1].caps, Caps(256, 4, 256, 1));
  EXPECT_EQ(p.qp_classes[1].recv_cq, "conn_cq");
  EXPECT_EQ(p.TotalQps(), 800u);  // the same 800 connections as incident_memory
}

TEST(PlanFixturesTest, RxeGuest) {
  Plan p = MustRead("rxe_guest.plan");
  EXPECT_EQ(p.name, "rxe_guest");
  EXPECT_EQ(p.device, "rxe0");
  EXPECT_EQ(p.port, 1);
  EXPECT_EQ(p.path_mtu, 4096);
  EXPECT_EQ(p.gid_type, GidType::kRoceV2);
  EXPECT_EQ(p.gid_index, 1);
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.memory_budget, std::nullopt);
  ASSERT_EQ(p.cqs.size(), 1u);
  EXPECT_EQ(p.cqs[0].name, "probe_cq");
  EXPECT_EQ(p.cqs[0].cqe, 512u);
  EXPECT_EQ(p.cqs[0].count, 2u);
  ASSERT_EQ(p.qp_classes.size(), 1u);
  const QpClass& q = p.qp_classes[0];
  EXPECT_EQ(q.name, "probe");
  EXPECT_EQ(q.count, 2u);
  EXPECT_EQ(q.type, QpType::kRc);
  EXPECT_EQ(q.caps, Caps(256, 4, 256, 1));
  EXPECT_EQ(q.send_cq, "probe_cq");
  EXPECT_EQ(q.recv_cq, "probe_cq");
}

TEST(PlanFixturesTest, BadFilesNameFileLineAndField) {
  struct Row {
    const char* file;
    const char* first_line;
  } rows[] = {
      {"bad_typo.plan",
       "fixtures/plans/bad_typo.plan:10: max_send_wrr: unknown key in [qp core] "
       "(did you mean max_send_wr?)"},
      {"bad_truncated.plan",
       "fixtures/plans/bad_truncated.plan:12: cqe: missing in [cq cq0] (required: "
       "the CQ depth, e.g. cqe = 512)"},
      {"bad_mtu.plan",
       "fixtures/plans/bad_mtu.plan:7: path_mtu: 1500 is not an IB MTU "
       "(256, 512, 1024, 2048, 4096)"},
      {"bad_undeclared_cq.plan",
       "fixtures/plans/bad_undeclared_cq.plan:12: send_cq: 'cq9' is not a declared "
       "[cq NAME] (did you mean cq0?)"},
      {"bad_no_qp.plan",
       "fixtures/plans/bad_no_qp.plan:6: qp: the plan declares no [qp NAME] section"},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.file);
    absl::StatusOr<Plan> p = ReadPlanFile(std::string(kDir) + r.file);
    EXPECT_THAT(p, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(r.first_line)));
  }
}

TEST(PlanFixturesTest, BadManyReportsEachProblemOnItsOwnLine) {
  absl::StatusOr<Plan> p = ReadPlanFile(std::string(kDir) + "bad_many.plan");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<std::string> lines = absl::StrSplit(p.status().message(), '\n');
  const std::string f = "fixtures/plans/bad_many.plan:";
  EXPECT_THAT(lines,
              ElementsAre(StartsWith(f + "5: gid_index: 300 is out of range (0..255)"),
                          StartsWith(f + "8: cqe: 0 is out of range (1..2147483647)"),
                          StartsWith(f + "10: [cq cq0]: declared twice (first at line 7)"),
                          StartsWith(f + "14: max_send_wr: 'lots' is not a whole number"),
                          StartsWith(f + "15: max_recv_wr: not used with srq = s0 at line 17"),
                          StartsWith(f + "16: max_recv_wr: set twice in [qp core] (first at line 15)"),
                          StartsWith(f + "17: srq: 's0' is not a declared [srq NAME]")));
}

TEST(ReadPlanFileTest, MissingFileIsNotFoundNamingThePath) {
  EXPECT_THAT(ReadPlanFile("fixtures/plans/no_such.plan"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("ReadPlanFile(fixtures/plans/no_such.plan)")));
}

TEST(ReadPlanFileTest, DirectoryOrDeviceIsNotAPlan) {
  EXPECT_THAT(ReadPlanFile("fixtures/plans"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ReadPlanFile(fixtures/plans): is a directory, not a plan")));
  EXPECT_THAT(ReadPlanFile("/dev/zero"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ReadPlanFile(/dev/zero): not a regular file (a plan is read from a file)")));
}

TEST(DefaultPlanTest, IsTheDocumentedPlan) {
  Plan p = DefaultPlan();
  EXPECT_TRUE(p.is_default);
  EXPECT_EQ(p.path, "<default>");
  ASSERT_EQ(p.qp_classes.size(), 1u);
  EXPECT_EQ(p.qp_classes[0].caps, Caps(128, 1, 128, 1));
  EXPECT_EQ(p.qp_classes[0].send_cq, "default_cq");
  ASSERT_NE(p.Cq("default_cq"), nullptr);
  EXPECT_EQ(p.Cq("default_cq")->cqe, 256u);
  EXPECT_EQ(p.path_mtu, std::nullopt);
  EXPECT_EQ(p.memory_budget, std::nullopt);
}

// docs/plan-format.md shows DefaultPlan() as plan text; keep the two equal.
TEST(DefaultPlanTest, MatchesItsDocumentedText) {
  constexpr char kDocumented[] =
      "[cq default_cq]\ncqe = 256\n\n"
      "[qp default]\ncount = 1\ntype = RC\nmax_send_wr = 128\nmax_recv_wr = 128\n"
      "max_send_sge = 1\nmax_recv_sge = 1\ncq = default_cq\n";
  ASSERT_OK_AND_ASSIGN(Plan parsed, ParsePlan(kDocumented, "default.plan"));
  Plan def = DefaultPlan();
  ASSERT_EQ(parsed.cqs.size(), def.cqs.size());
  EXPECT_EQ(parsed.cqs[0].name, def.cqs[0].name);
  EXPECT_EQ(parsed.cqs[0].cqe, def.cqs[0].cqe);
  EXPECT_EQ(parsed.cqs[0].count, def.cqs[0].count);
  ASSERT_EQ(parsed.qp_classes.size(), def.qp_classes.size());
  const QpClass& a = parsed.qp_classes[0];
  const QpClass& b = def.qp_classes[0];
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.caps, b.caps);
  EXPECT_EQ(a.send_cq, b.send_cq);
  EXPECT_EQ(a.recv_cq, b.recv_cq);
  EXPECT_EQ(a.srq, b.srq);
  EXPECT_EQ(a.mr_bytes, b.mr_bytes);
  EXPECT_EQ(parsed.name, def.name);  // the file stem "default"
  EXPECT_TRUE(def.srqs.empty());
  EXPECT_EQ(def.device, std::nullopt);
  EXPECT_EQ(def.gid_type, std::nullopt);
  EXPECT_EQ(def.mr_bytes, std::nullopt);
}

}  // namespace
}  // namespace rdmacheck
