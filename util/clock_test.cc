#include "util/clock.h"

#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

// FastSeconds reads the same timeline as MonotonicSeconds: equal at any
// moment within a millisecond, and the same length for an interval within
// 2 % (the counter's rate is measured over 5 ms).
TEST(FastSeconds, KeepsToTheMonotonicClock) {
  const double f0 = FastSeconds(), m0 = MonotonicSeconds();
  EXPECT_NEAR(f0, m0, 1e-3);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double f1 = FastSeconds(), m1 = MonotonicSeconds();
  EXPECT_NEAR(f1 - f0, m1 - m0, 0.02 * (m1 - m0));
  EXPECT_NEAR(f1, m1, 5e-3);
  double last = FastSeconds();
  for (int i = 0; i < 1000; ++i) {
    const double now = FastSeconds();
    EXPECT_GE(now, last - 1e-6);
    last = now;
  }
}

}  // namespace
}  // namespace rdmacheck
