// Hermetic: no RDMA device needed. The real-device path is in
// live_device_guest_test.cc (tag "guest").
#include "acts/live_device.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

TEST(LiveDeviceTest, OpenMissingDeviceIsNotFoundNamingIt) {
  EXPECT_THAT(LiveDevice::Open("nosuch0", nullptr),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("no RDMA device named nosuch0 (found: ")));
}

}  // namespace
}  // namespace rdmacheck
