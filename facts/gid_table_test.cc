#include "facts/gid_table.h"

#include <cstdlib>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

// A fake port in the layout of rxe (fixtures/profiles/rxe_mtu9000.profile).
std::string FakePort() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string root = std::string(tmp ? tmp : "/tmp") + "/gid_sys";
  std::string p = root + "/class/infiniband/rxe0/ports/1";
  EXPECT_EQ(system(("mkdir -p " + p + "/gids " + p + "/gid_attrs/types " + p + "/gid_attrs/ndevs").c_str()), 0);
  std::ofstream(p + "/gids/0") << "fe80:0000:0000:0000:c6ff:fe12:0000:0001\n";
  std::ofstream(p + "/gids/1") << "0000:0000:0000:0000:0000:ffff:c612:0001\n";
  std::ofstream(p + "/gids/2") << "0000:0000:0000:0000:0000:0000:0000:0000\n";
  std::ofstream(p + "/gid_attrs/types/0") << "RoCE v2\n";
  std::ofstream(p + "/gid_attrs/types/1") << "RoCE v2\n";
  std::ofstream(p + "/gid_attrs/ndevs/1") << "va\n";
  return root;
}

TEST(GidTableTest, ReadsOneEntry) {
  std::string root = FakePort();
  ASSERT_OK_AND_ASSIGN(GidEntry g, ReadGid(root, "rxe0", 1, 1));
  EXPECT_EQ(g.gid, "::ffff:198.18.0.1");
  EXPECT_EQ(g.type, GidType::kRoceV2);
  EXPECT_EQ(g.netdev, "va");
}

TEST(GidTableTest, EmptyAndMissingEntriesAreNotFound) {
  std::string root = FakePort();
  EXPECT_THAT(ReadGid(root, "rxe0", 1, 2), StatusIs(absl::StatusCode::kNotFound, HasSubstr("GID index 2 of rxe0 port 1 is empty")));
  EXPECT_THAT(ReadGid(root, "rxe0", 1, 9), StatusIs(absl::StatusCode::kNotFound, HasSubstr("GID index 9")));
}

TEST(GidTableTest, TableKeepsNonEmpty) {
  std::string root = FakePort();
  std::vector<GidEntry> t = ReadGidTable(root, "rxe0", 1, 8);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].gid, "fe80::c6ff:fe12:0:1");
  EXPECT_EQ(t[1].index, 1);
}

TEST(GidTextTest, CompressesAndSkipsEmpty) {
  EXPECT_EQ(GidText("fe80:0000:0000:0000:a4b2:39ff:fe4e:1c2d\n"), "fe80::a4b2:39ff:fe4e:1c2d");
  EXPECT_EQ(GidText("0000:0000:0000:0000:0000:ffff:c612:0001"), "::ffff:198.18.0.1");
  EXPECT_EQ(GidText("0000:0000:0000:0000:0000:0000:0000:0000"), std::nullopt);
  EXPECT_EQ(GidText("not a gid"), std::nullopt);
}

}  // namespace
}  // namespace rdmacheck
