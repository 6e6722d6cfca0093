#include "checks/latency.h"

#include "acts/testing/fake_device.h"
#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

DeviceView Live() {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.source = "live";
  return v;
}

BenchResult Lat(double median) {
  BenchResult r;
  r.device = "rxe0";
  r.peer_device = "rxe1";
  r.settings.mode = BenchMode::kLatency;
  r.settings.size = 2;
  r.settings.iters = 1000;
  r.settings.mtu = 4096;
  r.lat = {1000, median * 0.8, median, median * 1.1, median * 0.1, median * 2, median * 3, median * 4};
  r.messages = 1000;
  r.qp_state = "RTS";
  return r;
}

Result RunLat(const Plan& plan, absl::StatusOr<BenchResult> answer, testing::FakeDevice& fake) {
  fake.bench.Always(std::move(answer));
  return testing::RunOnViewWithFake(LatencyCheck(), Live(), plan, fake);
}

TEST(Latency, SkipsOnAProfile) {
  Result r = testing::RunOn(LatencyCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_EQ(r.skip_reason, "latency run needs a live device");
}

TEST(Latency, WithoutAPlanMaximumTheFiguresAreEvidence) {
  testing::FakeDevice fake;
  Result r = RunLat(FixturePlan(""), Lat(42.5), fake);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 -> rxe1 RDMA WRITE latency (median)", "42.50 us (min 34.00", Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("no [perf] max_write_lat_us in the plan"));
  ASSERT_EQ(fake.bench.calls(), 1);
  EXPECT_EQ(fake.bench.requests()[0].settings.mode, BenchMode::kLatency);
  EXPECT_EQ(fake.bench.requests()[0].settings.size, 2u);
  EXPECT_EQ(fake.bench.requests()[0].settings.iters, 1000u);
}

TEST(Latency, PlanMaximumPassesAndFails) {
  testing::FakeDevice ok;
  Result pass = RunLat(FixturePlan("rxe_guest_perf.plan"), Lat(120), ok);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  EXPECT_THAT(pass.evidence[0].expected, HasSubstr("<= 1000.00 us ("));
  EXPECT_THAT(pass.evidence[0].expected, HasSubstr("rxe_guest_perf.plan:35 max_write_lat_us)"));
  testing::FakeDevice slow;
  Result fail = RunLat(FixturePlan("rxe_guest_perf.plan"), Lat(5100), slow);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  EXPECT_THAT(fail.evidence, Contains(EvidenceRow("latency (median)", "5100.00 us", Verdict::kFail)));
  EXPECT_THAT(fail.remediation, Contains(HasSubstr("tc qdisc show dev va")));
}

// min 19 us, median 3969 us (measured in the guest while the host was busy
// building): the round trips waited for a CPU. The check says so and puts
// the CPU first; a median near the minimum says nothing of CPUs.
TEST(Latency, MillisecondsAboveAFastMinimumAreCpuWaits) {
  BenchResult starved = Lat(3969.53);
  starved.lat.min_us = 19.13;
  testing::FakeDevice fake;
  Result r = RunLat(FixturePlan("rxe_guest_perf.plan"), starved, fake);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.notes, Contains(HasSubstr("the median is 208x the fastest round trip (19.13 us): most samples waited "
                                          "for a CPU")));
  ASSERT_FALSE(r.remediation.empty());
  EXPECT_THAT(r.remediation[0], HasSubstr("top -b -n 1 | head -20"));
  EXPECT_THAT(r.remediation[0], HasSubstr("rdmacheck bench -d rxe0 --lat --pin CPU"));
  testing::FakeDevice fake2;
  Result netem = RunLat(FixturePlan("rxe_guest_perf.plan"), Lat(5100), fake2);  // min 4080 us
  EXPECT_THAT(AllText(netem), Not(HasSubstr("waited for a CPU")));
}

TEST(Latency, TheNetemTheGatherReadIsNamedFirst) {
  testing::FakeDevice fake;
  fake.bench.Always(Lat(2600));
  DeviceView v = Live();
  for (NetdevInfo& n : v.netdevs) {
    n.qdiscs_known = true;
    if (n.name == "va") n.qdiscs = {Qdisc{"netem", "root", std::nullopt, std::nullopt, std::nullopt, 5000, std::nullopt}};
  }
  Result r = testing::RunOnViewWithFake(LatencyCheck(), v, FixturePlan("rxe_guest_perf.plan"), fake);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  ASSERT_FALSE(r.remediation.empty());
  EXPECT_EQ(r.remediation[0],
            "tc qdisc show dev va   # netem root delay 5ms: delays every packet va sends by 5.00 ms; remove it: tc qdisc del dev va root");
}

TEST(Latency, AStalledRunFails) {
  testing::FakeDevice fake;
  BenchResult stalled = Lat(0);
  stalled.end = BenchEnd::kStalled;
  stalled.failure = "WRITE 1 from rxe0 not seen at rxe1 within 2 s";
  fake.traffic_probe.Always(absl::UnavailableError("probe not possible"));
  Result r = RunLat(FixturePlan(""), stalled, fake);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("latency run", "stalled: WRITE 1 from rxe0 not seen", Verdict::kFail)));
  EXPECT_THAT(AllText(r), HasSubstr("the exchange that would tell why could not run"));
}

}  // namespace
}  // namespace rdmacheck
