#include "verbs/context.h"

#include <sys/stat.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck::verbs {
namespace {

using ::rdmacheck::testing::IsOk;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

bool PathExists(const char* p) {
  struct stat st;
  return ::stat(p, &st) == 0;
}

// Hermetic on any host: with no verbs devices in sysfs the list must be
// empty and not an error (libibverbs says ENOSYS there).
TEST(DeviceListTest, GetSucceedsAndIsEmptyWithoutRdmaInTheKernel) {
  absl::StatusOr<DeviceList> list = DeviceList::Get();
  ASSERT_THAT(list, IsOk());
  if (!PathExists("/sys/class/infiniband_verbs")) {
    EXPECT_TRUE(list->empty());
    EXPECT_TRUE(list->Names().empty());
    EXPECT_EQ(list->Find("rxe0"), nullptr);
  }
  EXPECT_EQ(list->Names().size(), list->size());
}

TEST(ContextTest, OpenMissingDeviceIsNotFoundNamingIt) {
  EXPECT_THAT(Context::Open("nosuch0"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("no RDMA device named nosuch0 (found: ")));
}

TEST(NoSuchDeviceMessageTest, ListsWhatWasFound) {
  EXPECT_EQ(NoSuchDeviceMessage("mlx5_0", {}), "no RDMA device named mlx5_0 (found: none)");
  EXPECT_EQ(NoSuchDeviceMessage("mlx5_0", {"rxe0", "rxe1"}),
            "no RDMA device named mlx5_0 (found: rxe0, rxe1)");
}

}  // namespace
}  // namespace rdmacheck::verbs
