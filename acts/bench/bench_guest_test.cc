// Needs rxe0 and rxe1 (tag "guest": the Soft-RoCE guest, rxe0 on veth va,
// rxe1 on vb). Without them it SKIPs, unless RDMACHECK_GUEST=1 (set by
// ci/guest/guest-main.sh) makes that a failure.
#include <chrono>
#include <thread>

#include "absl/strings/str_join.h"
#include "acts/bench/bench_session.h"
#include "acts/testing/guest_pair.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/clock.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

class BenchGuestTest : public testing::GuestPairTest {
 protected:
  BenchEnds Pair() const {
    BenchEnds e;
    e.device = "rxe0";
    e.peer_device = "rxe1";
    return e;
  }
};

TEST_F(BenchGuestTest, WriteBandwidthBetweenTwoDevices) {
  BenchSettings s;
  s.iters = 400;
  ASSERT_OK_AND_ASSIGN(BenchResult r, RunBench(Pair(), s));
  EXPECT_EQ(r.end, BenchEnd::kOk) << r.failure;
  EXPECT_FALSE(r.loopback);
  EXPECT_EQ(r.messages, 400u);
  EXPECT_EQ(r.bytes, 400u * 65536);
  EXPECT_GT(r.bw_avg_gbps, 0.01);
  EXPECT_GE(r.bw_peak_gbps, r.bw_avg_gbps);
  EXPECT_EQ(r.settings.mtu, 4096);
  EXPECT_EQ(r.settings.cq_mod, 1);  // 64 KiB messages: perftest's moderation off
  EXPECT_TRUE(r.counters_known);
  // 64 KiB at 4096-byte MTU: 16 packets per message at least.
  EXPECT_GE(CounterDelta(r.counters_before, r.counters_after)["sent_pkts"], 400u * 16);
  EXPECT_EQ(r.qp_state, "RTS");
}

TEST_F(BenchGuestTest, EveryOpPostListAndModerationOnOneSession) {
  for (BenchOp op : {BenchOp::kWrite, BenchOp::kSend, BenchOp::kRead}) {
    BenchSettings s;
    s.op = op;
    s.size = 4096;
    s.qps = 2;
    s.iters = 300;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<BenchSession> session, BenchSession::Open(Pair(), ShapeFor(s)));
    for (int list : {1, 8}) {
      for (int mod : {1, 16}) {
        s.post_list = list;
        s.cq_mod = mod;
        ASSERT_TRUE(session->Fits(s));
        ASSERT_OK_AND_ASSIGN(BenchResult r, session->Run(s));
        EXPECT_EQ(r.end, BenchEnd::kOk) << BenchOpName(op) << " -l " << list << " --cq-mod " << mod << ": " << r.failure;
        EXPECT_EQ(r.messages, 600u) << BenchOpName(op);  // 300 per QP
      }
    }
    s.qps = 1;  // fewer QPs reuse the session
    EXPECT_TRUE(session->Fits(s));
    s.qps = 4;
    EXPECT_FALSE(session->Fits(s));
  }
}

TEST_F(BenchGuestTest, QpsSplitOverThreadsEachCompleteTheirShare) {
  for (BenchOp op : {BenchOp::kWrite, BenchOp::kSend}) {
    BenchSettings s;
    s.op = op;
    s.size = 16384;
    s.qps = 4;
    s.threads = 2;
    s.iters = 200;
    ASSERT_OK_AND_ASSIGN(BenchResult r, RunBench(Pair(), s));
    EXPECT_EQ(r.end, BenchEnd::kOk) << BenchOpName(op) << ": " << r.failure;
    EXPECT_EQ(r.messages, 800u) << BenchOpName(op);  // 200 per QP, whichever thread ran it
    EXPECT_GT(r.bw_avg_gbps, 0.01);
    EXPECT_EQ(r.settings.threads, 2);
  }
}

// The guest's clocksource is hpet and its TSC runs a few % off it (4 %
// measured): FastSeconds corrected over the interval keeps to
// CLOCK_MONOTONIC, and so does a run's time.
TEST_F(BenchGuestTest, FastSecondsCorrectedKeepsToTheMonotonicClockHere) {
  FastClockCorrection corr;
  const double f0 = FastSeconds(), m0 = MonotonicSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double f1 = FastSeconds(), m1 = MonotonicSeconds();
  EXPECT_NEAR((f1 - f0) * corr.Factor(), m1 - m0, 0.002 * (m1 - m0));
  BenchSettings s;
  s.iters = 300;
  const double t0 = MonotonicSeconds();
  ASSERT_OK_AND_ASSIGN(BenchResult r, RunBench(Pair(), s));
  const double wall = MonotonicSeconds() - t0;
  EXPECT_EQ(r.end, BenchEnd::kOk) << r.failure;
  // First post to last completion: within the call, and most of it.
  EXPECT_LE(r.seconds, wall);
  EXPECT_GE(r.seconds, 0.5 * (wall - r.setup_seconds));
}

TEST_F(BenchGuestTest, DurationRunStopsWhenStable) {
  BenchSettings s;
  s.stop = StopRule{.slice_s = 0.2, .min_s = 0.6, .max_s = 2.0, .spread = 0.5, .slices = 3};
  ASSERT_OK_AND_ASSIGN(BenchResult r, RunBench(Pair(), s));
  EXPECT_EQ(r.end, BenchEnd::kOk) << r.failure;
  EXPECT_GE(r.seconds, 0.55);
  EXPECT_LE(r.seconds, 2.0 + 2.0);
  EXPECT_GE(r.slice_gbps.size(), 3u);
  EXPECT_GT(r.messages, 0u);
}

TEST_F(BenchGuestTest, WriteLatencyPingPong) {
  BenchSettings s;
  s.mode = BenchMode::kLatency;
  s.size = 2;
  s.iters = 200;
  ASSERT_OK_AND_ASSIGN(BenchResult r, RunBench(Pair(), s));
  EXPECT_EQ(r.end, BenchEnd::kOk) << r.failure;
  EXPECT_EQ(r.lat.samples, 200u);
  EXPECT_GT(r.lat.min_us, 0);
  EXPECT_LE(r.lat.min_us, r.lat.median_us);
  EXPECT_LE(r.lat.median_us, r.lat.p99_us);
  EXPECT_LE(r.lat.p99_us, r.lat.max_us);
  EXPECT_GT(*r.settings.inline_size, 0u);  // perftest's inline default, as granted
}

// --pin with one CPU: the local answering end spins off that CPU, so the
// figure is the link's and not the scheduler's (both ends on CPU 0 measured
// 8 ms a sample in the guest before).
TEST_F(BenchGuestTest, LatencyPinnedToOneCpuKeepsTheAnsweringEndOffIt) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two CPUs";
  BenchSettings s;
  s.mode = BenchMode::kLatency;
  s.size = 2;
  s.iters = 200;
  s.pin_cpus = {0};
  ASSERT_OK_AND_ASSIGN(BenchResult r, RunBench(Pair(), s));
  EXPECT_EQ(r.end, BenchEnd::kOk) << r.failure;
  EXPECT_LT(r.lat.median_us, 1000) << "a sample this long is a time slice, not the link";
  EXPECT_THAT(absl::StrJoin(r.notes, "\n"), HasSubstr("the answering end (rxe1) ran on CPU 1"));
}

TEST_F(BenchGuestTest, LoopbackOnOneDevice) {
  BenchEnds e = Pair();
  e.peer_device = "";
  BenchSettings s;
  s.iters = 200;
  ASSERT_OK_AND_ASSIGN(BenchResult r, RunBench(e, s));
  EXPECT_TRUE(r.loopback);
  EXPECT_EQ(r.end, BenchEnd::kOk) << r.failure;
  EXPECT_EQ(r.messages, 200u);
}

TEST_F(BenchGuestTest, MtuAboveTheActiveOneIsRefused) {
  BenchSettings s;
  s.mtu = 8192;
  absl::StatusOr<BenchResult> r = RunBench(Pair(), s);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  s.mtu = 1024;
  s.iters = 50;
  ASSERT_OK_AND_ASSIGN(BenchResult ok, RunBench(Pair(), s));
  EXPECT_EQ(ok.settings.mtu, 1024);
  EXPECT_EQ(ok.end, BenchEnd::kOk) << ok.failure;
}

}  // namespace
}  // namespace rdmacheck
