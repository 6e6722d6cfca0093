// The peer frames: what the rdmacheck 0.1.0 encoder wrote (recorded byte for
// byte from its client and server halves) decodes and encodes again to the
// same bytes, so old and new ends interoperate; every message round-trips;
// every decode error names the frame and the field.
#include "tools/peer/messages.h"

#include <sys/socket.h>
#include <unistd.h>

#include <tuple>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The bytes SendMsg puts on the wire (header line and payload).
template <typename M>
std::string Wire(const M& m) {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  PeerChannel ch(sv[0], "w", 1);
  EXPECT_OK(SendMsg(ch, m));
  std::string out(1 << 16, '\0');
  ssize_t n = read(sv[1], out.data(), out.size());
  close(sv[1]);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

// `bytes` as the far end wrote them, read with ReceiveMsg.
template <typename M>
absl::StatusOr<M> FromWire(const std::string& bytes) {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  PeerChannel ch(sv[0], "r", 1);
  EXPECT_EQ(write(sv[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(sv[1]);
  return ReceiveMsg<M>(ch);
}

// A recorded frame decoded and sent again.
template <typename M>
std::string Resent(const std::string& frame) {
  absl::StatusOr<M> m = FromWire<M>(frame);
  if (!m.ok()) return absl::StrCat("decode failed: ", m.status().message());
  return Wire(*m);
}

// Every field, for comparing a decoded message with the one encoded.
auto Tie(const RecvCompletion& c) { return std::make_tuple(c.state, c.wc_status, c.wc_status_text, c.vendor_err); }
auto Tie(const ProfileMsg& m) { return std::tie(m.text); }
auto Tie(const VerdictsMsg& m) { return std::tie(m.lines); }
auto Tie(const ByeMsg&) { return std::make_tuple(); }
auto Tie(const ProbeEndMsg&) { return std::make_tuple(); }
auto Tie(const ProbeSetupMsg& m) {
  return std::tie(m.device, m.port, m.gid_index, m.qpn, m.gid, m.mtu, m.recv_bytes, m.timeout, m.retry_cnt,
                  m.rnr_retry);
}
auto Tie(const ProbeReadyMsg& m) {
  return std::tie(m.device, m.port, m.qpn, m.gid, m.gid_index, m.gid_type, m.mtu, m.rkey, m.addr, m.region_bytes,
                  m.counters_known, m.counters);
}
auto Tie(const WrMsg& m) { return std::tie(m.index, m.op, m.bytes); }
auto Tie(const WrReadyMsg& m) { return std::tie(m.qp_state, m.post_error); }
auto Tie(const WrCheckMsg& m) { return std::tie(m.index, m.op, m.bytes, m.send_ok, m.wait_s); }
auto Tie(const WrResultMsg& m) {
  std::optional<decltype(Tie(*m.recv))> recv;
  if (m.recv) recv = Tie(*m.recv);
  return std::make_tuple(recv, m.verified, m.first_mismatch, m.delta, m.qp_state);
}
auto Tie(const ProbeDoneMsg& m) { return std::tie(m.qp_state, m.events, m.counters_known, m.counters); }
auto Tie(const BenchSetupMsg& msg) {
  const BenchNear& m = msg.near;
  return std::tie(m.shape, m.active_mtu, m.rd_atomic,
                  m.device, m.peer_device, m.peer_gid_index, m.gid, m.qpns, m.addr, m.rkey, m.region_bytes);
}
auto Tie(const BenchReadyMsg& msg) {
  const BenchFar& m = msg.far;
  return std::tie(m.device, m.port, m.gid, m.gid_index, m.active_mtu, m.path_mtu, m.rd_atomic, m.qpns, m.addr,
                  m.rkey, m.region_bytes);
}
auto Tie(const BenchRunMsg& m) { return std::tie(m.mode, m.op, m.size, m.qps, m.tx_depth, m.inline_size, m.iters); }
auto Tie(const BenchDoneMsg& msg) {
  const BenchFarRun& m = msg.run;
  return std::tie(m.end, m.failure, m.wc_status, m.wc_status_text, m.vendor_err, m.qp_state, m.counters_known,
                  m.counters_before, m.counters_after);
}

// Decoding the encoding gives the message back, and encoding that gives the
// same bytes.
template <typename M>
void ExpectRoundTrips(const std::vector<M>& rows) {
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(absl::StrCat(M::kType, " row ", i));
    const std::string payload = rows[i].Encode();
    absl::StatusOr<M> back = M::Decode(payload);
    ASSERT_OK(back.status());
    EXPECT_TRUE(Tie(*back) == Tie(rows[i])) << payload;
    EXPECT_EQ(back->Encode(), payload);
  }
}

// --- frames recorded from the 0.1.0 encoder ----------------------------------

TEST(RecordedFrames, ProbeSetup) {
  const std::string frames[] = {
      "PROBE_SETUP 118\ndevice rxe1\ngid ::ffff:198.18.0.1\ngid_index \nmtu 5\nport 1\nqpn 17\nrecv_bytes "
      "135168\nretry_cnt 6\nrnr_retry 3\ntimeout 14\n",
      "PROBE_SETUP 121\ndevice \ngid fe80::5054:ff:fe12:3456\ngid_index 3\nmtu 3\nport 2\nqpn 4242\nrecv_bytes "
      "4096\nretry_cnt 0\nrnr_retry 6\ntimeout 31\n",
  };
  ASSERT_OK_AND_ASSIGN(ProbeSetupMsg a, FromWire<ProbeSetupMsg>(frames[0]));
  EXPECT_EQ(a.device, "rxe1");
  EXPECT_EQ(a.gid_index, std::nullopt);
  EXPECT_EQ(a.qpn, 17u);
  EXPECT_EQ(a.gid, "::ffff:198.18.0.1");
  EXPECT_EQ(a.mtu, 5);
  EXPECT_EQ(a.recv_bytes, 135168);
  EXPECT_EQ(std::make_tuple(a.timeout, a.retry_cnt, a.rnr_retry), std::make_tuple(14, 6, 3));
  ASSERT_OK_AND_ASSIGN(ProbeSetupMsg b, FromWire<ProbeSetupMsg>(frames[1]));
  EXPECT_EQ(b.device, "");
  EXPECT_EQ(b.port, 2);
  EXPECT_EQ(b.gid_index, 3);
  for (const std::string& f : frames) EXPECT_EQ(Resent<ProbeSetupMsg>(f), f);
}

TEST(RecordedFrames, ProbeReady) {
  const std::string frames[] = {
      "PROBE_READY 204\naddr 140244305313792\nc.duplicate_request 0\nc.rcvd_pkts 120\nc.sent_pkts "
      "118\ncounters_known 1\ndevice rxe1\ngid ::ffff:198.18.0.2\ngid_index 1\ngid_type RoCEv2\nmtu 5\nport 1\nqpn "
      "18\nregion_bytes 139264\nrkey 4660\n",
      "PROBE_READY 154\naddr 140244305313792\ncounters_known 0\ndevice rxe1\ngid ::ffff:198.18.0.2\ngid_index "
      "1\ngid_type IB/RoCE v1\nmtu 5\nport 1\nqpn 18\nregion_bytes 139264\nrkey 4660\n",
  };
  ASSERT_OK_AND_ASSIGN(ProbeReadyMsg a, FromWire<ProbeReadyMsg>(frames[0]));
  EXPECT_EQ(a.addr, 140244305313792u);
  EXPECT_EQ(a.rkey, 4660u);
  EXPECT_EQ(a.qpn, 18u);
  EXPECT_EQ(a.region_bytes, 139264u);
  EXPECT_TRUE(a.counters_known);
  EXPECT_EQ(a.counters, (Counters{{"duplicate_request", 0}, {"rcvd_pkts", 120}, {"sent_pkts", 118}}));
  ASSERT_OK_AND_ASSIGN(ProbeReadyMsg b, FromWire<ProbeReadyMsg>(frames[1]));
  EXPECT_FALSE(b.counters_known);
  EXPECT_TRUE(b.counters.empty());
  EXPECT_EQ(b.gid_type, "IB/RoCE v1");
  for (const std::string& f : frames) EXPECT_EQ(Resent<ProbeReadyMsg>(f), f);
}

TEST(RecordedFrames, WrAndWrReady) {
  const std::string wrs[] = {
      "WR 25\nbytes 64\nindex 0\nop SEND\n",
      "WR 34\nbytes 65613\nindex 2\nop RDMA_WRITE\n",
  };
  ASSERT_OK_AND_ASSIGN(WrMsg w, FromWire<WrMsg>(wrs[1]));
  EXPECT_EQ(std::make_tuple(w.index, w.op, w.bytes), std::make_tuple(2, ProbeOp::kRdmaWrite, uint64_t{65613}));
  for (const std::string& f : wrs) EXPECT_EQ(Resent<WrMsg>(f), f);

  const std::string readies[] = {
      "WR_READY 13\nqp_state RTS\n",
      "WR_READY 91\npost_error ibv_post_recv(dev=rxe1): Cannot allocate memory (ENOMEM, errno 12)\nqp_state RTS\n",
  };
  ASSERT_OK_AND_ASSIGN(WrReadyMsg ok, FromWire<WrReadyMsg>(readies[0]));
  EXPECT_EQ(ok.post_error, std::nullopt);
  ASSERT_OK_AND_ASSIGN(WrReadyMsg bad, FromWire<WrReadyMsg>(readies[1]));
  EXPECT_EQ(bad.post_error, "ibv_post_recv(dev=rxe1): Cannot allocate memory (ENOMEM, errno 12)");
  for (const std::string& f : readies) EXPECT_EQ(Resent<WrReadyMsg>(f), f);
}

TEST(RecordedFrames, WrCheck) {
  const std::string frames[] = {
      "WR_CHECK 53\nbytes 12411\nindex 1\nop SEND\nsend_ok 1\nwait_s 1.95877\n",
      "WR_CHECK 50\nbytes 64\nindex 0\nop RDMA_WRITE\nsend_ok 0\nwait_s 0\n",
  };
  ASSERT_OK_AND_ASSIGN(WrCheckMsg c, FromWire<WrCheckMsg>(frames[0]));
  EXPECT_TRUE(c.send_ok);
  EXPECT_DOUBLE_EQ(c.wait_s, 1.95877);
  EXPECT_EQ(c.bytes, 12411u);
  for (const std::string& f : frames) EXPECT_EQ(Resent<WrCheckMsg>(f), f);
}

TEST(RecordedFrames, WrResult) {
  const std::string frames[] = {
      "WR_RESULT 68\nd.rcvd_pkts 4\nd.sent_pkts 1\nqp_state RTS\nstate completed\nverified 1\n",
      "WR_RESULT 99\nqp_state ERR\nstate error\nvendor_err 0\nwc_status 12\nwc_status_text transport retry counter "
      "exceeded\n",
      "WR_RESULT 65\nqp_state RTS\nstate error\nwc_status_text ibv_poll_cq returned -22\n",
      "WR_RESULT 38\nd.rcvd_pkts 0\nqp_state RTS\nstate none\n",
      "WR_RESULT 43\nfirst_mismatch 100\nqp_state RTS\nverified 0\n",
      "WR_RESULT 13\nqp_state RTS\n",
  };
  ASSERT_OK_AND_ASSIGN(WrResultMsg ok, FromWire<WrResultMsg>(frames[0]));
  ASSERT_TRUE(ok.recv.has_value());
  EXPECT_EQ(ok.recv->state, RecvCompletion::State::kCompleted);
  EXPECT_EQ(ok.verified, true);
  EXPECT_EQ(ok.delta, (Counters{{"rcvd_pkts", 4}, {"sent_pkts", 1}}));
  ASSERT_OK_AND_ASSIGN(WrResultMsg err, FromWire<WrResultMsg>(frames[1]));
  EXPECT_EQ(err.recv->state, RecvCompletion::State::kError);
  EXPECT_EQ(err.recv->wc_status, 12);
  EXPECT_EQ(err.recv->wc_status_text, "transport retry counter exceeded");
  EXPECT_EQ(err.qp_state, "ERR");
  ASSERT_OK_AND_ASSIGN(WrResultMsg poll, FromWire<WrResultMsg>(frames[2]));
  EXPECT_EQ(poll.recv->wc_status, std::nullopt);
  EXPECT_EQ(poll.recv->wc_status_text, "ibv_poll_cq returned -22");
  ASSERT_OK_AND_ASSIGN(WrResultMsg none, FromWire<WrResultMsg>(frames[3]));
  EXPECT_EQ(none.recv->state, RecvCompletion::State::kNone);
  EXPECT_EQ(none.verified, std::nullopt);
  ASSERT_OK_AND_ASSIGN(WrResultMsg bad, FromWire<WrResultMsg>(frames[4]));
  EXPECT_EQ(bad.recv, std::nullopt);
  EXPECT_EQ(bad.verified, false);
  EXPECT_EQ(bad.first_mismatch, 100u);
  ASSERT_OK_AND_ASSIGN(WrResultMsg bare, FromWire<WrResultMsg>(frames[5]));
  EXPECT_EQ(bare.recv, std::nullopt);
  EXPECT_TRUE(bare.delta.empty());
  for (const std::string& f : frames) EXPECT_EQ(Resent<WrResultMsg>(f), f);
}

TEST(RecordedFrames, ProbeEndAndDone) {
  EXPECT_EQ(Wire(ProbeEndMsg{}), "PROBE_END 0\n");
  const std::string frames[] = {
      "PROBE_DONE 70\nc.rcvd_pkts 130\nc.sent_pkts 121\ncounters_known 1\nevents \nqp_state RTS\n",
      "PROBE_DONE 98\ncounters_known 0\nevents local work queue catastrophic error on rxe1;CQ error on "
      "rxe1\nqp_state ERR\n",
  };
  ASSERT_OK_AND_ASSIGN(ProbeDoneMsg a, FromWire<ProbeDoneMsg>(frames[0]));
  EXPECT_TRUE(a.events.empty());
  EXPECT_EQ(a.counters.at("rcvd_pkts"), 130u);
  ASSERT_OK_AND_ASSIGN(ProbeDoneMsg b, FromWire<ProbeDoneMsg>(frames[1]));
  EXPECT_THAT(b.events, ElementsAre("local work queue catastrophic error on rxe1", "CQ error on rxe1"));
  EXPECT_EQ(b.qp_state, "ERR");
  for (const std::string& f : frames) EXPECT_EQ(Resent<ProbeDoneMsg>(f), f);
}

TEST(RecordedFrames, ProfileVerdictsBye) {
  EXPECT_EQ(Wire(ProfileMsg{"rdmacheck-profile 1\n"}), "PROFILE 20\nrdmacheck-profile 1\n");
  // The client sends its lines joined; the server answers with its one line.
  EXPECT_EQ(Wire(VerdictsMsg{{"FAIL peer-match a", "PASS hung-qp b"}}), "VERDICTS 32\nFAIL peer-match a\nPASS hung-qp b");
  EXPECT_EQ(Wire(VerdictsMsg{{"PASS peer-match c"}}), "VERDICTS 17\nPASS peer-match c");
  ASSERT_OK_AND_ASSIGN(VerdictsMsg v, FromWire<VerdictsMsg>("VERDICTS 20\nFAIL x\n\nPASS y\n\n\n\n\n\n"));
  EXPECT_THAT(v.lines, ElementsAre("FAIL x", "PASS y"));
  EXPECT_EQ(Wire(ByeMsg{}), "BYE 0\n");
}

// --- round trips ---------------------------------------------------------------

TEST(MessagesRoundTrip, ProbeSetup) {
  ExpectRoundTrips<ProbeSetupMsg>({
      {"rxe1", 1, std::nullopt, 17, "::ffff:198.18.0.1", 5, 135168, 14, 6, 3},
      {"", 2, 0, 0xffffffffu, "fe80::1", 1, 1, 1, 0, 0},
      {"mlx5_0", 1, 3, 4242, "::ffff:10.0.0.1", 3, 256 << 20, 31, 6, 6},
  });
}

TEST(MessagesRoundTrip, ProbeReady) {
  ExpectRoundTrips<ProbeReadyMsg>({
      {"rxe1", 1, 18, "::ffff:198.18.0.2", 1, "RoCEv2", 5, 4660, 140244305313792u, 139264, true,
       {{"rcvd_pkts", 120}, {"sent_pkts", 118}}},
      {"rxe1", 2, 0xffffffffu, "fe80::1", 0, "IB/RoCE v1", 1, 0xffffffffu, ~uint64_t{0}, 4096, false, {}},
  });
}

TEST(MessagesRoundTrip, WrAndWrCheck) {
  ExpectRoundTrips<WrMsg>({{0, ProbeOp::kSend, 64}, {31, ProbeOp::kRdmaWrite, 135168}, {2, ProbeOp::kSend, 0}});
  ExpectRoundTrips<WrCheckMsg>({{1, ProbeOp::kSend, 12411, true, 1.5},
                                {0, ProbeOp::kRdmaWrite, 64, false, 0},
                                {7, ProbeOp::kRdmaWrite, 65613, true, 600}});
}

TEST(MessagesRoundTrip, WrReady) {
  ExpectRoundTrips<WrReadyMsg>({{"RTS", std::nullopt}, {"ERR", "ibv_post_recv(dev=rxe1): Invalid argument"}, {"", ""}});
}

TEST(MessagesRoundTrip, WrResult) {
  using S = RecvCompletion::State;
  ExpectRoundTrips<WrResultMsg>({
      {RecvCompletion{S::kCompleted, std::nullopt, "", 0}, true, std::nullopt, {{"rcvd_pkts", 4}}, "RTS"},
      {RecvCompletion{S::kError, 12, "transport retry counter exceeded", 0x81}, std::nullopt, std::nullopt, {}, "ERR"},
      {RecvCompletion{S::kError, std::nullopt, "ibv_poll_cq returned -22", 0}, std::nullopt, std::nullopt, {}, "RTS"},
      {RecvCompletion{S::kNone, std::nullopt, "", 0}, std::nullopt, std::nullopt, {{"rcvd_pkts", 0}}, "RTS"},
      {std::nullopt, false, 100, {}, "RTS"},
      {std::nullopt, std::nullopt, std::nullopt, {}, "RTS"},
  });
}

TEST(MessagesRoundTrip, ProbeDoneAndTheRest) {
  ExpectRoundTrips<ProbeDoneMsg>({
      {"RTS", {}, true, {{"rcvd_pkts", 130}}},
      {"ERR", {"QP_FATAL on rxe1", "CQ_ERR on rxe1"}, false, {}},
  });
  ExpectRoundTrips<ProfileMsg>({{""}, {"rdmacheck-profile 1\ndevice rxe0\n"}});
  ExpectRoundTrips<VerdictsMsg>({{{}}, {{"PASS peer-match a"}}, {{"FAIL a b", "SKIP c"}}});
  ExpectRoundTrips<ByeMsg>({{}});
  ExpectRoundTrips<ProbeEndMsg>({{}});
}

// --- decode errors ----------------------------------------------------------------

struct BadFrame {
  absl::string_view type;
  std::string payload;
  std::string message;
};

absl::Status DecodeAny(absl::string_view type, const std::string& p) {
  if (type == ProbeSetupMsg::kType) return ProbeSetupMsg::Decode(p).status();
  if (type == ProbeReadyMsg::kType) return ProbeReadyMsg::Decode(p).status();
  if (type == WrMsg::kType) return WrMsg::Decode(p).status();
  if (type == WrReadyMsg::kType) return WrReadyMsg::Decode(p).status();
  if (type == WrCheckMsg::kType) return WrCheckMsg::Decode(p).status();
  if (type == WrResultMsg::kType) return WrResultMsg::Decode(p).status();
  if (type == ProbeDoneMsg::kType) return ProbeDoneMsg::Decode(p).status();
  return absl::InternalError("no such type in the table");
}

TEST(MessagesDecode, ErrorsNameTheFrameAndTheField) {
  const std::string setup = ProbeSetupMsg{"rxe1", 1, std::nullopt, 17, "::1", 5, 4096, 14, 6, 3}.Encode();
  auto with = [](std::string payload, const std::string& from, const std::string& to) {
    payload.replace(payload.find(from), from.size(), to);
    return payload;
  };
  const BadFrame cases[] = {
      {ProbeSetupMsg::kType, with(setup, "qpn 17", "qpn x"), "PROBE_SETUP: field 'qpn' = 'x' is not an integer"},
      {ProbeSetupMsg::kType, with(setup, "qpn 17", "qpn 4294967296"),
       "PROBE_SETUP: field 'qpn' = '4294967296' is out of range"},
      {ProbeSetupMsg::kType, with(setup, "qpn 17", "qpn -1"), "PROBE_SETUP: field 'qpn' = '-1' is out of range"},
      {ProbeSetupMsg::kType, with(setup, "device rxe1\n", ""), "PROBE_SETUP: field 'device' missing"},
      {ProbeSetupMsg::kType, with(setup, "gid_index \n", "gid_index one\n"),
       "PROBE_SETUP: field 'gid_index' = 'one' is not an integer"},
      {ProbeSetupMsg::kType, " 1\n", "PROBE_SETUP line 1: no key"},
      {ProbeReadyMsg::kType, "device rxe1\n", "PROBE_READY: field 'qpn' missing"},
      {WrMsg::kType, "bytes 64\nindex 0\nop READ\n", "WR: field 'op' = 'READ' is not SEND or RDMA_WRITE"},
      {WrMsg::kType, "bytes -1\nindex 0\nop SEND\n", "WR: field 'bytes' = '-1' is out of range"},
      {WrReadyMsg::kType, "post_error x\n", "WR_READY: field 'qp_state' missing"},
      {WrCheckMsg::kType, "bytes 64\nindex 0\nop SEND\nsend_ok yes\nwait_s 1\n",
       "WR_CHECK: field 'send_ok' = 'yes' is not 0 or 1"},
      {WrCheckMsg::kType, "bytes 64\nindex 0\nop SEND\nsend_ok 1\nwait_s soon\n",
       "WR_CHECK: field 'wait_s' = 'soon' is not a number"},
      {WrResultMsg::kType, "qp_state RTS\nstate lost\n",
       "WR_RESULT: field 'state' = 'lost' is not completed, none or error"},
      {WrResultMsg::kType, "d.rcvd_pkts many\nqp_state RTS\n", "WR_RESULT: field 'd.rcvd_pkts' = 'many' is not an integer"},
      {ProbeDoneMsg::kType, "events \nqp_state RTS\n", "PROBE_DONE: field 'counters_known' missing"},
  };
  for (const BadFrame& c : cases) {
    EXPECT_THAT(DecodeAny(c.type, c.payload), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.payload;
  }
}

// --- bench frames --------------------------------------------------------------

TEST(BenchFrames, RoundTrip) {
  BenchSetupMsg a;
  a.near.shape.qps = 4;
  a.near.qpns = {17, 18, 19, 20};
  a.near.gid = "::ffff:198.18.0.1";
  a.near.addr = 140244305313792u;
  a.near.rkey = 4660;
  a.near.region_bytes = 262144;
  a.near.active_mtu = 4096;
  a.near.device = "rxe0";
  BenchSetupMsg b = a;
  b.near.shape.mode = BenchMode::kLatency;
  b.near.shape.op = BenchOp::kRead;
  b.near.shape.qps = 1;
  b.near.qpns = {4242};
  b.near.peer_device = "rxe1";
  b.near.peer_gid_index = 3;
  b.near.shape.mtu = 1024;
  ExpectRoundTrips<BenchSetupMsg>({a, b});

  BenchReadyMsg r;
  r.far = {"rxe1", 1, "::ffff:198.18.0.2", 1, 4096, 4096, 16, {33, 34}, 140244305313792u, 77, 131072};
  ExpectRoundTrips<BenchReadyMsg>({r, BenchReadyMsg{}});

  BenchRunMsg run{BenchMode::kBandwidth, BenchOp::kSend, 65536, 2, 128, 0, 5000};
  BenchRunMsg lat{BenchMode::kLatency, BenchOp::kWrite, 2, 1, 128, 220, 1000};
  ExpectRoundTrips<BenchRunMsg>({run, lat});

  BenchDoneMsg ok;
  ok.run.qp_state = "RTS";
  ok.run.counters_known = true;
  ok.run.counters_before = {{"rcvd_pkts", 10}};
  ok.run.counters_after = {{"rcvd_pkts", 90}, {"sent_pkts", 3}};
  BenchDoneMsg bad;
  bad.run.end = BenchEnd::kWcError;
  bad.run.failure = "completion with status 13 (RNR retry counter exceeded) on rxe1";
  bad.run.wc_status = 13;
  bad.run.wc_status_text = "RNR retry counter exceeded";
  bad.run.qp_state = "ERR";
  ExpectRoundTrips<BenchDoneMsg>({ok, bad});
  // Before and after keep their own keys.
  EXPECT_THAT(ok.Encode(), HasSubstr("a.sent_pkts 3\nb.rcvd_pkts 10\n"));
}

TEST(BenchFrames, DecodeErrorsNameTheFrameAndField) {
  BenchSetupMsg a;
  a.near.qpns = {17};
  std::string p = a.Encode();
  EXPECT_THAT(BenchSetupMsg::Decode(absl::StrReplaceAll(p, {{"op write", "op atomic"}})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("BENCH_SETUP: field 'op' = 'atomic' is not write, send, read")));
  EXPECT_THAT(BenchSetupMsg::Decode(absl::StrReplaceAll(p, {{"qpns 17", "qpns 17,x"}})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field 'qpns' = 'x' is not an integer")));
  EXPECT_THAT(BenchSetupMsg::Decode(absl::StrReplaceAll(p, {{"mode bandwidth\n", ""}})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("BENCH_SETUP: field 'mode' missing")));
  EXPECT_THAT(BenchDoneMsg::Decode("end hung\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("BENCH_DONE: field 'end' = 'hung' is not ok, stalled")));
}

TEST(MessagesDecode, UnknownKeysAreIgnored) {
  ASSERT_OK_AND_ASSIGN(WrReadyMsg m, WrReadyMsg::Decode("qp_state RTS\nfuture_field 1\n"));
  EXPECT_EQ(m.qp_state, "RTS");
}

TEST(ReceiveMsg, AnErrorFrameIsTheFarEndsMessage) {
  EXPECT_THAT(FromWire<ProbeReadyMsg>("ERROR 9\nno device"),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("peer r: no device")));
  EXPECT_THAT(FromWire<ProbeReadyMsg>("WR_READY 13\nqp_state RTS\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected a PROBE_READY frame, got WR_READY")));
}

}  // namespace
}  // namespace rdmacheck
