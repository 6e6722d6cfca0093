#include "acts/bench/sweep.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A node whose bandwidth saturates with size at 0.4 Gb/s, gains 10 % per
// doubling of QPs up to 4, loses with CQ moderation above 4, and does not
// care about post list, MTU or pinning: the shapes rxe has shown.
class FakeRunner : public PointRunner {
 public:
  absl::StatusOr<BenchResult> Run(const BenchSettings& s) override {
    runs.push_back(s);
    BenchResult r;
    r.settings = s;
    r.messages = 1000;
    double bw = 0.4 * std::min(1.0, s.size / 16384.0);
    bw *= 1 + 0.1 * std::log2(std::min(s.qps, 4));
    if (s.cq_mod > 4) bw *= 0.6;
    r.bw_avg_gbps = bw;
    r.slice_gbps = {bw, bw * 1.01, bw * 0.99};
    if (s.mode == BenchMode::kLatency) r.lat.median_us = 10.0 / (1 + s.qps);
    return r;
  }
  absl::StatusOr<int> ActiveMtu() override { return active; }
  int active = 1024;
  std::vector<BenchSettings> runs;
};

TEST(Sweep, ParsesDimensionsAndAll) {
  ASSERT_OK_AND_ASSIGN(std::vector<SweepDim> d, ParseSweepDims("qp,size,qps"));
  EXPECT_THAT(d, ElementsAre(SweepDim::kQps, SweepDim::kSize));
  ASSERT_OK_AND_ASSIGN(std::vector<SweepDim> all, ParseSweepDims("all"));
  EXPECT_EQ(all.size(), 6u);
  ASSERT_OK_AND_ASSIGN(std::vector<SweepDim> dashed, ParseSweepDims("post-list,cq_mod"));
  EXPECT_THAT(dashed, ElementsAre(SweepDim::kPostList, SweepDim::kCqMod));
  absl::StatusOr<std::vector<SweepDim>> bad = ParseSweepDims("size,speed");
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("unknown sweep dimension 'speed'"));
  EXPECT_FALSE(ParseSweepDims("").ok());
}

TEST(Sweep, MtuPointsStopAtTheActiveMtuAndSayWhy) {
  std::vector<std::string> skipped;
  std::vector<SweepPoint> pts = PointsOf(SweepDim::kMtu, BenchSettings{}, 1024, 1, &skipped);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].settings.mtu, 512);
  EXPECT_EQ(pts[1].settings.mtu, 1024);
  EXPECT_TRUE(pts[1].is_default);  // mtu 0: the active one
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_THAT(skipped[0], HasSubstr("mtu 2048 not measured: above the ports' active_mtu 1024"));
  EXPECT_THAT(skipped[0], HasSubstr("the MTU sweep stops at 1024"));
}

TEST(Sweep, TheStudysPointsAbout30) {
  std::vector<std::string> skipped;
  size_t n = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<SweepDim> all, ParseSweepDims("all"));
  for (SweepDim d : all) n += PointsOf(d, BenchSettings{}, 4096, 1, &skipped).size();
  EXPECT_EQ(n, 8u + 4 + 4 + 6 + 6 + 2);
  EXPECT_TRUE(skipped.empty());
  // A base value off the grid is measured too, as the default.
  BenchSettings b;
  b.size = 5000;
  std::vector<SweepPoint> sizes = PointsOf(SweepDim::kSize, b, 4096, 1, &skipped);
  EXPECT_EQ(sizes.size(), 9u);
  int defaults = 0;
  for (const SweepPoint& p : sizes) defaults += p.is_default ? 1 : 0;
  EXPECT_EQ(defaults, 1);
  std::vector<SweepPoint> pin = PointsOf(SweepDim::kPin, b, 4096, 3, &skipped);
  ASSERT_EQ(pin.size(), 2u);
  EXPECT_TRUE(pin[0].settings.pin_cpus.empty());
  EXPECT_THAT(pin[1].settings.pin_cpus, ElementsAre(3));
  EXPECT_EQ(pin[1].value, "pinned to CPU 3");
}

TEST(Sweep, RunsEveryPointAndReportsProgress) {
  FakeRunner fake;
  int calls = 0, total = 0;
  SweepResult sw = RunSweep(fake, BenchSettings{}, {SweepDim::kQps, SweepDim::kMtu}, 1,
                            [&](int done, int all, const SweepRow&) {
                              ++calls;
                              total = all;
                              EXPECT_EQ(done, calls);
                            });
  EXPECT_EQ(sw.rows.size(), 6u);  // 4 QP counts, MTU 512 and 1024
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(total, 6);
  EXPECT_EQ(sw.notes.size(), 2u);
  EXPECT_EQ(fake.runs[3].qps, 8);
}

TEST(Sweep, AdvisesOnlyWhatWasMeasured) {
  FakeRunner fake;
  BenchSettings base;
  SweepResult sw =
      RunSweep(fake, base, {SweepDim::kSize, SweepDim::kQps, SweepDim::kPostList, SweepDim::kCqMod}, 1, nullptr);
  fake.runs.clear();
  Advice a = Advise(sw, base, &fake);
  ASSERT_EQ(a.dims.size(), 4u);
  EXPECT_THAT(a.dims[0].statement, HasSubstr("messages of 16384 bytes or more reach 90 % of it"));
  EXPECT_TRUE(a.dims[1].changed);
  EXPECT_EQ(a.dims[1].best_value, "4");
  EXPECT_THAT(a.dims[1].statement, HasSubstr("use -q 4"));
  EXPECT_FALSE(a.dims[2].changed);  // post list: all equal
  EXPECT_THAT(a.dims[2].statement, HasSubstr("nothing beat the default 1"));
  EXPECT_THAT(a.dims[2].statement, ::testing::Not(HasSubstr("worse")));
  EXPECT_FALSE(a.dims[3].changed);
  EXPECT_THAT(a.dims[3].statement, HasSubstr("8 measured worse"));  // moderation hurts here, so it is said
  // The combination (-q 4) and the default re-measured, one after the other.
  ASSERT_EQ(fake.runs.size(), 2u);
  EXPECT_EQ(fake.runs[0].qps, 1);
  EXPECT_EQ(fake.runs[1].qps, 4);
  ASSERT_TRUE(a.combined.has_value());
  EXPECT_THAT(a.lines.back(), HasSubstr("combined (-q 4)"));
  EXPECT_THAT(a.lines.back(), HasSubstr("+20.0 %"));
}

TEST(Sweep, NothingToCombineWhenTheDefaultsWin) {
  FakeRunner fake;
  SweepResult sw = RunSweep(fake, BenchSettings{}, {SweepDim::kPostList}, 1, nullptr);
  fake.runs.clear();
  Advice a = Advise(sw, BenchSettings{}, &fake);
  EXPECT_TRUE(fake.runs.empty());
  EXPECT_FALSE(a.combined_settings.has_value());
  EXPECT_THAT(a.lines.back(), HasSubstr("keep the defaults"));
}

TEST(Sweep, LatencyLowerIsBetter) {
  FakeRunner fake;
  BenchSettings base;
  base.mode = BenchMode::kLatency;
  SweepResult sw = RunSweep(fake, base, {SweepDim::kQps}, 1, nullptr);
  Advice a = Advise(sw, base, nullptr);
  ASSERT_EQ(a.dims.size(), 1u);
  EXPECT_EQ(a.dims[0].best_value, "8");
  EXPECT_THAT(a.dims[0].statement, HasSubstr("us against"));
  EXPECT_TRUE(a.combined_settings.has_value());
  EXPECT_FALSE(a.combined.has_value());  // no runner: not re-measured
}

}  // namespace
}  // namespace rdmacheck
