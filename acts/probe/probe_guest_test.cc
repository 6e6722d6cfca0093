// Needs rxe0 and rxe1 (tag "guest": the Soft-RoCE guest, rxe0 on veth va,
// rxe1 on vb). Without them it SKIPs, unless RDMACHECK_GUEST=1 (set by
// ci/guest/guest-main.sh) makes that a failure.
#include "acts/testing/guest_pair.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "acts/probe/classify.h"
#include "acts/probe/probe.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

class ProbeGuestTest : public testing::GuestPairTest {};

TEST_F(ProbeGuestTest, Rxe0ToRxe1SendsAndWritesEveryByte) {
  ProbeRequest req;
  req.device = "rxe0";
  req.peer_device = "rxe1";
  req.wrs = {{ProbeOp::kSend, 64}, {ProbeOp::kSend, 10000}, {ProbeOp::kRdmaWrite, 70000}};
  ASSERT_OK_AND_ASSIGN(ProbeResult r, RunTrafficProbe(req));
  EXPECT_FALSE(r.loopback);
  EXPECT_EQ(r.gid_index, 1);  // ::ffff:198.18.0.1, the IPv4-mapped RoCE v2 GID
  EXPECT_EQ(r.gid, "::ffff:198.18.0.1");
  EXPECT_EQ(r.peer_gid, "::ffff:198.18.0.2");
  EXPECT_EQ(r.path_mtu, 4096);
  ASSERT_EQ(r.wrs.size(), 3u);
  for (const WrOutcome& w : r.wrs) {
    EXPECT_EQ(w.state, WrState::kCompleted) << w.index << " " << w.wc_status_text;
    EXPECT_TRUE(w.verified) << w.index;
  }
  EXPECT_EQ(ClassifyProbe(r).cls, HangClass::kHealthy);
  EXPECT_TRUE(r.counters_known);
  EXPECT_GT(CounterDelta(r.counters_before, r.counters_after)["sent_pkts"], 0u);
  EXPECT_GT(CounterDelta(r.peer_counters_before, r.peer_counters_after)["rcvd_pkts"], 0u);
  EXPECT_EQ(r.qp_state, "RTS");
  // The time split covers the WRs' time and no more.
  EXPECT_GT(r.wait_seconds, 0);
  EXPECT_GT(r.counters_seconds, 0);
  EXPECT_GT(r.bytes_seconds, 0);
  EXPECT_LE(r.setup_seconds + r.wait_seconds + r.counters_seconds + r.bytes_seconds, r.seconds);
}

TEST_F(ProbeGuestTest, LoopbackOnOneDevice) {
  ProbeRequest req;
  req.device = "rxe0";
  req.wrs = {{ProbeOp::kSend, 5000}, {ProbeOp::kRdmaWrite, 5000}};
  ASSERT_OK_AND_ASSIGN(ProbeResult r, RunTrafficProbe(req));
  EXPECT_TRUE(r.loopback);
  EXPECT_EQ(r.CompletedCount(), 2);
}

TEST_F(ProbeGuestTest, EverySgeCrossesAPageUpToTheGrantedMax) {
  ProbeRequest req;
  req.device = "rxe0";
  req.peer_device = "rxe1";
  req.want_max_sge = true;
  req.wrs = {{ProbeOp::kSend, 256, 1, kPage4K}, {ProbeOp::kRdmaWrite, 256, 0, kPage4K},
             {ProbeOp::kSend, 256, 0, kPage4K}};
  ASSERT_OK_AND_ASSIGN(ProbeResult r, RunTrafficProbe(req));
  EXPECT_GE(r.granted_send_sge, 2u);
  ASSERT_EQ(r.wrs.size(), 3u);
  EXPECT_EQ(r.wrs[2].num_sge, r.granted_send_sge);
  for (const WrOutcome& w : r.wrs) {
    EXPECT_TRUE(w.verified) << w.index << " " << WrStateName(w.state) << " " << w.wc_status_text;
    EXPECT_EQ(w.sges_crossing, static_cast<int>(w.num_sge)) << w.index;
  }
}

TEST_F(ProbeGuestTest, ForcedLinkLocalGidStillConnectsOrFailsWithTheCall) {
  ProbeRequest req;
  req.device = "rxe0";
  req.peer_device = "rxe1";
  req.gid_index = 7;  // empty on rxe
  req.wrs = {{ProbeOp::kSend, 64}};
  EXPECT_THAT(RunTrafficProbe(req), testing::StatusIs(absl::StatusCode::kNotFound, HasSubstr("GID index 7")));
}

}  // namespace
}  // namespace rdmacheck
