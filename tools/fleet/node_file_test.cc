#include "tools/fleet/node_file.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

constexpr char kFleet[] = "tools/fleet/testdata/fleet/";

std::string Tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = Tmp(name);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Every fact fleet compares, as read from a bundle's profile.
TEST(ReadNodeFile, BundleGivesVerdictsRemediationAndTheProfilesFacts) {
  ASSERT_OK_AND_ASSIGN(NodeSummary n, ReadNodeFile(std::string(kFleet) + "rack1/gpu-node03.json", {}));
  EXPECT_EQ(n.name, "gpu-node03");
  EXPECT_EQ(n.kind, NodeSummary::Kind::kBundle);
  EXPECT_EQ(n.verdicts.size(), 19u);
  EXPECT_EQ(n.verdicts.at("mtu-chain"), Verdict::kFail);
  EXPECT_EQ(n.verdicts.at("pcie"), Verdict::kPass);
  // Only what FAILed keeps its remediation.
  EXPECT_THAT(n.remediation,
              ElementsAre(Pair("mtu-chain", ElementsAre("ip link set dev ens1f0np0 mtu 9000   # and every switch "
                                                        "port and peer on the path",
                                                        "ibv_devinfo -d mlx5_0 -i 1 | grep active_mtu   # expect 4096",
                                                        "or set path_mtu = 1024 in gpu_fleet.plan"))));
  const std::map<std::string, std::string> want = {
      {"IPv4 RoCE v2 GID index", "3"},
      {"RLIMIT_MEMLOCK", "unlimited"},
      {"active_mtu", "1024"},
      {"firmware of mlx5 part 4123", "20.31.1014"},
      {"ibverbs providers", "efa mlx4 mlx5 rxe"},
      {"kernel", "5.15.0-105-generic"},
      {"link rate of mlx5 part 4123", "100 Gb/s (4X EDR)"},
      {"max_cq of mlx5 part 4123", "16777216"},
      {"max_cqe of mlx5 part 4123", "4194303"},
      {"max_mr of mlx5 part 4123", "16777216"},
      {"max_mr_size of mlx5 part 4123", "18446744073709551615"},
      {"max_pd of mlx5 part 4123", "8388608"},
      {"max_qp of mlx5 part 4123", "262144"},
      {"max_qp_init_rd_atom of mlx5 part 4123", "16"},
      {"max_qp_rd_atom of mlx5 part 4123", "16"},
      {"max_qp_wr of mlx5 part 4123", "32768"},
      {"max_sge of mlx5 part 4123", "30"},
      {"max_sge_rd of mlx5 part 4123", "30"},
      {"max_srq of mlx5 part 4123", "8388608"},
      {"max_srq_sge of mlx5 part 4123", "31"},
      {"max_srq_wr of mlx5 part 4123", "32767"},
      {"net.ipv4.conf.all.rp_filter", "2"},
      {"net.ipv4.conf.default.rp_filter", "2"},
      {"netdev MTU", "1500"},
  };
  EXPECT_EQ(n.facts, want);
}

TEST(ReadNodeFile, PlainReportHasVerdictsKernelAndFirmwareByDriver) {
  ASSERT_OK_AND_ASSIGN(NodeSummary n, ReadNodeFile(std::string(kFleet) + "rack1/gpu-node02.json", {}));
  EXPECT_EQ(n.name, "gpu-node02");
  EXPECT_EQ(n.kind, NodeSummary::Kind::kReport);
  EXPECT_EQ(n.verdicts.size(), 19u);
  EXPECT_TRUE(n.remediation.empty());
  EXPECT_THAT(n.facts, ElementsAre(Pair("firmware of mlx5 (part not in a plain report)", "20.31.1014"),
                                   Pair("kernel", "5.15.0-105-generic")));
  EXPECT_TRUE(n.figures.empty());
}

TEST(ReadNodeFile, ProfileHasFactsAndNoVerdicts) {
  ASSERT_OK_AND_ASSIGN(NodeSummary n, ReadNodeFile(std::string(kFleet) + "rack2/gpu-node04.profile", {}));
  EXPECT_EQ(n.name, "gpu-node04");
  EXPECT_EQ(n.kind, NodeSummary::Kind::kProfile);
  EXPECT_TRUE(n.verdicts.empty());
  EXPECT_EQ(n.facts.at("firmware of mlx5 part 4123"), "20.28.2006");
}

// The counters link-health judges, per second over the window; the node's
// lowest active_mtu is drawn, not judged.
TEST(ReadNodeFile, CounterRatesOverTheWindow) {
  ASSERT_OK_AND_ASSIGN(NodeSummary n, ReadNodeFile(std::string(kFleet) + "rack2/gpu-node06.json", {}));
  std::map<std::string, double> rates;
  for (const NodeFigure& f : n.figures) {
    if (f.judged) {
      EXPECT_EQ(f.hardware, "mlx5 part 4123") << f.name;
      EXPECT_EQ(f.better, Better::kLower) << f.name;
      if (f.value > 0) rates[f.name] = f.value;
    } else {
      EXPECT_EQ(f.name, "active_mtu");
      EXPECT_EQ(f.value, 4096);
    }
  }
  // symbol_error +118 in 2004 ms, and so on; data counters are not figures.
  ASSERT_EQ(rates.size(), 4u);
  EXPECT_NEAR(rates.at("symbol_error /s"), 118 * 1000.0 / 2004, 1e-9);
  EXPECT_NEAR(rates.at("port_rcv_errors /s"), 41 * 1000.0 / 2004, 1e-9);
  EXPECT_NEAR(rates.at("link_error_recovery /s"), 2 * 1000.0 / 2004, 1e-9);
  EXPECT_NEAR(rates.at("np_cnp_sent /s"), 36 * 1000.0 / 2004, 1e-9);
}

TEST(ReadNodeFile, GidIndexGivenComparesItsType) {
  FactOptions o;
  o.gid_index = 2;
  ASSERT_OK_AND_ASSIGN(NodeSummary n, ReadNodeFile(std::string(kFleet) + "rack2/gpu-node04.profile", o));
  EXPECT_EQ(n.facts.at("GID type at index 2"), "RoCEv1");
  EXPECT_EQ(n.facts.count("IPv4 RoCE v2 GID index"), 0u);
  o.gid_index = 9;
  ASSERT_OK_AND_ASSIGN(n, ReadNodeFile(std::string(kFleet) + "rack2/gpu-node04.profile", o));
  EXPECT_EQ(n.facts.at("GID type at index 9"), "empty");
}

TEST(ReadNodeFile, CutShortJsonNamesTheLine) {
  const std::string path = std::string(kFleet) + "rack2/gpu-node07.json";
  absl::StatusOr<NodeSummary> n = ReadNodeFile(path, {});
  EXPECT_THAT(n.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                   StartsWith(path + ":40: not valid JSON (the file ends inside it: cut short?): ")));
  EXPECT_THAT(n.status().message(), HasSubstr("unexpected end of input"));
}

// Found by fuzz/json_fuzz: valid syntax the JSON library refuses (a number
// beyond a double) is an error naming the file, not an uncaught exception.
TEST(ReadNodeFile, ANumberOutOfRangeIsAnError) {
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/huge.json";
  std::ofstream(path) << R"({"schema_version": 1, "seconds": 137E3978})";
  EXPECT_THAT(ReadNodeFile(path, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(path + ": not valid JSON: number overflow")));
}

TEST(ReadNodeFile, OtherSchemaVersionIsRefused) {
  const std::string path = std::string(kFleet) + "rack2/gpu-node08.json";
  EXPECT_THAT(ReadNodeFile(path, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       path + ": schema_version 2: this rdmacheck reads schema_version 1 (docs/output-formats.md)"));
}

// Bad input of every kind: the message names the file and the line or field.
TEST(ReadNodeFile, BadInputIsNamed) {
  const std::string kReportHead = R"({"schema_version": 1, "host": "n1", "kernel": "", "devices": [], )";
  struct Row {
    const char* name;
    std::string text;
    const char* says;  // after "PATH"
  } rows[] = {
      {"bad_value.profile", "rdmacheck-profile 1\n[host]\nhostname n1\nmemlock_soft lots\n", ":4: "},
      {"no_host.profile", "rdmacheck-profile 1\n[host]\nkernel 6.1.0\n",
       ": no hostname in its [host] section: fleet names each node by it"},
      {"array.json", "[1, 2]", ": JSON array, not a report"},
      {"empty.json", "{}", ": JSON without schema_version or schema: not a report (rdmacheck --format=json) or a "
                           "support bundle (rdmacheck report --format=json)"},
      {"watch.json", R"({"schema": "rdmacheck.watch/1"})",
       ": schema \"rdmacheck.watch/1\": not a support bundle this rdmacheck reads (rdmacheck.report/1)"},
      {"string_version.json", R"({"schema_version": "1"})",
       ": schema_version \"1\": this rdmacheck reads schema_version 1 (docs/output-formats.md)"},
      {"verdict.json", kReportHead + R"("checks": [{"id": "x", "verdict": "MAYBE", "remediation": []}]})",
       ": field checks[0].verdict: 'MAYBE' is not PASS, WARN, FAIL or SKIP"},
      {"no_checks.json", kReportHead + "\"x\": 1}", ": field checks: missing"},
      {"host_number.json", R"({"schema_version": 1, "host": 7})", ": field host: a number, not a string"},
      {"empty_host.json", R"({"schema_version": 1, "host": "", "kernel": "", "devices": [], "checks": []})",
       ": host is empty: fleet names each node by it"},
      {"bundle_no_run.json", R"({"schema": "rdmacheck.report/1", "profile": ""})",
       ": field run: missing or not an object"},
      {"bundle_bad_profile.json",
       R"({"schema": "rdmacheck.report/1", "run": {"schema_version": 1, "host": "n1", "kernel": "", "devices": [],)"
       R"( "checks": []}, "profile": "rdmacheck-profile 1\n[host]\nmemlock_soft lots\n"})",
       ": field profile:3: "},
      {"syntax.json", "{\n  \"schema_version\": 1,\n  \"host\": x\n}\n", ":3: not valid JSON: "},
  };
  for (const Row& r : rows) {
    const std::string path = Write(r.name, r.text);
    absl::StatusOr<NodeSummary> n = ReadNodeFile(path, {});
    EXPECT_THAT(n.status(), StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(path + r.says))) << r.name;
  }
  EXPECT_THAT(ReadNodeFile(Tmp("missing.json"), {}).status(),
              StatusIs(absl::StatusCode::kNotFound, "ReadNodeFile(" + Tmp("missing.json") + "): no such file"));
}

TEST(ListNodeFiles, DirectoriesRecursiveAndSortedFilesAsGiven) {
  NodeFileList l = ListNodeFiles({kFleet, "extra.json"});
  const std::string f = kFleet;
  EXPECT_THAT(l.files, ElementsAre(f + "rack1/gpu-node01.json", f + "rack1/gpu-node01.old.json",
                                   f + "rack1/gpu-node02.json", f + "rack1/gpu-node03.json",
                                   f + "rack2/gpu-node04.profile", f + "rack2/gpu-node05.json",
                                   f + "rack2/gpu-node06.json", f + "rack2/gpu-node07.json",
                                   f + "rack2/gpu-node08.json", "extra.json"));
  EXPECT_TRUE(l.errors.empty());
}

TEST(ListNodeFiles, HiddenEntriesAreLeftOut) {
  const std::string dir = Tmp("walk");
  Write("walk/b/n2.json", "{}");
  Write("walk/a.json", "{}");
  Write("walk/.n3.json.tmp", "{}");
  Write("walk/.partial/n4.json", "{}");
  NodeFileList l = ListNodeFiles({dir});
  EXPECT_THAT(l.files, ElementsAre(dir + "/a.json", dir + "/b/n2.json"));
}

}  // namespace
}  // namespace rdmacheck
