#include "checks/sge_page_crossing.h"

#include <memory>

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

// Plays the probe: every WR of the request completes (or, from `fail_at`,
// the first one fails as a blocked path would), SGEs crossing as asked, and
// the 2 MiB WRs skipped unless `huge`.
ProbeResult PlayProbe(const ProbeRequest& req, uint32_t granted, bool huge, int fail_at) {
  ProbeResult r;
  r.device = req.device;
  r.peer_device = req.peer_device.empty() ? req.device : req.peer_device;
  r.gid = "::ffff:198.18.0.1";
  r.peer_gid = "::ffff:198.18.0.2";
  r.gid_index = r.peer_gid_index = 1;
  r.path_mtu = 4096;
  r.retry_cnt = req.retry_cnt;
  r.timeout = req.timeout;
  r.deadline_s = req.deadline_s;
  r.requested_send_sge = 32;
  r.granted_send_sge = granted;
  r.counters_known = true;
  r.qp_state = "RTS";
  bool failed = false;
  for (size_t i = 0; i < req.wrs.size(); ++i) {
    WrOutcome w;
    w.index = static_cast<int>(i);
    w.spec = req.wrs[i];
    w.num_sge = w.spec.num_sge == 0 ? granted : w.spec.num_sge;
    w.total_bytes = static_cast<uint64_t>(w.num_sge) * w.spec.bytes;
    w.qp_state_before = "RTS";
    if (w.num_sge > granted) {
      w.skip_reason = "over granted";
    } else if (w.spec.straddle >= kPage2M && !huge) {
      w.skip_reason = "no huge pages";
    } else if (failed) {
      // not posted
    } else if (static_cast<int>(i) == fail_at) {
      w.state = WrState::kNoCompletion;
      w.seconds = req.deadline_s;
      w.sges_crossing = static_cast<int>(w.num_sge);
      w.local_delta = {{"sent_pkts", 3}};
      w.peer_delta = {{"rcvd_pkts", 0}};
      failed = true;
      r.qp_state = "RTS";
    } else {
      w.state = WrState::kCompleted;
      w.verified = true;
      w.sges_crossing = static_cast<int>(w.num_sge);
      w.seconds = 0.001;
    }
    r.wrs.push_back(w);
  }
  r.seconds = 0.9;
  r.setup_seconds = 0.1;
  r.wait_seconds = 0.4;
  r.counters_seconds = 0.25;
  r.bytes_seconds = 0.125;
  if (!huge) r.notes.push_back("no huge pages for 4 x 2 MiB (mmap: Cannot allocate memory): the 2 MiB-boundary WRs were skipped");
  return r;
}

Result RunLive(const std::string& profile, uint32_t granted, bool huge, int fail_at, ProbeRequest* seen,
               Options opts = Options()) {
  DeviceView v = FixtureProfile(profile);
  v.source = "live";
  Plan plan = FixturePlan("");
  if (!opts.device) opts.device = v.devices[0].name;
  testing::FakeDevice fake;
  fake.traffic_probe.With([=](const ProbeRequest& req) -> absl::StatusOr<ProbeResult> {
    return PlayProbe(req, granted, huge, fail_at);
  });
  Result r = testing::RunOnViewWithFake(SgePageCrossingCheck(), v, plan, fake, opts);
  fake.traffic_probe.CopyLastRequest(seen);
  return r;
}

TEST(SgePageCrossingTest, ProfileSkips) {
  Result r = testing::RunOnModel(SgePageCrossingCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_EQ(r.skip_reason, "traffic probe needs a live device");
}

TEST(SgePageCrossingTest, WrsCoverOneToMaxSgeBothOpsAndTwoMegabytes) {
  std::vector<WrSpec> w = SgePageCrossingCheck::Wrs(32);
  ASSERT_EQ(w.size(), 2u * 32 + 4);
  EXPECT_EQ(w[0].num_sge, 1u);
  EXPECT_EQ(w[31].num_sge, 32u);
  EXPECT_EQ(w[31].op, ProbeOp::kSend);
  EXPECT_EQ(w[32].op, ProbeOp::kRdmaWrite);
  EXPECT_EQ(w[0].straddle, kPage4K);
  EXPECT_EQ(w[64].straddle, kPage2M);
  EXPECT_EQ(w[65].num_sge, 3u);
}

TEST(SgePageCrossingTest, HealthyRxePassesWithEvidenceOfCrossingSges) {
  ProbeRequest seen;
  Result r = RunLive("rxe_mtu9000.profile", 32, false, -1, &seen);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_TRUE(seen.want_max_sge);
  EXPECT_EQ(seen.peer_device, "rxe1");
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 QP max_send_sge granted", "32", Verdict::kPass)));
  // 1 + 2 + ... + 32 = 528 SGEs, each crossing.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("SEND rxe0 -> rxe1, SGEs of 256 B each crossing a 4 KiB boundary",
                                               "32 of 32 completed and verified, up to 32 SGEs: 528 of 528 SGEs crossing a 4 KiB page, 135168 B",
                                               Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("RDMA_WRITE rxe0 -> rxe1", "32 of 32", Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("2 MiB part skipped; sysctl vm.nr_hugepages=4"));
  EXPECT_THAT(r.evidence, Not(Contains(EvidenceRow("2 MiB", "", Verdict::kPass))));
  // Where the probe's time went, as the probe measured it.
  EXPECT_THAT(r.notes, Contains("64 WRs in 900.00 ms: set up 100.00 ms, posting and completions 400.00 ms, "
                                "hw_counters read 250.00 ms, bytes written and compared 125.00 ms"));
}

TEST(SgePageCrossingTest, WithHugePagesTheTwoMegabytePartRuns) {
  Result r = RunLive("rxe_mtu9000.profile", 32, true, -1, nullptr);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("SEND rxe0 -> rxe1, SGEs of 4096 B each crossing a 2 MiB boundary",
                                               "2 of 2 completed and verified, up to 3 SGEs", Verdict::kPass)));
}

TEST(SgePageCrossingTest, AStuckWrFailsWithTheHungQpClassification) {
  // WR 5: SEND with 6 SGEs.
  Result r = RunLive("rxe_mtu9000.profile", 32, false, 5, nullptr);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("SEND rxe0 -> rxe1", "5 of 6 completed; WR 5 with 6 SGEs (6 crossing): no completion after 2.00 s", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("cause", "path blocked", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("rdmacheck --checks sge-page-crossing -d rxe0")));
}

TEST(SgePageCrossingTest, LegacyTableOnlyWarnsAndOnlyWhenAskedFor) {
  Result quiet = RunLive("qib_legacy.profile", 32, false, -1, nullptr);
  EXPECT_EQ(quiet.verdict, Verdict::kPass) << AllText(quiet);
  Options opts;
  opts.suspect_legacy_sge = true;
  Result r = RunLive("qib_legacy.profile", 32, false, -1, nullptr, opts);
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("qib0 driver", "qib: unverified", Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("one SGE per page")));
  // rxe is not in the table.
  Result rxe = RunLive("rxe_mtu9000.profile", 32, false, -1, nullptr, opts);
  EXPECT_EQ(rxe.verdict, Verdict::kPass);
}

TEST(SgePageCrossingTest, EveryTableEntrySaysItIsUnverified) {
  for (const SuspectedSgeDriver& s : SuspectedSgeDrivers()) {
    EXPECT_THAT(std::string(s.reason), HasSubstr("unverified")) << s.driver;
  }
}

}  // namespace
}  // namespace rdmacheck
