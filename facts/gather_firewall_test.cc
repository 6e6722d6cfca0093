#include <optional>
#include <string>

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

}  // namespace
}  // namespace rdmacheck::gather_internal
