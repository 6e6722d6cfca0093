// docs/explain.md lists every rule of the built-in base and their count.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tools/diag/explain_rules.h"
#include "util/input_file.h"

namespace rdmacheck {
namespace {

TEST(ExplainDoc, ListsEveryRule) {
  std::string doc =
      ReadInputFile("ExplainDoc", "docs/explain.md", "a doc page", 1 << 20).value_or("");
  ASSERT_FALSE(doc.empty());
  auto rules = ExplainRuleSet::LoadEmbedded();
  ASSERT_TRUE(rules.ok()) << rules.status();
  for (const ExplainRule& r : (*rules)->rules()) {
    EXPECT_NE(doc.find(absl::StrCat("| `", r.id, "` |")), std::string::npos)
        << r.id << " is missing from docs/explain.md's rule table";
  }
  EXPECT_NE(doc.find(absl::StrCat((*rules)->rules().size(), " rules: ")), std::string::npos)
      << "docs/explain.md gives another rule count";
}

}  // namespace
}  // namespace rdmacheck
