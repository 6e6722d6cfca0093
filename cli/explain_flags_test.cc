#include "cli/explain_flags.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Parsed {
  std::optional<int> code;
  ExplainFlags flags;
  std::string out, err;
};
Parsed Parse(const std::vector<std::string>& args) {
  Parsed p;
  std::ostringstream out, err;
  p.code = ParseExplainFlags(args, &p.flags, out, err);
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(ExplainFlags, FormatRulesLiveAndFiles) {
  Parsed p = Parse({"--format=json", "--rules", "r.txt", "a.log", "-", "--", "--odd-name.log"});
  ASSERT_EQ(p.code, std::nullopt) << p.err;
  EXPECT_EQ(p.flags.options.format, "json");
  EXPECT_EQ(p.flags.options.rules_path, "r.txt");
  EXPECT_THAT(p.flags.options.files, ElementsAre("a.log", "-", "--odd-name.log"));
  EXPECT_FALSE(p.flags.live);
  Parsed q = Parse({"--format", "json"});
  EXPECT_EQ(q.flags.options.format, "json");
  EXPECT_TRUE(q.flags.options.files.empty());
  Parsed l = Parse({"--live", "a.log", "--format=text"});
  ASSERT_EQ(l.code, std::nullopt) << l.err;
  EXPECT_TRUE(l.flags.live);
}

TEST(ExplainFlags, UsageIsTwoWithOneLine) {
  struct Row {
    std::vector<std::string> args;
    const char* says;
  } rows[] = {
      {{"--format=xml"}, "rdmacheck explain: --format: 'xml' is not one of text, json (see rdmacheck explain --help)\n"},
      {{"--bogus"}, "rdmacheck explain: unknown flag --bogus (see rdmacheck explain --help)\n"},
      {{"--rules"}, "rdmacheck explain: --rules: needs a value (see rdmacheck explain --help)\n"},
  };
  for (const Row& r : rows) {
    Parsed p = Parse(r.args);
    EXPECT_EQ(p.code, 2) << r.says;
    EXPECT_EQ(p.err, r.says);
  }
  Parsed live_json = Parse({"--live", "--format", "json", "a.log"});
  EXPECT_EQ(live_json.code, 2);
  EXPECT_THAT(live_json.err, HasSubstr("rdmacheck report --format=json"));
}

TEST(ExplainFlags, Help) {
  Parsed p = Parse({"-h"});
  EXPECT_EQ(p.code, 0);
  EXPECT_THAT(p.out, HasSubstr("Usage: rdmacheck explain [--live]"));
  EXPECT_THAT(p.out, HasSubstr("--rules PATH"));
}

}  // namespace
}  // namespace rdmacheck
