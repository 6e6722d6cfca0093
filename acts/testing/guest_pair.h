// GuestPairTest: the fixture of the tests that need the Soft-RoCE guest's
// pair (tag "guest": rxe0 on veth va, rxe1 on vb). Without both devices a
// test SKIPs, unless RDMACHECK_GUEST=1 (set by ci/guest/guest-main.sh)
// makes that a failure, so the guest stage cannot pass by skipping.
//
//   class BenchGuestTest : public testing::GuestPairTest {};
//   TEST_F(BenchGuestTest, WriteBandwidth) { ... }
#ifndef RDMACHECK_ACTS_TESTING_GUEST_PAIR_H_
#define RDMACHECK_ACTS_TESTING_GUEST_PAIR_H_

#include "gtest/gtest.h"

namespace rdmacheck::testing {

// The device's port 1 exists under /sys/class/infiniband.
bool HaveRdmaDevice(const char* name);

class GuestPairTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

}  // namespace rdmacheck::testing

#endif  // RDMACHECK_ACTS_TESTING_GUEST_PAIR_H_
