// What the session decides before it touches a device: shapes, the memory
// it registers and the RLIMIT_MEMLOCK check. The runs themselves are in
// bench_guest_test (the Soft-RoCE guest).
#include "acts/bench/bench_session.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

TEST(BenchSession, ShapeFollowsTheSettings) {
  BenchSettings s;
  s.qps = 4;
  s.size = 1 << 20;
  SessionShape sh = ShapeFor(s);
  EXPECT_EQ(sh.qps, 4);
  EXPECT_EQ(sh.max_size, 1u << 20);
  EXPECT_EQ(sh.inline_size, 0u);
  s.mode = BenchMode::kLatency;
  EXPECT_EQ(ShapeFor(s).qps, 1);  // latency is one QP pair, as ib_write_lat
  EXPECT_EQ(ShapeFor(s).inline_size, 220u);
}

TEST(BenchSession, RegistersBothEndsRoundedToPages) {
  SessionShape sh;
  sh.qps = 2;
  sh.max_size = 65536;
  EXPECT_EQ(RegisteredBytes(sh), 2u * 2 * 65536);
  sh.qps = 1;
  sh.max_size = 2;
  EXPECT_EQ(RegisteredBytes(sh), 2u * 4096);
}

TEST(BenchSession, MemlockRefusedWithTheFigures) {
  EXPECT_OK(CheckMemlock(1 << 20, std::nullopt));
  EXPECT_OK(CheckMemlock(65536, 65536));
  absl::Status s = CheckMemlock(8u << 20, 64 * 1024);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("registers 8388608 bytes but RLIMIT_MEMLOCK is 65536 bytes (ulimit -l 64)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("ulimit -l unlimited"));
}

}  // namespace
}  // namespace rdmacheck
