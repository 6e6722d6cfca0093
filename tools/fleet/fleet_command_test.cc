// `rdmacheck fleet` on the fleet of testdata/make_fleet.sh: the odd nodes,
// what is odd about each, the files left out, the groups' order.
#include "tools/fleet/fleet_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Json = nlohmann::json;

constexpr char kFleet[] = "tools/fleet/testdata/fleet";

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json RunJson(const std::vector<std::string>& paths, int* code) {
  FleetOptions o;
  o.paths = paths;
  o.format = "json";
  std::ostringstream out, err;
  *code = RunFleetCommand(o, out, err);
  EXPECT_EQ(err.str(), "");
  return Json::parse(out.str());
}

std::vector<std::string> Names(const Json& a, const char* key) {
  std::vector<std::string> out;
  for (const Json& x : a) out.push_back(x[key].get<std::string>());
  return out;
}

std::string Base(const std::string& path) { return std::filesystem::path(path).filename().string(); }

TEST(FleetCommand, TheOddNodesAndWhatIsOddAboutEach) {
  int code;
  Json j = RunJson({kFleet}, &code);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(j["schema"], "rdmacheck.fleet/1");
  EXPECT_EQ(j["files"], 9);
  EXPECT_EQ(j["nodes"], 6);
  EXPECT_EQ(j["nodes_with_verdicts"], 5);  // gpu-node04 is a profile

  std::vector<std::string> unreadable;
  for (const Json& u : j["unreadable"]) unreadable.push_back(Base(u["file"]));
  EXPECT_THAT(unreadable, ElementsAre("gpu-node07.json", "gpu-node08.json"));
  EXPECT_THAT(j["unreadable"][0]["message"].get<std::string>(),
              StartsWith(std::string(kFleet) + "/rack2/gpu-node07.json:40: not valid JSON (the file ends inside it: "
                                               "cut short?): "));
  EXPECT_EQ(j["unreadable"][1]["message"], std::string(kFleet) +
                                               "/rack2/gpu-node08.json: schema_version 2: this rdmacheck reads "
                                               "schema_version 1 (docs/output-formats.md)");
  ASSERT_EQ(j["duplicates"].size(), 1u);
  EXPECT_EQ(j["duplicates"][0]["message"], std::string(kFleet) + "/rack1/gpu-node01.old.json: node gpu-node01 was read from " +
                                               kFleet + "/rack1/gpu-node01.json already; left out");

  // Facts: the majority and exactly the odd node with its value.
  std::map<std::string, std::string> facts;
  for (const Json& f : j["facts"]) {
    ASSERT_EQ(f["differ"].size(), 1u) << f.dump();
    facts[f["fact"].get<std::string>()] = absl::StrFormat(
        "%s: %s (%d of %d)", f["differ"][0]["node"].get<std::string>(), f["differ"][0]["value"].get<std::string>(),
        f["majority_nodes"].get<int>(), f["nodes"].get<int>());
  }
  const std::map<std::string, std::string> want = {
      {"RLIMIT_MEMLOCK", "gpu-node05: 64 KiB (4 of 5)"},
      {"active_mtu", "gpu-node03: 1024 (4 of 5)"},
      {"firmware of mlx5 part 4123", "gpu-node04: 20.28.2006 (4 of 5)"},
      {"netdev MTU", "gpu-node03: 1500 (4 of 5)"},
  };
  EXPECT_EQ(facts, want);
  EXPECT_EQ(j["facts"][1]["majority"], "20.31.1014");

  // Figures: gpu-node06's link, and only it.
  std::vector<std::string> figures;
  for (const Json& f : j["figures"]) {
    EXPECT_EQ(f["hardware"], "mlx5 part 4123");
    EXPECT_EQ(f["median"], 0);
    EXPECT_EQ(f["nodes"], 5);
    ASSERT_EQ(f["outliers"].size(), 1u);
    EXPECT_EQ(f["outliers"][0]["node"], "gpu-node06");
    figures.push_back(f["figure"].get<std::string>());
  }
  EXPECT_THAT(figures, ElementsAre("link_error_recovery /s", "np_cnp_sent /s", "port_rcv_errors /s", "symbol_error /s"));

  // Checks: which node FAILs which.
  std::map<std::string, std::vector<std::string>> failing;
  for (const Json& c : j["checks"])
    if (!c["failing"].empty()) failing[c["id"].get<std::string>()] = c["failing"].get<std::vector<std::string>>();
  EXPECT_EQ(failing, (std::map<std::string, std::vector<std::string>>{
                         {"link-health", {"gpu-node06"}}, {"memlock", {"gpu-node05"}}, {"mtu-chain", {"gpu-node03"}}}));

  // Groups, largest first and then by node: one odd node each here.
  ASSERT_EQ(j["groups"].size(), 4u);
  EXPECT_THAT(j["groups"][0]["nodes"], ElementsAre("gpu-node03"));
  EXPECT_THAT(j["groups"][0]["problems"],
              ElementsAre("FAIL mtu-chain", "active_mtu is not 4096", "netdev MTU is not 9000"));
  EXPECT_EQ(j["groups"][0]["remediation"][0], "ip link set dev ens1f0np0 mtu 9000   # and every switch port and peer on the path");
  EXPECT_THAT(j["groups"][1]["nodes"], ElementsAre("gpu-node04"));
  EXPECT_THAT(j["groups"][1]["problems"], ElementsAre("firmware of mlx5 part 4123 is not 20.31.1014"));
  EXPECT_TRUE(j["groups"][1]["remediation"].empty());
  EXPECT_THAT(j["groups"][2]["nodes"], ElementsAre("gpu-node05"));
  EXPECT_THAT(j["groups"][2]["problems"], ElementsAre("FAIL memlock", "RLIMIT_MEMLOCK is not unlimited"));
  EXPECT_EQ(j["groups"][2]["remediation"].size(), 3u);
  EXPECT_THAT(j["groups"][3]["nodes"], ElementsAre("gpu-node06"));
  EXPECT_EQ(j["groups"][3]["problems"][0], "FAIL link-health");
  EXPECT_EQ(j["groups"][3]["problems"].size(), 5u);
  EXPECT_THAT(j["healthy"], ElementsAre("gpu-node01", "gpu-node02"));
  EXPECT_EQ(j["exit"], 1);
}

// Many nodes: a check names its first five failing nodes, the big group
// comes first.
TEST(FleetCommand, ManyNodes) {
  const std::string dir = TmpDir() + "/many";
  std::filesystem::create_directories(dir);
  for (int i = 0; i < 300; ++i) {
    const bool fails = i % 30 == 7;  // 10 nodes
    std::ofstream(absl::StrFormat("%s/n%03d.json", dir, i))
        << absl::StrFormat(R"({"schema_version": 1, "host": "n%03d", "kernel": "%s", "devices": [], )"
                           R"("checks": [{"id": "memlock", "verdict": "%s", "remediation": ["ulimit -l unlimited"]}]})",
                           i, i == 299 ? "6.1.0-9" : "6.1.0-28", fails ? "FAIL" : "PASS");
  }
  FleetOptions o;
  o.paths = {dir};
  std::ostringstream out, err;
  EXPECT_EQ(RunFleetCommand(o, out, err), 1);
  EXPECT_THAT(out.str(), HasSubstr("memlock   290     0    10     0  n007, n037, n067, n097, n127 +5 more\n"));
  EXPECT_THAT(out.str(), HasSubstr("kernel: 299 of 300 nodes 6.1.0-28\n    n299  6.1.0-9\n"));
  EXPECT_THAT(out.str(), HasSubstr("[10 nodes] FAIL memlock\n    nodes: n007, n037, n067, n097, n127, n157, n187, "
                                   "n217, n247, n277\n    remediation:\n      ulimit -l unlimited\n[1 node] kernel is "
                                   "not 6.1.0-28\n    nodes: n299\n"));
  EXPECT_THAT(out.str(), HasSubstr("== Summary: 300 nodes, 11 odd, 289 healthy ==\n"));
}

TEST(FleetCommand, OutputFileNamesTheFilesLeftOutOnStderr) {
  FleetOptions o;
  o.paths = {kFleet};
  o.output = TmpDir() + "/fleet.txt";
  std::ostringstream out, err;
  EXPECT_EQ(RunFleetCommand(o, out, err), 1);
  EXPECT_EQ(out.str(), "");
  EXPECT_THAT(Read(*o.output), StartsWith("== rdmacheck fleet: 6 nodes from 9 files ==\n"));
  EXPECT_THAT(err.str(), StartsWith("rdmacheck fleet: unreadable: " + std::string(kFleet) + "/rack2/gpu-node07.json:40: "));
  EXPECT_THAT(err.str(), HasSubstr("rdmacheck fleet: duplicate: " + std::string(kFleet) + "/rack1/gpu-node01.old.json: "));

  o.output = TmpDir() + "/no/such/dir/fleet.txt";
  std::ostringstream out2, err2;
  EXPECT_EQ(RunFleetCommand(o, out2, err2), 2);
  EXPECT_THAT(err2.str(), HasSubstr("rdmacheck fleet: -o: cannot write " + *o.output + "\n"));
}

}  // namespace
}  // namespace rdmacheck
