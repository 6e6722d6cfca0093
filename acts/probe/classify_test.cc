#include "acts/probe/classify.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

WrOutcome Ok(int i, uint64_t bytes) {
  WrOutcome w;
  w.index = i;
  w.num_sge = 1;
  w.total_bytes = bytes;
  w.state = WrState::kCompleted;
  w.verified = true;
  w.qp_state_before = "RTS";
  return w;
}

ProbeResult Base() {
  ProbeResult r;
  r.device = "rxe0";
  r.peer_device = "rxe1";
  r.path_mtu = 4096;
  r.counters_known = true;
  return r;
}

// A WR whose send ended with `status` (or no completion when status < 0),
// with the given counter deltas.
WrOutcome Stuck(int i, uint64_t bytes, int status, Counters local, Counters peer) {
  WrOutcome w;
  w.index = i;
  w.num_sge = 1;
  w.total_bytes = bytes;
  w.qp_state_before = "RTS";
  if (status < 0) {
    w.state = WrState::kNoCompletion;
    w.seconds = 2.0;
  } else {
    w.state = WrState::kError;
    w.wc_status = status;
    w.wc_status_text = "status text";
  }
  w.local_delta = std::move(local);
  w.peer_delta = std::move(peer);
  return w;
}

struct Case {
  const char* name;
  ProbeResult result;
  HangClass want;
  const char* why_has;
};

std::vector<Case> Cases() {
  std::vector<Case> cs;
  {
    ProbeResult r = Base();
    r.wrs = {Ok(0, 64), Ok(1, 65536)};
    cs.push_back({"healthy", r, HangClass::kHealthy, "2 WRs completed"});
  }
  {
    // The firewall case measured in the guest: rxe0 sends 7 tries, rxe1 sees none.
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, kWcRetryExcErr, {{"sent_pkts", 7}, {"retry_exceeded_err", 1}, {"send_err", 0}},
                   {{"rcvd_pkts", 0}, {"sent_pkts", 0}})};
    cs.push_back({"blocked path", r, HangClass::kPathBlocked, "sent_pkts +7"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, -1, {{"sent_pkts", 3}}, {{"rcvd_pkts", 0}})};
    cs.push_back({"blocked path, no completion yet", r, HangClass::kPathBlocked, "no completion after 2.00 s"});
  }
  {
    // Measured in the guest: rxe0 (2001:2::1 on va) to rxe1 (2001:2::2 on
    // vb), IPv6 GIDs, no firewall: 7 tries sent, none received (the route
    // to a local IPv6 address is through lo).
    ProbeResult r = Base();
    r.gid = "2001:2::1";
    r.peer_gid = "2001:2::2";
    r.wrs = {Stuck(0, 64, kWcRetryExcErr, {{"sent_pkts", 7}, {"retry_exceeded_err", 1}, {"completer_retry_err", 6}},
                   {{"rcvd_pkts", 0}, {"sent_pkts", 0}})};
    cs.push_back({"local ipv6 pair", r, HangClass::kLocalIpv6, "routes a local IPv6 destination through lo"});
  }
  {
    // The same signature over IPv4-mapped GIDs stays a blocked path.
    ProbeResult r = Base();
    r.gid = "::ffff:198.18.0.1";
    r.peer_gid = "::ffff:198.18.0.2";
    r.wrs = {Stuck(0, 64, kWcRetryExcErr, {{"sent_pkts", 7}}, {{"rcvd_pkts", 0}})};
    cs.push_back({"ipv4 pair blocked", r, HangClass::kPathBlocked, "none reached"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Ok(0, 64), Stuck(1, 12288, kWcRetryExcErr, {{"sent_pkts", 21}, {"send_err", 21}},
                              {{"rcvd_pkts", 0}})};
    cs.push_back({"mtu: send_err", r, HangClass::kMtuAbovePath, "send_err +21"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Ok(0, 64), Stuck(1, 12288, kWcRetryExcErr, {{"sent_pkts", 21}, {"send_err", 0}},
                              {{"rcvd_pkts", 0}})};
    cs.push_back({"mtu: small passes, big lost", r, HangClass::kMtuAbovePath, "under the path MTU 4096"});
  }
  {
    // The guest's nft output-chain drop of UDP 4791: rxe's first, 64-byte
    // SEND is refused by ip_local_out over and over, nothing leaves.
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, -1, {{"sent_pkts", 0}, {"rcvd_pkts", 0}, {"send_err", 176307}},
                   {{"sent_pkts", 0}, {"rcvd_pkts", 0}})};
    cs.push_back({"egress drop: a small WR refused", r, HangClass::kPathBlocked,
                  "refused to send packets of only 64 B (send_err): an output firewall rule"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, kWcRnrRetryExcErr, {}, {})};
    cs.push_back({"rnr", r, HangClass::kPeerNotReady, "RNR"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, kWcWrFlushErr, {}, {})};
    r.async_events = {"local catastrophic error on rxe0 (CQ_ERR)"};
    cs.push_back({"cq overrun wins over flush", r, HangClass::kCqOverrun, "CQ_ERR"});
  }
  {
    ProbeResult r = Base();
    WrOutcome w = Stuck(0, 64, kWcWrFlushErr, {}, {});
    cs.push_back({"flush first", [&] { r.wrs = {w}; return r; }(), HangClass::kQpInError, "look for the first error"});
  }
  {
    ProbeResult r = Base();
    WrOutcome w = Stuck(0, 64, -1, {}, {});
    w.qp_state_before = "ERR";
    r.wrs = {w};
    cs.push_back({"qp in error before post", r, HangClass::kQpInError, "before the post: ERR"});
  }
  {
    ProbeResult r = Base();
    WrOutcome w = Ok(0, 4096);
    w.verified = false;
    w.first_mismatch = 4000;
    r.wrs = {w};
    cs.push_back({"data mismatch", r, HangClass::kDataMismatch, "offset 4000"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, kWcRetryExcErr, {{"sent_pkts", 7}}, {{"rcvd_pkts", 7}})};
    cs.push_back({"peer receives, no ack", r, HangClass::kPeerNoAck, "received packets"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, kWcRetryExcErr, {{"sent_pkts", 0}}, {{"rcvd_pkts", 0}})};
    cs.push_back({"nothing sent", r, HangClass::kNotSent, "nothing left rxe0"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, kWcRetryExcErr, {}, {})};
    cs.push_back({"no counters", r, HangClass::kUndetermined, "no hw_counters"});
  }
  {
    ProbeResult r = Base();
    r.wrs = {Stuck(0, 64, 10, {}, {})};
    cs.push_back({"remote access", r, HangClass::kOtherError, "status 10"});
  }
  {
    ProbeResult r = Base();
    r.interrupted = true;
    r.wrs = {Stuck(0, 64, -1, {}, {})};
    cs.push_back({"sigint", r, HangClass::kInterrupted, "SIGINT"});
  }
  return cs;
}

TEST(ClassifyProbeTest, Table) {
  for (const Case& c : Cases()) {
    Diagnosis d = ClassifyProbe(c.result);
    EXPECT_EQ(d.cls, c.want) << c.name << ": got " << HangClassName(d.cls) << ": " << d.why;
    EXPECT_THAT(d.why, HasSubstr(c.why_has)) << c.name;
  }
}

TEST(ClassifyProbeTest, SkippedWrsAreNotFailures) {
  ProbeResult r = Base();
  WrOutcome skipped;
  skipped.index = 1;
  skipped.skip_reason = "no huge pages";
  r.wrs = {Ok(0, 64), skipped};
  EXPECT_EQ(ClassifyProbe(r).cls, HangClass::kHealthy);
  EXPECT_EQ(r.CompletedCount(), 1);
}

TEST(ClassifyProbeTest, BlockedPathNamesBothDevices) {
  ProbeResult r = Base();
  r.wrs = {Stuck(0, 64, kWcRetryExcErr, {{"sent_pkts", 7}}, {{"rcvd_pkts", 0}})};
  Diagnosis d = ClassifyProbe(r);
  EXPECT_THAT(d.why, HasSubstr("none reached rxe1"));
  EXPECT_THAT(d.why, HasSubstr("rxe1 rcvd_pkts +0"));
  EXPECT_THAT(d.why, HasSubstr("status 12"));
}

TEST(CounterDeltaTest, OnlyCommonCountersAndNoUnderflow) {
  Counters d = CounterDelta({{"a", 5}, {"b", 9}, {"gone", 1}}, {{"a", 12}, {"b", 3}, {"new", 4}});
  EXPECT_EQ(d, (Counters{{"a", 7}, {"b", 0}}));
}

TEST(FormatDeltaTest, NamesTheCountersThatMatterInOrder) {
  EXPECT_EQ(FormatDelta({{"rcvd_pkts", 0}, {"sent_pkts", 7}, {"ack_deferred", 3}}),
            "sent_pkts +7, rcvd_pkts +0");
  EXPECT_EQ(FormatDelta({}), "");
}

}  // namespace
}  // namespace rdmacheck
