#include "util/phase_log.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

TEST(PhaseLogTest, TimerAddsItsPhaseWhenItEnds) {
  PhaseLog log;
  log.Add("first", 0.5);
  {
    PhaseTimer t(&log, "slept");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(log.phases().size(), 1u);  // not before it ends
  }
  ASSERT_EQ(log.phases().size(), 2u);
  EXPECT_EQ(log.phases()[0].name, "first");
  EXPECT_DOUBLE_EQ(log.phases()[0].seconds, 0.5);
  EXPECT_EQ(log.phases()[1].name, "slept");
  EXPECT_GE(log.phases()[1].seconds, 0.019);
  EXPECT_LT(log.phases()[1].seconds, 5.0);
}

TEST(PhaseLogTest, NullLogTimesNothingAndAppendKeepsOrder) {
  { PhaseTimer t(nullptr, "nowhere"); }
  PhaseLog a, b;
  a.Add("a", 1);
  b.Add("b", 2);
  b.Add("c", 3);
  a.Append(b);
  ASSERT_EQ(a.phases().size(), 3u);
  EXPECT_EQ(a.phases()[2].name, "c");
  EXPECT_DOUBLE_EQ(a.phases()[2].seconds, 3);
}

TEST(ProcessAgeTest, FromStatAndUptime) {
  // A comm with a space and a ')' in it; starttime (field 22) = 12345 ticks.
  const std::string stat =
      "4242 (rdma check) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 0 0 0 20 0 1 0 12345 1000 10";
  std::optional<double> age = ProcessAgeFrom(stat, "124.95 200.00\n", 100);
  ASSERT_TRUE(age.has_value());
  EXPECT_NEAR(*age, 1.5, 1e-9);
  EXPECT_EQ(ProcessAgeFrom(stat, "120.00 1\n", 100), 0.0);  // tick rounding, clamped
  EXPECT_EQ(ProcessAgeFrom("4242 (short) S 1 2", "1.0", 100), std::nullopt);
  EXPECT_EQ(ProcessAgeFrom(stat, "garbage", 100), std::nullopt);
  EXPECT_EQ(ProcessAgeFrom("no paren", "1.0", 100), std::nullopt);
}

TEST(ProcessAgeTest, ThisProcessIsYoungerThanTheMachine) {
  std::optional<double> age = ProcessAgeSeconds();
  ASSERT_TRUE(age.has_value());
  EXPECT_GE(*age, 0);
  EXPECT_LT(*age, 3600);  // a test binary, started moments ago
}

}  // namespace
}  // namespace rdmacheck
