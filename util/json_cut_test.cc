#include "util/json_cut.h"

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

TEST(WholeElements, TopLevelArrayCutInsideItsThirdElement) {
  const absl::string_view t = R"([{"a": 1}, {"b": "x}{"}, {"c": [1, 2)";
  JsonCut c = WholeElements(t, 1);
  EXPECT_TRUE(c.open);
  EXPECT_EQ(c.elements, 2u) << "braces inside a string do not count";
  EXPECT_EQ(t.substr(0, c.end), R"([{"a": 1}, {"b": "x}{"})");
}

TEST(WholeElements, ArrayInsideTheTopObject) {
  const absl::string_view t = R"({"nftables": [{"metainfo": {"v": 1}}, {"table": {"name": "f\"")";
  JsonCut c = WholeElements(t, 2);
  EXPECT_TRUE(c.open);
  EXPECT_EQ(c.elements, 1u) << "an escaped quote keeps the string open";
  EXPECT_EQ(t.substr(0, c.end), R"({"nftables": [{"metainfo": {"v": 1}})");
}

TEST(WholeElements, AWholeArrayIsNotCut) {
  JsonCut c = WholeElements(R"([{"a": 1}] trailing)", 1);
  EXPECT_FALSE(c.open);
  EXPECT_EQ(c.elements, 1u);
}

TEST(WholeElements, CutBeforeAnyWholeElement) {
  JsonCut c = WholeElements(R"([{"a": )", 1);
  EXPECT_TRUE(c.open);
  EXPECT_EQ(c.elements, 0u);
  EXPECT_FALSE(WholeElements("not json", 1).open);
}

}  // namespace
}  // namespace rdmacheck
