#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "facts/gather_internal.h"
#include "gtest/gtest.h"

namespace rdmacheck::gather_internal {
namespace {

// /proc/net/ip_tables_names as the kernel prints it: one legacy table a line,
// absent until ip_tables is loaded.
TEST(LegacyTablesListed, OnlyWhenTheKernelListsATable) {
  EXPECT_FALSE(LegacyTablesListed(std::nullopt));
  EXPECT_FALSE(LegacyTablesListed(std::string("")));
  EXPECT_FALSE(LegacyTablesListed(std::string("\n")));
  EXPECT_TRUE(LegacyTablesListed(std::string("filter\n")));
  EXPECT_TRUE(LegacyTablesListed(std::string("nat\nfilter\n")));
}

void Tool(const std::string& dir, const std::string& name, const std::string& body) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
}

// The listings as the gather runs them, with tools of our own in PATH: an
// nft without JSON support (answered by the text listing), an
// iptables-nft-save that fails, the ip6tables listing missing.
TEST(RulesetReader, FallsBackToTextAndTellsAFailedListingFromAMissingOne) {
  const std::string dir = ::testing::TempDir() + "/tools";
  ::mkdir(dir.c_str(), 0755);
  Tool(dir, "nft",
       "if [ \"$1\" = -j ]; then echo 'JSON support not compiled-in' >&2; exit 1; fi\n"
       "printf 'table inet f {\\n}\\n'");
  Tool(dir, "iptables-nft-save", "echo 'iptables-nft-save: Permission denied' >&2; exit 4");
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  ::setenv("PATH", dir.c_str(), 1);
  HostInfo h;
  std::vector<std::string> provenance;
  {
    RulesetReader reader(::testing::TempDir() + "/no-proc");
    reader.Finish(&h, &provenance);
  }
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_EQ(h.rulesets.count("nft"), 1u);
  EXPECT_EQ(h.rulesets["nft"], "table inet f {\n}\n");
  ASSERT_EQ(h.rulesets_not_read.count("iptables-nft"), 1u);
  EXPECT_NE(h.rulesets_not_read["iptables-nft"].find("exited 4"), std::string::npos)
      << h.rulesets_not_read["iptables-nft"];
  // Not installed: a backend not in use, not a gap in what was read.
  EXPECT_EQ(h.rulesets_not_read.count("ip6tables-nft"), 0u);
  EXPECT_EQ(h.rulesets.count("ip6tables-nft"), 0u);
}

}  // namespace
}  // namespace rdmacheck::gather_internal
