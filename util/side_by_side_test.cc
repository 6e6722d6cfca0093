#include "util/side_by_side.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

TEST(SideBySide, AllRunAtOnce) {
  // Each waits (2 s at most) until all three have started: run in turn, the
  // first would give up and the count would stay below 3.
  std::atomic<int> started{0};
  std::vector<int> saw(3, 0);
  std::vector<std::string> thrown = SideBySide(3, [&](size_t i) {
    ++started;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (started.load() < 3 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    saw[i] = started.load();
  });
  EXPECT_THAT(saw, ::testing::Each(3));
  EXPECT_THAT(thrown, ::testing::ElementsAre("", "", ""));
}

TEST(SideBySide, FirstRunsOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> ids(2);
  SideBySide(2, [&](size_t i) { ids[i] = std::this_thread::get_id(); });
  EXPECT_EQ(ids[0], caller);
  EXPECT_NE(ids[1], caller);
}

TEST(SideBySide, AnExceptionIsReturnedForItsIndexOnly) {
  std::vector<bool> done(3, false);
  std::vector<std::string> thrown = SideBySide(3, [&](size_t i) {
    if (i == 1) throw std::runtime_error("no device");
    if (i == 2) throw 7;
    done[i] = true;
  });
  EXPECT_THAT(thrown, ::testing::ElementsAre("", "no device", "unknown exception"));
  EXPECT_TRUE(done[0]);
}

TEST(SideBySide, NoneIsNothing) { EXPECT_TRUE(SideBySide(0, [](size_t) { FAIL(); }).empty()); }

}  // namespace
}  // namespace rdmacheck
