#include "tools/watch/watch.h"

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

QpRecord Rc(const std::string& dev, uint32_t lqpn, const std::string& state, uint32_t sq, uint32_t rq,
            int64_t pid = 300, const std::string& comm = "app") {
  QpRecord q;
  q.ifname = dev;
  q.port = 1;
  q.lqpn = lqpn;
  q.rqpn = lqpn + 1;
  q.type = "RC";
  q.state = state;
  q.sq_psn = sq;
  q.rq_psn = rq;
  q.pid = pid;
  q.comm = comm;
  return q;
}

QpRecord Gsi(const std::string& dev) {
  QpRecord q;
  q.ifname = dev;
  q.port = 1;
  q.lqpn = 1;
  q.type = "GSI";
  q.state = "RTS";
  q.sq_psn = 0;
  q.comm = "ib_core";
  return q;
}

const WatchedQp* Find(const WatchReport& r, const std::string& dev, uint32_t lqpn) {
  for (const WatchedQp& q : r.qps)
    if (q.last.ifname == dev && q.last.lqpn == lqpn) return &q;
  return nullptr;
}

struct JudgeCase {
  const char* name;
  std::vector<QpRecord> samples;  // one QP, oldest first
  QpFlag want;
  const char* reason;
};

TEST(EvaluateSamples, JudgesEachQp) {
  const JudgeCase cases[] = {
      {"moving", {Rc("rxe0", 17, "RTS", 100, 5), Rc("rxe0", 17, "RTS", 90000, 5)}, QpFlag::kNone, ""},
      {"receiving", {Rc("rxe1", 17, "RTS", 0, 7), Rc("rxe1", 17, "RTS", 0, 9000)}, QpFlag::kNone, ""},
      {"psn wraps forward", {Rc("rxe0", 17, "RTS", 0xfffff0, 5), Rc("rxe0", 17, "RTS", 0x10, 5)}, QpFlag::kNone, ""},
      {"error", {Rc("rxe0", 17, "RTS", 100, 5), Rc("rxe0", 17, "ERR", 100, 5)}, QpFlag::kError, "state RTS -> ERR"},
      {"sqe", {Rc("rxe0", 17, "SQE", 100, 5), Rc("rxe0", 17, "SQE", 100, 5)}, QpFlag::kError, "state SQE -> SQE"},
      {"rewound", {Rc("rxe0", 17, "RTS", 5000, 5), Rc("rxe0", 17, "RTS", 4000, 5)}, QpFlag::kRetransmit,
       "sq-psn 5000 -> 4000 went back"},
      {"still", {Rc("rxe1", 17, "RTS", 3, 77), Rc("rxe1", 17, "RTS", 3, 77), Rc("rxe1", 17, "RTS", 3, 77)},
       QpFlag::kNoProgress, "sq-psn 3 -> 3 -> 3 and rq-psn 77 -> 77 -> 77 unchanged over 2 s"},
      {"connecting", {Rc("rxe0", 17, "INIT", 0, 0), Rc("rxe0", 17, "RTR", 0, 0)}, QpFlag::kNone, ""},
      {"responder receiving", {Rc("rxe1", 17, "RTR", 0, 10), Rc("rxe1", 17, "RTR", 0, 5000)}, QpFlag::kNone, ""},
      {"responder idle", {Rc("rxe1", 17, "RTR", 0, 10), Rc("rxe1", 17, "RTR", 0, 10)}, QpFlag::kNoProgress,
       "RTR (receive only), rq-psn 10 -> 10 unchanged over 1 s"},
  };
  for (const JudgeCase& c : cases) {
    std::vector<std::vector<QpRecord>> samples;
    for (const QpRecord& q : c.samples) samples.push_back({Gsi(q.ifname), q});
    WatchReport r = EvaluateSamples(samples, 1);
    const WatchedQp* q = Find(r, c.samples[0].ifname, 17);
    ASSERT_NE(q, nullptr) << c.name;
    EXPECT_EQ(q->flag, c.want) << c.name << ": " << q->reason;
    EXPECT_THAT(q->reason, HasSubstr(c.reason)) << c.name;
    EXPECT_EQ(r.flagged, c.want == QpFlag::kNone ? 0 : 1) << c.name;
    // Kernel GSI QPs are never judged on progress.
    EXPECT_EQ(Find(r, c.samples[0].ifname, 1)->flag, QpFlag::kNone) << c.name;
  }
}

TEST(EvaluateSamples, OneSampleJudgesStatesOnly) {
  WatchReport r = EvaluateSamples({{Rc("rxe0", 17, "RTS", 3, 3), Rc("rxe0", 18, "ERR", 3, 3)}}, 1);
  EXPECT_EQ(Find(r, "rxe0", 17)->flag, QpFlag::kNone);
  EXPECT_EQ(Find(r, "rxe0", 18)->flag, QpFlag::kError);
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("progress needs --count 2")));
}

TEST(EvaluateSamples, NewAndGoneQpsAreMarkedNotFlagged) {
  WatchReport r = EvaluateSamples({{Rc("rxe0", 17, "RTS", 3, 3)}, {Rc("rxe0", 18, "RTS", 3, 3)}}, 1);
  EXPECT_TRUE(Find(r, "rxe0", 17)->gone);
  EXPECT_TRUE(Find(r, "rxe0", 18)->appeared);
  EXPECT_EQ(r.flagged, 0);
  EXPECT_THAT(RenderWatchText(r), HasSubstr("(gone)"));
}

TEST(RenderWatch, TextAndJsonCarryTheFlagAndProcess) {
  WatchReport r = EvaluateSamples({{Rc("rxe1", 17, "RTS", 3, 77, 4242, "ib_write_bw")},
                                   {Rc("rxe1", 17, "RTS", 3, 77, 4242, "ib_write_bw")}},
                                  1);
  std::string text = RenderWatchText(r);
  EXPECT_THAT(text, HasSubstr("[no-progress] rxe1/1 qp 17 (pid 4242 ib_write_bw)"));
  EXPECT_THAT(text, HasSubstr("1 QPs, 1 flagged"));
  nlohmann::json j = nlohmann::json::parse(RenderWatchJson(r));
  EXPECT_EQ(j["schema"], "rdmacheck.watch/1");
  EXPECT_EQ(j["flagged"], 1);
  EXPECT_EQ(j["qps"][0]["pid"], 4242);
  EXPECT_EQ(j["qps"][0]["comm"], "ib_write_bw");
  EXPECT_EQ(j["qps"][0]["flag"], "no-progress");
  EXPECT_EQ(j["qps"][0]["rq_psn"][1], 77);
}

// A sampler that replays fixed samples, and a sleep that only counts.
struct Replay {
  std::vector<std::vector<QpRecord>> samples;
  size_t next = 0;
  int sleeps = 0;
  QpSampler sampler() {
    return [this]() -> absl::StatusOr<std::vector<QpRecord>> {
      if (next >= samples.size()) return absl::InternalError("'rdma -j -d res show qp' exited 1: gone");
      return samples[next++];
    };
  }
  std::function<bool(double)> sleep() {
    return [this](double) {
      ++sleeps;
      return true;
    };
  }
};

TEST(RunWatchCommand, CountIntervalFormatAndExitCodes) {
  Replay rp{{{Rc("rxe0", 17, "RTS", 1, 1), Rc("rxe1", 17, "RTS", 1, 1)},
             {Rc("rxe0", 17, "RTS", 9, 1), Rc("rxe1", 17, "RTS", 1, 1)}}};
  std::ostringstream out, err;
  WatchOptions o;
  o.count = 2;
  o.interval_s = 0.5;
  o.format = "json";
  o.device = "rxe1";
  int code = RunWatchCommand(o, out, err, rp.sampler(), rp.sleep());
  EXPECT_EQ(code, 1) << err.str();
  EXPECT_EQ(rp.sleeps, 1);
  nlohmann::json j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j["qps"].size(), 1u);  // -d rxe1 only
  EXPECT_EQ(j["qps"][0]["dev"], "rxe1");
  EXPECT_EQ(j["interval_s"], 0.5);
}

TEST(RunWatchCommand, HealthyIsZero) {
  Replay rp{{{Rc("rxe0", 17, "RTS", 1, 1)}, {Rc("rxe0", 17, "RTS", 900, 1)}, {Rc("rxe0", 17, "RTS", 1800, 1)}}};
  std::ostringstream out, err;
  EXPECT_EQ(RunWatchCommand(WatchOptions(), out, err, rp.sampler(), rp.sleep()), 0);  // default count 3
  EXPECT_EQ(rp.next, 3u);
  EXPECT_THAT(out.str(), HasSubstr("3 samples 1 s apart"));
}

TEST(RunWatchCommand, CountZeroRunsUntilInterruptedAndReportsWhatItHas) {
  Replay rp{{{Rc("rxe0", 17, "RTS", 1, 1)}, {Rc("rxe0", 17, "RTS", 1, 1)}}};
  int sleeps = 0;
  std::ostringstream out, err;
  // The second sleep is "interrupted" (Ctrl-C): the report covers 2 samples.
  WatchOptions o;
  o.count = 0;
  int code = RunWatchCommand(o, out, err, rp.sampler(), [&](double) { return ++sleeps < 2; });
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out.str(), HasSubstr("2 samples"));
}

TEST(RunWatchCommand, DumpFailureIsThreeWithTheMessage) {
  Replay rp;  // no samples: the first dump fails
  std::ostringstream out, err;
  WatchOptions o;
  o.count = 2;
  EXPECT_EQ(RunWatchCommand(o, out, err, rp.sampler(), rp.sleep()), 3);
  EXPECT_THAT(err.str(), HasSubstr("exited 1: gone"));
  EXPECT_THAT(out.str(), Not(HasSubstr("flagged")));
}

std::vector<QpRecord> Fixture(const std::string& name) {
  std::ifstream in("fixtures/watch/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<std::vector<QpRecord>> qps = ParseRdmaQpJson(ss.str(), name);
  EXPECT_TRUE(qps.ok()) << qps.status();
  return qps.ok() ? *qps : std::vector<QpRecord>{};
}

// fixtures/watch/ib_write_bw_stuck_{1,2}.json: ib_write_bw rxe0 -> rxe1 in
// the guest behind an nftables drop of UDP 4791, 1 s apart.
TEST(RecordedDumps, StuckIbWriteBwIsFlaggedOnBothEnds) {
  std::vector<QpRecord> s1 = Fixture("ib_write_bw_stuck_1.json"), s2 = Fixture("ib_write_bw_stuck_2.json");
  ASSERT_EQ(s1.size(), 4u);
  WatchReport r = EvaluateSamples({s1, s2}, 1);
  EXPECT_EQ(r.flagged, 2);
  const WatchedQp* client = Find(r, "rxe0", 17);
  const WatchedQp* server = Find(r, "rxe1", 17);
  ASSERT_NE(client, nullptr);
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(client->last.comm, "ib_write_bw");
  EXPECT_EQ(client->last.pid, 293);
  EXPECT_EQ(client->flag, QpFlag::kNoProgress);
  EXPECT_THAT(client->reason, HasSubstr("RTS, sq-psn 1161993 -> 1161993 and rq-psn 13379789 -> 13379789 unchanged"));
  // The server is on this host too: the 16 unacknowledged WRITEs show.
  EXPECT_EQ(client->local_peer, "rxe1/1 qp 17");
  EXPECT_EQ(client->unreceived, 16u);
  EXPECT_THAT(client->reason, HasSubstr("16 packets sent that its peer rxe1/1 qp 17 (on this host) has not received"));
  EXPECT_EQ(server->last.state, "RTR");
  EXPECT_EQ(server->last.pid, 285);
  EXPECT_EQ(server->flag, QpFlag::kNoProgress);
  EXPECT_THAT(server->reason, HasSubstr("RTR (receive only), rq-psn 1161977 -> 1161977 unchanged"));
  // The kernel's GSI QPs: listed, never flagged.
  EXPECT_EQ(Find(r, "rxe0", 1)->last.comm, "ib_core");
  EXPECT_EQ(Find(r, "rxe0", 1)->flag, QpFlag::kNone);
  EXPECT_THAT(RenderWatchText(r), HasSubstr("[no-progress] rxe0/1 qp 17 (pid 293 ib_write_bw)"));
}

TEST(RecordedDumps, KernelQpsAloneFlagNothing) {
  std::vector<QpRecord> k = Fixture("kernel_qps_only.json");
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].type, "GSI");
  EXPECT_FALSE(k[0].pid.has_value());
  WatchReport r = EvaluateSamples({k, k, k}, 1);
  EXPECT_EQ(r.flagged, 0);
}

}  // namespace
}  // namespace rdmacheck
