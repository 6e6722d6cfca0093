#include "cli/fleet_flags.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

TEST(FleetFlags, FormatOutputGidIndexAndPaths) {
  FleetOptions o;
  ASSERT_OK(FleetCommandLine(&o).Parse({"--format=html", "-o", "fleet.html", "-x", "3", "out/", "n1.json"}).status());
  EXPECT_EQ(o.format, "html");
  EXPECT_EQ(o.output, "fleet.html");
  EXPECT_EQ(o.facts.gid_index, 3);
  EXPECT_THAT(o.paths, ElementsAre("out/", "n1.json"));
  FleetOptions def;
  ASSERT_OK(FleetCommandLine(&def).Parse({"out/"}).status());
  EXPECT_EQ(def.format, "text");
  EXPECT_FALSE(def.output);
  EXPECT_FALSE(def.facts.gid_index);
}

// Bad usage reads no file: exit 2 and one line naming what is wrong.
TEST(FleetFlags, UsageIsTwo) {
  struct Row {
    std::vector<std::string> args;
    const char* says;
  } rows[] = {
      {{}, "rdmacheck fleet: give the nodes' files or a directory of them (see rdmacheck fleet --help)\n"},
      {{"--format=html", "out/"},
       "rdmacheck fleet: --format=html needs -o FILE (a page, not terminal text) (see rdmacheck fleet --help)\n"},
      {{"--format", "xml", "out/"},
       "rdmacheck fleet: --format: 'xml' is not one of text, json, html (see rdmacheck fleet --help)\n"},
      {{"-x", "256", "out/"},
       "rdmacheck fleet: -x: '256' is not a whole number from 0 to 255 (see rdmacheck fleet --help)\n"},
      {{"--bogus", "out/"}, "rdmacheck fleet: unknown flag --bogus (see rdmacheck fleet --help)\n"},
  };
  for (const Row& r : rows) {
    std::ostringstream out, err;
    EXPECT_EQ(RunFleetCli(r.args, out, err), 2) << r.says;
    EXPECT_EQ(err.str(), r.says);
    EXPECT_EQ(out.str(), "");
  }
}

TEST(FleetFlags, Help) {
  std::ostringstream out, err;
  EXPECT_EQ(RunFleetCli({"--help"}, out, err), 0);
  EXPECT_THAT(out.str(), HasSubstr("rdmacheck fleet [--format text|json|html] [-o FILE] [-x N] FILE|DIR..."));
  EXPECT_THAT(out.str(), HasSubstr("docs/fleet.md"));
  EXPECT_EQ(err.str(), "");
}

// docs/fleet.md's example is this run's output.
TEST(FleetFlags, RunsTheFleetOfTheDocs) {
  std::ostringstream out, err;
  EXPECT_EQ(RunFleetCli({"tools/fleet/testdata/fleet"}, out, err), 1);
  EXPECT_EQ(err.str(), "");
  std::ifstream in("docs/fleet.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string start = "$ rdmacheck fleet tools/fleet/testdata/fleet\n";
  size_t at = doc.str().find(start);
  ASSERT_NE(at, std::string::npos) << "docs/fleet.md lacks " << start;
  at += start.size();
  size_t end = doc.str().find("$ echo $?\n1\n", at);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(out.str(), doc.str().substr(at, end - at)) << "put this output in docs/fleet.md";
}

TEST(FleetFlags, NothingReadableIsTwo) {
  const std::string empty = TmpDir() + "/empty_fleet";
  std::filesystem::create_directories(empty);
  std::ofstream(empty + "/notes.txt") << "not a node\n";
  std::ostringstream out, err;
  EXPECT_EQ(RunFleetCli({empty}, out, err), 2);
  EXPECT_THAT(out.str(), StartsWith("== rdmacheck fleet: 0 nodes from 1 file ==\nunreadable: " + empty +
                                    "/notes.txt:1: "));
}

}  // namespace
}  // namespace rdmacheck
