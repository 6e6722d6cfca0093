#include "checks/registry.h"

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Ids(const std::vector<const Check*>& cs) {
  std::vector<std::string> out;
  for (const Check* c : cs) out.emplace_back(c->id());
  return out;
}

TEST(Registry, SortedAndUnique) {
  std::vector<std::string> ids = Ids(AllChecks());
  ASSERT_FALSE(ids.empty());
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_LT(ids[i - 1], ids[i]);
}

// The rdmacheck_check() macro made one target per id in checks/BUILD.bazel's
// CHECKS list; that list must be exactly the registry: none missing, none extra.
TEST(Registry, EveryCheckHasItsBazelTarget) {
  std::ifstream f("checks/check_target_ids.txt");
  ASSERT_TRUE(f.good());
  std::vector<std::string> targets;
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) targets.push_back(line);
  EXPECT_EQ(targets, Ids(AllChecks()));
}

TEST(Registry, SelectByGlobAndSkip) {
  ASSERT_OK_AND_ASSIGN(auto port, SelectChecks("port-*", ""));
  EXPECT_THAT(Ids(port), ElementsAre("port-active", "port-rate"));
  ASSERT_OK_AND_ASSIGN(auto some, SelectChecks("device-*", "device-limits"));
  EXPECT_THAT(Ids(some), ElementsAre("device-present"));
  ASSERT_OK_AND_ASSIGN(auto all, SelectChecks("", ""));
  EXPECT_EQ(all.size(), AllChecks().size());
}

TEST(Registry, UnknownIdIsAnError) {
  EXPECT_THAT(SelectChecks("port-actve", ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--checks: no check matches 'port-actve'")));
  EXPECT_THAT(SelectChecks("", "nosuch"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device-limits, device-present")));
}

}  // namespace
}  // namespace rdmacheck
