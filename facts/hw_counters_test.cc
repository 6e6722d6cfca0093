#include "facts/hw_counters.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ReadHwCountersTest, ReadsNumbersSkipsTheRest) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string root = std::string(tmp ? tmp : "/tmp") + "/hwc_sys";
  std::string dir = root + "/class/infiniband/rxe0/ports/1/hw_counters";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  std::ofstream(dir + "/sent_pkts") << "17\n";
  std::ofstream(dir + "/rcvd_pkts") << "0\n";
  std::ofstream(dir + "/lifespan") << "10\n";
  std::ofstream(dir + "/weird") << "n/a\n";
  ASSERT_OK_AND_ASSIGN(Counters c, ReadHwCounters(root, "rxe0", 1));
  EXPECT_EQ(c, (Counters{{"rcvd_pkts", 0}, {"sent_pkts", 17}}));
}

TEST(ReadHwCountersTest, MissingDirectoryIsNotFound) {
  EXPECT_THAT(ReadHwCounters("/nonexistent-sysfs", "mlx5_0", 1),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("mlx5_0/ports/1/hw_counters")));
}

}  // namespace
}  // namespace rdmacheck
