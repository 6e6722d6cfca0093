#include "acts/bench/bench_math.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

TEST(BenchMath, GbitsPerSecondIsBitsOverSecondsInGiga) {
  EXPECT_DOUBLE_EQ(GbitsPerSecond(125000000, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(GbitsPerSecond(655360000, 2.0), 2.62144);
  EXPECT_EQ(GbitsPerSecond(100, 0), 0);
}

TEST(BenchMath, MegabytesPerSecondArePerftestsMebibytes) {
  BenchResult r;
  r.bytes = 3 << 20;
  r.seconds = 1.5;
  EXPECT_DOUBLE_EQ(r.bw_avg_mbps(), 2.0);
}

TEST(BenchMath, LatencyStatsByNearestRank) {
  std::vector<double> s;
  for (int i = 1000; i >= 1; --i) s.push_back(i);  // 1..1000 us, unsorted
  LatencyStats st = LatencyStatsOf(s);
  EXPECT_EQ(st.samples, 1000u);
  EXPECT_EQ(st.min_us, 1);
  EXPECT_EQ(st.max_us, 1000);
  EXPECT_EQ(st.median_us, 501);  // s[n/2] of the sorted samples, as perftest's typical
  EXPECT_DOUBLE_EQ(st.avg_us, 500.5);
  EXPECT_EQ(st.p99_us, 990);
  EXPECT_EQ(st.p999_us, 999);
  EXPECT_NEAR(st.stdev_us, 288.67, 0.01);
  EXPECT_EQ(LatencyStatsOf({}).samples, 0u);
  LatencyStats one = LatencyStatsOf({7});
  EXPECT_EQ(one.p999_us, 7);
  EXPECT_EQ(one.median_us, 7);
}

TEST(BenchMath, SpreadOfTheLastSlices) {
  EXPECT_TRUE(std::isinf(Spread({1, 2}, 3)));
  EXPECT_DOUBLE_EQ(Spread({100, 10, 10, 11}, 3), 1.0 / (31.0 / 3));
  EXPECT_TRUE(std::isinf(Spread({0, 0, 0}, 3)));
}

TEST(BenchMath, StopsWhenStableAfterTheMinimumOrAtTheMaximum) {
  StopRule r;  // min 1 s, max 3 s, 3 slices within 5 %
  std::vector<double> steady = {1.0, 1.01, 0.99};
  EXPECT_EQ(ShouldStop(r, steady, 0.8), StopNow::kGoOn);  // stable, but under min_s
  EXPECT_EQ(ShouldStop(r, steady, 1.0), StopNow::kStable);
  std::vector<double> noisy = {1.0, 1.5, 0.7};
  EXPECT_EQ(ShouldStop(r, noisy, 2.0), StopNow::kGoOn);
  EXPECT_EQ(ShouldStop(r, noisy, 3.0), StopNow::kMaxTime);
}

TEST(BenchMath, SignalsEveryCqModThWrAndTheLast) {
  // A post list of 4 from WR 96 with cq_mod 100: WR 99 (the 100th) is signalled.
  EXPECT_FALSE(Signalled(96, 0, 100, false));
  EXPECT_FALSE(Signalled(96, 2, 100, false));
  EXPECT_TRUE(Signalled(96, 3, 100, false));
  EXPECT_TRUE(Signalled(5, 0, 100, true));
  for (int j = 0; j < 4; ++j) EXPECT_TRUE(Signalled(0, j, 1, false));
}

TEST(BenchMath, CqModAndInlineDefaultsArePerftests) {
  BenchSettings s;
  s.size = 65536;
  EXPECT_EQ(EffectiveCqMod(s), 1);  // large messages: moderation off unless asked
  s.size = 8192;
  EXPECT_EQ(EffectiveCqMod(s), 100);
  s.tx_depth = 16;
  EXPECT_EQ(EffectiveCqMod(s), 16);  // capped at the send queue
  s.cq_mod = 4;
  EXPECT_EQ(EffectiveCqMod(s), 4);
  s.size = 1 << 20;
  EXPECT_EQ(EffectiveCqMod(s), 4);  // asked for: kept
  EXPECT_EQ(EffectiveInline(s), 0u);
  s.mode = BenchMode::kLatency;
  EXPECT_EQ(EffectiveInline(s), 220u);
  s.inline_size = 0;
  EXPECT_EQ(EffectiveInline(s), 0u);
}

TEST(BenchMath, MtuAtMostTheActiveOne) {
  EXPECT_EQ(ChooseBenchMtu(0, 1024).bytes, 1024);
  EXPECT_EQ(ChooseBenchMtu(512, 1024).bytes, 512);
  MtuChoice above = ChooseBenchMtu(4096, 1024);
  EXPECT_EQ(above.bytes, 0);
  EXPECT_NE(above.error.find("above the ports' active_mtu 1024"), std::string::npos) << above.error;
  EXPECT_NE(ChooseBenchMtu(1500, 4096).error.find("not an IB path MTU"), std::string::npos);
}

TEST(BenchMath, ScaleTimesCorrectsARunTimedOnAFastClock) {
  BenchResult r;
  r.seconds = 1.0;
  r.bw_avg_gbps = 0.4;
  r.bw_peak_gbps = 0.5;
  r.msg_rate_mpps = 0.001;
  r.slice_gbps = {0.4, 0.5};
  r.lat.median_us = 50;
  r.lat.p99_us = 100;
  ScaleTimes(1.04, &r);  // each clock second was 1.04 s
  EXPECT_DOUBLE_EQ(r.seconds, 1.04);
  EXPECT_DOUBLE_EQ(r.bw_avg_gbps, 0.4 / 1.04);
  EXPECT_DOUBLE_EQ(r.slice_gbps[1], 0.5 / 1.04);
  EXPECT_DOUBLE_EQ(r.lat.median_us, 52);
  EXPECT_DOUBLE_EQ(r.lat.p99_us, 104);
  BenchResult same = r;
  ScaleTimes(1.0, &same);
  ScaleTimes(0, &same);  // no measurement: unchanged
  EXPECT_DOUBLE_EQ(same.seconds, r.seconds);
}

TEST(BenchMath, ConcurrentThreadsAddUp) {
  BenchResult a, b;
  a.messages = 100;
  a.bytes = 100 * 65536;
  a.seconds = 1.0;
  a.bw_avg_gbps = 0.2;
  a.msg_rate_mpps = 0.0001;
  a.slice_gbps = {0.19, 0.21, 0.2};
  a.stable = true;
  b = a;
  b.seconds = 1.1;
  b.bw_avg_gbps = 0.15;
  b.slice_gbps = {0.14, 0.3};
  BenchResult r;
  AddConcurrent({a, b}, &r);
  EXPECT_EQ(r.messages, 200u);
  EXPECT_EQ(r.bytes, 200u * 65536);
  EXPECT_DOUBLE_EQ(r.seconds, 1.1);
  EXPECT_DOUBLE_EQ(r.bw_avg_gbps, 0.35);
  ASSERT_EQ(r.slice_gbps.size(), 2u);  // as many slices as every thread has
  EXPECT_DOUBLE_EQ(r.slice_gbps[1], 0.51);
  EXPECT_DOUBLE_EQ(r.bw_peak_gbps, 0.51);
  EXPECT_TRUE(r.stable);
  EXPECT_EQ(r.end, BenchEnd::kOk);
  // The first thread that ended badly gives the run its end.
  b.end = BenchEnd::kStalled;
  b.failure = "no completion for 2 s";
  b.stable = false;
  BenchResult bad;
  AddConcurrent({a, b}, &bad);
  EXPECT_EQ(bad.end, BenchEnd::kStalled);
  EXPECT_EQ(bad.failure, "thread 1: no completion for 2 s");
  EXPECT_FALSE(bad.stable);
}

}  // namespace
}  // namespace rdmacheck
