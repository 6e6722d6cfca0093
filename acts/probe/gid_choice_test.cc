#include "acts/probe/gid_choice.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

GidEntry G(int i, const char* gid, GidType t) { return GidEntry{i, gid, t, "va"}; }

TEST(ChooseGidTest, Table) {
  struct Row {
    const char* name;
    std::vector<GidEntry> gids;
    std::optional<int> forced;
    int want;
  } rows[] = {
      {"rxe: link-local 0, IPv4-mapped 1", {G(0, "fe80::1", GidType::kRoceV2), G(1, "::ffff:198.18.0.1", GidType::kRoceV2)}, std::nullopt, 1},
      {"mlx5: v1 and v2 of the same address",
       {G(0, "fe80::1", GidType::kRoceV1), G(1, "fe80::1", GidType::kRoceV2), G(2, "::ffff:10.0.0.1", GidType::kRoceV1),
        G(3, "::ffff:10.0.0.1", GidType::kRoceV2)},
       std::nullopt, 3},
      {"IPv6 global over link-local", {G(0, "fe80::1", GidType::kRoceV2), G(4, "2001:db8::1", GidType::kRoceV2)}, std::nullopt, 4},
      {"InfiniBand", {G(0, "fe80::2:c903:a:b", GidType::kIb)}, std::nullopt, 0},
      {"-x wins", {G(0, "fe80::1", GidType::kRoceV2), G(1, "::ffff:198.18.0.1", GidType::kRoceV2)}, 0, 0},
  };
  for (const Row& r : rows) {
    absl::StatusOr<GidEntry> got = ChooseGid(r.gids, r.forced, "rxe0 port 1");
    ASSERT_TRUE(got.ok()) << r.name << ": " << got.status();
    EXPECT_EQ(got->index, r.want) << r.name;
  }
}

// A plan with ip_version = 6: the global IPv6 entry before the IPv4-mapped
// one, link-local still last; without a global IPv6 entry, the IPv4 one.
TEST(ChooseGidTest, PreferIpv6) {
  std::vector<GidEntry> both = {G(0, "fe80::1", GidType::kRoceV2), G(1, "::ffff:198.18.0.1", GidType::kRoceV2),
                                G(2, "2001:2::1", GidType::kRoceV2)};
  ASSERT_OK_AND_ASSIGN(GidEntry g, ChooseGid(both, std::nullopt, "rxe0 port 1", /*prefer_ipv6=*/true));
  EXPECT_EQ(g.index, 2);
  ASSERT_OK_AND_ASSIGN(g, ChooseGid(both, std::nullopt, "rxe0 port 1"));
  EXPECT_EQ(g.index, 1);
  both.pop_back();
  ASSERT_OK_AND_ASSIGN(g, ChooseGid(both, std::nullopt, "rxe0 port 1", true));
  EXPECT_EQ(g.index, 1);
}

TEST(ChooseGidTest, ForcedIndexMissingIsNotFound) {
  EXPECT_THAT(ChooseGid({G(0, "fe80::1", GidType::kRoceV2), G(1, "::ffff:1.2.3.4", GidType::kRoceV2)}, 5, "rxe0 port 1"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("GID index 5 of rxe0 port 1 is empty (entries: 0, 1)")));
}

TEST(ChooseGidTest, EmptyTableIsNotFound) {
  EXPECT_THAT(ChooseGid({}, std::nullopt, "rxe1 port 1"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no GID on rxe1 port 1")));
}

}  // namespace
}  // namespace rdmacheck
