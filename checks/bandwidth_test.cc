#include "checks/bandwidth.h"

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

DeviceView Live(const std::string& profile) {
  DeviceView v = FixtureProfile(profile);
  v.source = "live";
  return v;
}

BenchResult Measured(const std::string& dev, const std::string& peer, double gbps) {
  BenchResult r;
  r.device = dev;
  r.peer_device = peer;
  r.settings.size = 65536;
  r.settings.mtu = 4096;
  r.settings.cq_mod = 1;
  r.active_mtu = 4096;
  r.messages = 800;
  r.bytes = 800ull * 65536;
  r.seconds = r.bytes * 8 / (gbps * 1e9);
  r.bw_avg_gbps = gbps;
  r.bw_peak_gbps = gbps * 1.05;
  r.stable = true;
  r.qp_state = "RTS";
  return r;
}

Result RunBw(const DeviceView& v, const Plan& plan, absl::StatusOr<BenchResult> answer, testing::FakeDevice& fake) {
  fake.bench.Always(std::move(answer));
  return testing::RunOnViewWithFake(BandwidthCheck(), v, plan, fake);
}

TEST(Bandwidth, SkipsOnAProfile) {
  Result r = testing::RunOn(BandwidthCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_EQ(r.skip_reason, "bandwidth run needs a live device");
}

TEST(Bandwidth, SoftDeviceWithoutAPlanMinimumIsEvidenceOnly) {
  testing::FakeDevice fake;
  Result r = RunBw(Live("rxe_mtu9000.profile"), FixturePlan(""), Measured("rxe0", "rxe1", 0.39), fake);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 -> rxe1 RDMA WRITE bandwidth", "0.390 Gb/s", Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("is nominal, so no threshold applies without [perf] min_write_bw_gbps"));
  // The pair the probes use, and a run that stops once stable.
  ASSERT_EQ(fake.bench.calls(), 1);
  const testing::BenchCall& call = fake.bench.requests()[0];
  EXPECT_EQ(call.ends.device, "rxe0");
  EXPECT_EQ(call.ends.peer_device, "rxe1");
  EXPECT_EQ(*call.ends.gid_index, 1);
  EXPECT_EQ(call.settings.size, 65536u);
  ASSERT_TRUE(call.settings.stop.has_value());
  EXPECT_LE(call.settings.stop->max_s, 1.2);
}

TEST(Bandwidth, PlanMinimumPassesAndFailsWithTheCauses) {
  testing::FakeDevice ok;
  Result pass = RunBw(Live("rxe_mtu9000.profile"), FixturePlan("rxe_guest_perf.plan"), Measured("rxe0", "rxe1", 0.39), ok);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  EXPECT_THAT(pass.evidence[0].expected, HasSubstr(">= 0.070 Gb/s ("));
  EXPECT_THAT(pass.evidence[0].expected, HasSubstr("rxe_guest_perf.plan:34 min_write_bw_gbps)"));
  EXPECT_TRUE(pass.remediation.empty());

  testing::FakeDevice slow;
  Result fail = RunBw(Live("rxe_mtu9000.profile"), FixturePlan("rxe_guest_perf.plan"), Measured("rxe0", "rxe1", 0.048), slow);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  EXPECT_THAT(fail.evidence, Contains(EvidenceRow("rxe0 -> rxe1 RDMA WRITE bandwidth", "0.048 Gb/s", Verdict::kFail)));
  ASSERT_FALSE(fail.remediation.empty());
  EXPECT_THAT(fail.remediation[0], HasSubstr("tc qdisc show dev va; tc qdisc show dev vb"));
  EXPECT_THAT(AllText(fail), HasSubstr("ip link show dev va"));
  EXPECT_THAT(AllText(fail), HasSubstr("--sweep pin,qp --advise"));
}

TEST(Bandwidth, HardwareAgainstThePortRate) {
  struct Case {
    double gbps;
    Verdict want;
  } cases[] = {{97, Verdict::kPass}, {92, Verdict::kWarn}, {80, Verdict::kFail}};
  for (const Case& c : cases) {
    testing::FakeDevice fake;
    Result r = RunBw(Live("mlx5_cx6.profile"), FixturePlan(""), Measured("mlx5_0", "mlx5_0", c.gbps), fake);
    EXPECT_EQ(r.verdict, c.want) << c.gbps;
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("of the port's rate", "%", c.want))) << c.gbps;
    EXPECT_THAT(r.evidence[0].expected, HasSubstr(">= 90 % of 100 Gb/s (4X EDR) = 90.000 Gb/s")) << c.gbps;
    if (c.want == Verdict::kFail) EXPECT_THAT(AllText(r), HasSubstr("numa_node"));
  }
}

TEST(Bandwidth, AStalledRunIsClassifiedAsHungQpWould) {
  testing::FakeDevice fake;
  BenchResult stalled = Measured("rxe0", "rxe1", 0);
  stalled.end = BenchEnd::kStalled;
  stalled.failure = "no completion for 2 s with 128 WRs outstanding after 0 completed";
  stalled.messages = 0;
  // The exchange that tells why: retries exhausted, nothing received.
  ProbeResult blocked;
  blocked.device = "rxe0";
  blocked.peer_device = "rxe1";
  blocked.gid = "::ffff:198.18.0.1";
  blocked.peer_gid = "::ffff:198.18.0.2";
  blocked.counters_known = true;
  blocked.qp_state = "ERR";
  WrOutcome w;
  w.state = WrState::kError;
  w.wc_status = 12;
  w.wc_status_text = "transport retry counter exceeded";
  w.local_delta = {{"sent_pkts", 7}, {"retry_exceeded_err", 1}};
  w.peer_delta = {{"rcvd_pkts", 0}};
  blocked.wrs = {w};
  fake.traffic_probe.Always(blocked);
  Result r = RunBw(Live("rxe_mtu9000.profile"), FixturePlan("rxe_guest_perf.plan"), stalled, fake);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 -> rxe1 bandwidth run", "stalled: no completion for 2 s", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("cause", "path blocked", Verdict::kFail)));
  EXPECT_THAT(AllText(r), HasSubstr("nft list ruleset | grep 4791"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("tc qdisc show dev va")));  // a qdisc can read as any class
  EXPECT_EQ(fake.traffic_probe.calls(), 1);
}

// The guest's scenario 52: tbf rate 50mbit burst 32kbit on va, a bucket of
// 4094 bytes, smaller than the 4170-byte first packet of a WRITE at MTU 4096.
DeviceView WithQdisc(const std::string& netdev, const Qdisc& q) {
  DeviceView v = Live("rxe_mtu9000.profile");
  for (NetdevInfo& n : v.netdevs) {
    n.qdiscs_known = true;
    if (n.name == netdev) n.qdiscs = {q};
  }
  return v;
}
const Qdisc kSmallTbf{"tbf", "root", 50000000, 4094, std::nullopt, std::nullopt, std::nullopt};

TEST(Bandwidth, ATokenBucketSmallerThanAFrameFailsAndTheRunFitsUnderIt) {
  testing::FakeDevice fake;
  BenchResult capped = Measured("rxe0", "rxe1", 0.047);
  capped.settings.mtu = 2048;
  Result r = RunBw(WithQdisc("va", kSmallTbf), FixturePlan("rxe_guest_perf.plan"), capped, fake);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("va qdisc tbf root rate 50Mbit burst 4094b",
                                               "passes frames of at most 4094 B", Verdict::kFail)));
  EXPECT_THAT(AllText(r), HasSubstr("passes the RoCE frames of path MTU 4096 (4170 B)"));
  EXPECT_THAT(AllText(r), HasSubstr("measured at path MTU 2048, the largest whose frames (2122 B)"));
  EXPECT_THAT(AllText(r), HasSubstr("tc qdisc replace dev va root tbf rate 50mbit burst 64kb"));
  // The run itself never sends a full-size packet into the bucket.
  ASSERT_EQ(fake.bench.calls(), 1);
  EXPECT_EQ(fake.bench.requests()[0].settings.mtu, 2048);
  // The figure under the plan's minimum names the qdisc first among the causes.
  EXPECT_THAT(r.remediation, Contains(HasSubstr("tc qdisc show dev va   # tbf root rate 50Mbit burst 4094b: caps RoCE")));
}

TEST(Bandwidth, AQdiscThatPassesFramesChangesNothingAndNoneFittingRunsNothing) {
  testing::FakeDevice big;
  Qdisc roomy = kSmallTbf;
  roomy.burst_bytes = 32762;
  Result pass = RunBw(WithQdisc("va", roomy), FixturePlan("rxe_guest_perf.plan"), Measured("rxe0", "rxe1", 0.39), big);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  ASSERT_EQ(big.bench.calls(), 1);
  EXPECT_EQ(big.bench.requests()[0].settings.mtu, 0);
  // On the receiving netdev only the ACKs leave through it: no change either.
  testing::FakeDevice far;
  Result peer_side = RunBw(WithQdisc("vb", kSmallTbf), FixturePlan("rxe_guest_perf.plan"), Measured("rxe0", "rxe1", 0.39), far);
  EXPECT_EQ(peer_side.verdict, Verdict::kPass);
  EXPECT_EQ(far.bench.requests()[0].settings.mtu, 0);

  testing::FakeDevice none;
  Qdisc tiny = kSmallTbf;
  tiny.burst_bytes = 200;
  Result fail = RunBw(WithQdisc("va", tiny), FixturePlan("rxe_guest_perf.plan"), Measured("rxe0", "rxe1", 0.39), none);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  EXPECT_EQ(none.bench.calls(), 0);
  EXPECT_THAT(AllText(fail), HasSubstr("not measured: no path MTU down to 256"));
}

TEST(Bandwidth, SetupProblemsAreNamed) {
  testing::FakeDevice fake;
  Result r = RunBw(Live("rxe_mtu9000.profile"), FixturePlan(""),
                 absl::FailedPreconditionError("the run registers 262144 bytes but RLIMIT_MEMLOCK is 65536 bytes"), fake);
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("bandwidth run setup rxe0 -> rxe1", "RLIMIT_MEMLOCK", Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("rdmacheck --checks memlock -d rxe0")));
  testing::FakeDevice down;
  Result d = RunBw(Live("rxe_mtu9000.profile"), FixturePlan(""),
                 absl::FailedPreconditionError("rxe1 port 1 is PORT_DOWN, not ACTIVE"), down);
  EXPECT_EQ(d.verdict, Verdict::kWarn);  // port-active FAILs it
  EXPECT_THAT(d.remediation, Contains(HasSubstr("--checks port-active")));
}

}  // namespace
}  // namespace rdmacheck
