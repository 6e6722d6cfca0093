#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
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

// nft -j list ruleset as nft 1.0.6 prints it: iptables-nft's tables are
// ordinary tables of family ip and ip6.
constexpr char kNftJsonHead[] = R"({"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}})";

std::string NftJson(const std::string& tables) { return std::string(kNftJsonHead) + tables + "]}"; }

// Whether each family's listing can print anything, as the gather asks it.
std::optional<bool> Listed(const std::string& nft_listing, const std::string& family) {
  std::optional<std::set<std::string>> f = XtablesFamiliesListed(nft_listing);
  if (!f) return std::nullopt;
  return f->count(family) > 0;
}

TEST(XtablesFamiliesListed, OnlyTheFamilysXtablesTables) {
  const std::string ip_filter = NftJson(R"(, {"table": {"family": "ip", "name": "filter", "handle": 1}})");
  EXPECT_EQ(Listed(ip_filter, "ip"), true);
  EXPECT_EQ(Listed(ip_filter, "ip6"), false);
  const std::string ip6_nat = NftJson(R"(, {"table": {"family": "ip6", "name": "nat", "handle": 3}})");
  EXPECT_EQ(Listed(ip6_nat, "ip6"), true);
  EXPECT_EQ(Listed(ip6_nat, "ip"), false);
  // A table of nft's own (inet, or ip under another name) is not printed by
  // iptables-nft-save.
  EXPECT_EQ(Listed(NftJson(R"(, {"table": {"family": "inet", "name": "filter", "handle": 2}})"), "ip"), false);
  EXPECT_EQ(Listed(NftJson(R"(, {"table": {"family": "ip", "name": "fw", "handle": 2}})"), "ip"), false);
  EXPECT_EQ(Listed(NftJson(""), "ip"), false);
  // The text listing, and nothing at all (nft's text form of no ruleset).
  EXPECT_EQ(Listed("table ip mangle {\n}\n", "ip"), true);
  EXPECT_EQ(Listed("", "ip"), false);
  // Cut short: what follows the cut may be such a table.
  EXPECT_EQ(Listed(std::string(kNftJsonHead) + R"(, {"table": {"family": "inet", "na)", "ip"), std::nullopt);
}

// Runs a RulesetReader with `dir` as the whole PATH.
void ReadWithTools(const std::string& dir, HostInfo* h, std::vector<std::string>* provenance) {
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  ::setenv("PATH", dir.c_str(), 1);
  {
    RulesetReader reader(::testing::TempDir() + "/no-proc");
    reader.Finish(h, provenance);
  }
  ::setenv("PATH", saved.c_str(), 1);
}

// The listings as the gather runs them, with tools of our own in PATH: an
// nft without JSON support (answered by the text listing), an
// iptables-nft-save that fails, the ip6tables listing missing.
TEST(RulesetReader, FallsBackToTextAndTellsAFailedListingFromAMissingOne) {
  const std::string dir = ::testing::TempDir() + "/tools";
  ::mkdir(dir.c_str(), 0755);
  Tool(dir, "nft",
       "if [ \"$1\" = -j ]; then echo 'JSON support not compiled-in' >&2; exit 1; fi\n"
       "printf 'table ip filter {\\n}\\ntable ip6 filter {\\n}\\n'");
  Tool(dir, "iptables-nft-save", "echo 'iptables-nft-save: Permission denied' >&2; exit 4");
  HostInfo h;
  std::vector<std::string> provenance;
  ReadWithTools(dir, &h, &provenance);
  ASSERT_EQ(h.rulesets.count("nft"), 1u);
  EXPECT_EQ(h.rulesets["nft"], "table ip filter {\n}\ntable ip6 filter {\n}\n");
  ASSERT_EQ(h.rulesets_not_read.count("iptables-nft"), 1u);
  EXPECT_NE(h.rulesets_not_read["iptables-nft"].find("exited 4"), std::string::npos)
      << h.rulesets_not_read["iptables-nft"];
  // Not installed: a backend not in use, not a gap in what was read.
  EXPECT_EQ(h.rulesets_not_read.count("ip6tables-nft"), 0u);
  EXPECT_EQ(h.rulesets.count("ip6tables-nft"), 0u);
}

// nft lists no iptables-nft table: the two listings would print nothing
// and are not run (this iptables-nft-save would fail if it were), and the
// provenance says why. When nft itself cannot be read, they are run.
TEST(RulesetReader, LeavesOutTheIptablesNftListingsNftShowsEmpty) {
  const std::string dir = ::testing::TempDir() + "/tools-inet";
  ::mkdir(dir.c_str(), 0755);
  Tool(dir, "nft", "printf '%s' '" + NftJson(R"(, {"table": {"family": "inet", "name": "fw", "handle": 1}})") + "'");
  Tool(dir, "iptables-nft-save", "echo 'iptables-nft-save: Permission denied' >&2; exit 4");
  Tool(dir, "ip6tables-nft-save", "echo 'ip6tables-nft-save: Permission denied' >&2; exit 4");
  HostInfo h;
  std::vector<std::string> provenance;
  ReadWithTools(dir, &h, &provenance);
  EXPECT_EQ(h.rulesets_not_read.count("nft"), 0u);
  for (const char* source : {"iptables-nft", "ip6tables-nft"}) {
    ASSERT_EQ(h.rulesets.count(source), 1u) << source;
    EXPECT_EQ(h.rulesets[source], "") << source;
    EXPECT_EQ(h.rulesets_not_read.count(source), 0u) << source;
  }
  EXPECT_NE(std::find(provenance.begin(), provenance.end(),
                      "gather: ruleset iptables-nft empty: nft lists no ip table filter, mangle, raw, security or nat, "
                      "so iptables-nft-save was not run"),
            provenance.end());

  Tool(dir, "nft", "echo 'netlink: Error: cache initialization failed: Operation not permitted' >&2; exit 1");
  HostInfo h2;
  std::vector<std::string> provenance2;
  ReadWithTools(dir, &h2, &provenance2);
  EXPECT_EQ(h2.rulesets_not_read.count("nft"), 1u);
  EXPECT_EQ(h2.rulesets_not_read.count("iptables-nft"), 1u);
  EXPECT_EQ(h2.rulesets_not_read.count("ip6tables-nft"), 1u);
}

}  // namespace
}  // namespace rdmacheck::gather_internal
