// The bench halves' side-channel steps that need no device: the server
// refuses a setup out of bounds or for another device before it opens one,
// and tells the client why; the client's half sends what the far end needs,
// names the far device "<dev>@<host>", and after the far end has ended its
// session (an ERROR frame) does not send BENCH_END for it. The verbs path
// runs in the guest (ci/guest/scenarios/56-peer-bandwidth.sh, perf.bash).
#include "tools/peer/remote_bench.h"

#include <sys/socket.h>

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/peer/messages.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

BenchNear GoodNear() {
  BenchNear n;
  n.shape.qps = 2;
  n.qpns = {17, 18};
  n.gid = "::ffff:198.18.0.1";
  n.active_mtu = 4096;
  n.region_bytes = 131072;
  return n;
}

struct Pair {
  Pair() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    server = std::make_unique<PeerChannel>(sv[0], "client", 1);
    client = std::make_unique<PeerChannel>(sv[1], "server", 1);
  }
  std::unique_ptr<PeerChannel> server, client;
};

TEST(ServePeerBench, RefusesBadSetupsBeforeTouchingADeviceAndTellsTheClient) {
  struct Case {
    void (*edit)(BenchNear&);
    const char* served;
    const char* message;
  };
  const Case cases[] = {
      {[](BenchNear& n) { n.shape.qps = 0; }, "rxe1", "bench setup out of bounds: qps 0 (1..64, 2 QPNs)"},
      {[](BenchNear& n) { n.shape.qps = 65; }, "rxe1", "qps 65 (1..64"},
      {[](BenchNear& n) { n.qpns = {17}; }, "rxe1", "qps 2 (1..64, 1 QPNs)"},
      {[](BenchNear& n) { n.shape.max_size = 128u << 20; }, "rxe1", "max_size 134217728 (1..64 MiB)"},
      {[](BenchNear& n) { n.shape.tx_depth = 0; }, "rxe1", "tx_depth 0 (1..16384)"},
      {[](BenchNear& n) { n.shape.inline_size = 9000; }, "rxe1", "inline 9000 (..4096)"},
      {[](BenchNear& n) { n.peer_device = "rxe0"; }, "rxe1", "this server serves rxe1, not rxe0"},
      {[](BenchNear&) {}, "", "no device: start `rdmacheck serve -d DEV`"},
  };
  for (const Case& c : cases) {
    BenchNear n = GoodNear();
    c.edit(n);
    Pair p;
    absl::Status s = ServePeerBench(*p.server, PeerFrame{"BENCH_SETUP", BenchSetupMsg{n}.Encode()}, c.served);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message))) << c.message;
    EXPECT_THAT(ReceiveMsg<BenchReadyMsg>(*p.client), StatusIs(absl::StatusCode::kAborted, HasSubstr(c.message)));
  }
  Pair p;
  EXPECT_THAT(ServePeerBench(*p.server, PeerFrame{"BENCH_SETUP", "mode fast\n"}, "rxe1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("BENCH_SETUP: field 'mode' = 'fast'")));
}

TEST(ChannelBenchPeer, SpeaksTheBenchFramesAndNamesTheFarHost) {
  Pair p;
  BenchSettings s;
  s.op = BenchOp::kSend;
  s.qps = 2;
  s.size = 4096;
  std::vector<std::string> seen;
  // A scripted far end: READY, STARTED, DONE, then it reads BENCH_END.
  std::thread far([&] {
    PeerChannel& ch = *p.server;
    absl::StatusOr<BenchSetupMsg> setup = ReceiveMsg<BenchSetupMsg>(ch);
    if (!setup.ok()) return;
    seen.push_back(absl::StrCat("setup qps=", setup->near.shape.qps, " qpns=", setup->near.qpns.size(),
                                " gid=", setup->near.gid));
    BenchFar f;
    f.device = "rxe1";
    f.path_mtu = 4096;
    f.qpns = {33, 34};
    (void)SendMsg(ch, BenchReadyMsg{f});
    absl::StatusOr<BenchRunMsg> run = ReceiveMsg<BenchRunMsg>(ch);
    if (!run.ok()) return;
    seen.push_back(absl::StrCat("run op=", BenchOpName(run->op), " qps=", run->qps, " size=", run->size));
    (void)SendMsg(ch, BenchStartedMsg{});
    if (!ReceiveMsg<BenchStopMsg>(ch).ok()) return;
    BenchDoneMsg done;
    done.run.end = BenchEnd::kWcError;
    done.run.failure = "completion with status 13 (RNR retry counter exceeded) on rxe1";
    done.run.qp_state = "ERR";
    (void)SendMsg(ch, done);
    absl::StatusOr<PeerFrame> end = ch.Receive();
    seen.push_back(end.ok() ? end->type : std::string(end.status().message()));
    // The next session is refused: the client must not send BENCH_END for it.
    if (!ReceiveMsg<BenchSetupMsg>(ch).ok()) return;
    ch.SendError("no device rxe9 on this host");
    absl::StatusOr<PeerFrame> after = ch.Receive();
    seen.push_back(after.ok() ? after->type : "nothing after the refusal");
  });
  {
    ChannelBenchPeer peer(*p.client, "198.18.0.2");
    ASSERT_OK_AND_ASSIGN(BenchFar f, peer.Open(GoodNear()));
    EXPECT_EQ(f.device, "rxe1@198.18.0.2");
    EXPECT_EQ(f.qpns, (std::vector<uint32_t>{33, 34}));
    ASSERT_OK(peer.Start(s));
    ASSERT_OK_AND_ASSIGN(BenchFarRun run, peer.Finish());
    EXPECT_EQ(run.end, BenchEnd::kWcError);
    EXPECT_EQ(run.qp_state, "ERR");
    peer.Close();
    EXPECT_THAT(peer.Open(GoodNear()), StatusIs(absl::StatusCode::kAborted, HasSubstr("no device rxe9")));
  }
  p.client.reset();  // the far end's last read ends
  far.join();
  EXPECT_EQ(seen, (std::vector<std::string>{"setup qps=2 qpns=2 gid=::ffff:198.18.0.1", "run op=send qps=2 size=4096", "BENCH_END",
                                            "nothing after the refusal"}));
}

}  // namespace
}  // namespace rdmacheck
