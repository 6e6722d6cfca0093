#include "facts/sysfs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;

// A small tree in the shapes sysfs and procfs use.
std::string FakeTree() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string root = std::string(tmp ? tmp : "/tmp") + "/sysfs_tree";
  const std::string port = root + "/class/infiniband/mlx5_0/ports/1";
  EXPECT_EQ(std::system(("rm -rf " + root + " && mkdir -p " + port + "/gids " + root +
                         "/bus/pci/drivers/mlx5_core")
                            .c_str()),
            0);
  auto put = [&](const std::string& rel, const std::string& text) { std::ofstream(root + "/" + rel) << text; };
  put("class/infiniband/mlx5_0/node_type", "1: CA\n");
  put("class/infiniband/mlx5_0/fw_ver", "\n");  // rxe's is empty
  put("class/infiniband/mlx5_0/board_id", "");
  put("class/infiniband/mlx5_0/vendor", "0x15b3\n");
  put("class/infiniband/mlx5_0/ports/1/lid", "0x1a\n");
  put("class/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  put("class/infiniband/mlx5_0/ports/1/port_xmit_data", "123456789012\n");
  put("class/infiniband/mlx5_0/ports/1/big", "4294967296\n");
  put("class/infiniband/mlx5_0/ports/1/no_pma", "N/A (no PMA)\n");
  put("class/infiniband/mlx5_0/ports/1/signed", "-1\n");
  for (const char* g : {"0", "1", "2", "10", "0x3", "x"}) put(std::string("class/infiniband/mlx5_0/ports/1/gids/") + g, "");
  EXPECT_EQ(::symlink("../../../bus/pci/drivers/mlx5_core", (root + "/class/infiniband/mlx5_0/driver").c_str()), 0);
  return root;
}

struct ValueRow {
  const char* rel;
  std::optional<std::string> value;
  std::optional<uint64_t> number;
  std::optional<int> integer;
};

TEST(SysfsReaderTest, ValuesAndNumbers) {
  const std::string root = FakeTree();
  const ValueRow rows[] = {
      {"class/infiniband/mlx5_0/node_type", "1: CA", std::nullopt, std::nullopt},
      {"class/infiniband/mlx5_0/fw_ver", std::nullopt, std::nullopt, std::nullopt},
      {"class/infiniband/mlx5_0/board_id", std::nullopt, std::nullopt, std::nullopt},
      {"class/infiniband/mlx5_0/vendor", "0x15b3", 0x15b3, 0x15b3},
      {"class/infiniband/mlx5_0/ports/1/lid", "0x1a", 26, 26},
      {"class/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)", std::nullopt, std::nullopt},
      {"class/infiniband/mlx5_0/ports/1/port_xmit_data", "123456789012", 123456789012u, std::nullopt},
      {"class/infiniband/mlx5_0/ports/1/big", "4294967296", 4294967296u, std::nullopt},
      {"class/infiniband/mlx5_0/ports/1/no_pma", "N/A (no PMA)", std::nullopt, std::nullopt},
      {"class/infiniband/mlx5_0/ports/1/signed", "-1", std::nullopt, std::nullopt},
      {"class/infiniband/mlx5_0/missing", std::nullopt, std::nullopt, std::nullopt},
      {"class/infiniband/mlx5_0/ports", std::nullopt, std::nullopt, std::nullopt},  // a directory
  };
  // The same tree through a root with and without its trailing slash.
  for (const SysfsReader& fs : {SysfsReader(root), SysfsReader(root + "/")}) {
    for (const ValueRow& r : rows) {
      SCOPED_TRACE(r.rel);
      EXPECT_EQ(fs.ReadValue(r.rel), r.value);
      EXPECT_EQ(fs.ReadNumber(r.rel), r.number);
      EXPECT_EQ(fs.ReadInt(r.rel), r.integer);
    }
  }
}

TEST(SysfsReaderTest, ReadFileKeepsTheTextAsItIs) {
  SysfsReader fs(FakeTree());
  EXPECT_EQ(fs.ReadFile("class/infiniband/mlx5_0/fw_ver"), "\n");
  EXPECT_EQ(fs.ReadFile("class/infiniband/mlx5_0/board_id"), "");
  EXPECT_EQ(fs.ReadFile("class/infiniband/mlx5_0/nothing"), std::nullopt);
}

TEST(SysfsReaderTest, DirectoriesLinksAndExistence) {
  SysfsReader fs(FakeTree());
  EXPECT_EQ(fs.ListDir("class/infiniband"), std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(fs.ListDir("class/net"), std::nullopt);
  EXPECT_EQ(fs.ListDir("class/infiniband/mlx5_0/node_type"), std::nullopt);
  EXPECT_THAT(fs.ListNumbered("class/infiniband/mlx5_0/ports/1/gids"), ElementsAre(0, 1, 2, 10))
      << "numeric order; \"0x3\" and \"x\" are not numbered entries";
  EXPECT_TRUE(fs.ListNumbered("class/infiniband/mlx5_0/ports/9/gids").empty());
  EXPECT_EQ(fs.LinkBasename("class/infiniband/mlx5_0/driver"), "mlx5_core");
  EXPECT_EQ(fs.LinkBasename("class/infiniband/mlx5_0/node_type"), std::nullopt) << "not a link";
  EXPECT_TRUE(fs.Exists("class/infiniband/mlx5_0/driver"));
  EXPECT_TRUE(fs.Exists("class/infiniband"));
  EXPECT_FALSE(fs.Exists("module/rdma_rxe"));
}

TEST(JoinPathTest, Table) {
  static const struct {
    const char* a;
    const char* b;
    const char* want;
  } kRows[] = {
      {"/sys", "class/net", "/sys/class/net"},
      {"/sys/", "class/net", "/sys/class/net"},
      {"/", ".dockerenv", "/.dockerenv"},
      {"", "class/net", "class/net"},
      {"fixtures/sysfs", "proc", "fixtures/sysfs/proc"},
  };
  for (const auto& r : kRows) EXPECT_EQ(JoinPath(r.a, r.b), r.want) << r.a << " + " << r.b;
}

}  // namespace
}  // namespace rdmacheck
