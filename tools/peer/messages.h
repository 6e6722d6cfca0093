// The frames of peer mode (docs/peer-mode.md "Side channel protocol"), one
// struct each, with the one encoder and decoder both ends use. Each
// message's keys are listed once (messages.cc), for writing and reading
// alike, so a key the writer puts in a frame is the key the reader looks for.
//
//   RETURN_IF_ERROR(SendMsg(ch, WrMsg{0, ProbeOp::kSend, 64}));
//   ASSIGN_OR_RETURN(WrReadyMsg ready, ReceiveMsg<WrReadyMsg>(ch));
//   ASSIGN_OR_RETURN(WrResultMsg res, AskMsg<WrResultMsg>(ch, check));  // send, then the reply
//
// Payloads other than PROFILE and VERDICTS are "key value\n" lines in key
// order (values may hold spaces, not newlines); a reader ignores keys it does
// not know. Counters travel as one key each, "c.<name>" (totals) or
// "d.<name>" (deltas). A decode error is InvalidArgument naming the frame
// type and the field: "PROBE_SETUP: field 'qpn' = 'x' is not an integer".
// ERROR frames are the channel's (tools/peer/channel.h).
#ifndef RDMACHECK_TOOLS_PEER_MESSAGES_H_
#define RDMACHECK_TOOLS_PEER_MESSAGES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "acts/bench_types.h"
#include "acts/probe/completion_wait.h"
#include "acts/probe_types.h"
#include "facts/hw_counters.h"
#include "tools/peer/channel.h"

namespace rdmacheck {

// Both ways after the hello: the sender's DeviceView as profile text
// (facts/profile.h).
struct ProfileMsg {
  static constexpr absl::string_view kType = "PROFILE";
  std::string text;

  std::string Encode() const;
  static absl::StatusOr<ProfileMsg> Decode(absl::string_view payload);
};

// Client to server and back at the end: verdict lines, "FAIL peer-match ...".
struct VerdictsMsg {
  static constexpr absl::string_view kType = "VERDICTS";
  std::vector<std::string> lines;

  std::string Encode() const;
  static absl::StatusOr<VerdictsMsg> Decode(absl::string_view payload);
};

// Client to server: the session is over.
struct ByeMsg {
  static constexpr absl::string_view kType = "BYE";

  std::string Encode() const;
  static absl::StatusOr<ByeMsg> Decode(absl::string_view payload);
};

// Client to server: create the responder's QP and connect it to this one.
struct ProbeSetupMsg {
  static constexpr absl::string_view kType = "PROBE_SETUP";
  std::string device;            // "" the one `serve -d` was given
  int port = 1;
  std::optional<int> gid_index;  // else the server chooses
  uint32_t qpn = 0;              // the client's QP
  std::string gid;               // the client's GID, textual
  int mtu = 0;                   // the client's active MTU (enum ibv_mtu)
  int64_t recv_bytes = 0;        // the largest message: the target's size
  int timeout = 14;
  int retry_cnt = 6;
  int rnr_retry = 3;

  std::string Encode() const;
  static absl::StatusOr<ProbeSetupMsg> Decode(absl::string_view payload);
};

// Server to client: the responder's QP, connected, and its target.
struct ProbeReadyMsg {
  static constexpr absl::string_view kType = "PROBE_READY";
  std::string device;
  int port = 1;
  uint32_t qpn = 0;
  std::string gid;
  int gid_index = 0;
  std::string gid_type;  // "RoCEv2"
  int mtu = 0;           // active MTU (enum ibv_mtu)
  uint32_t rkey = 0;     // of the RDMA WRITE target
  uint64_t addr = 0;
  uint64_t region_bytes = 0;
  bool counters_known = false;
  Counters counters;  // "c.<name>": the port's hw_counters now

  std::string Encode() const;
  static absl::StatusOr<ProbeReadyMsg> Decode(absl::string_view payload);
};

// Client to server, before each WR is posted: pre-fill the target and, for a
// SEND, post the receive.
struct WrMsg {
  static constexpr absl::string_view kType = "WR";
  int index = 0;
  ProbeOp op = ProbeOp::kSend;
  uint64_t bytes = 0;

  std::string Encode() const;
  static absl::StatusOr<WrMsg> Decode(absl::string_view payload);
};

// Server to client: ready for the WR, or why the receive could not be posted.
struct WrReadyMsg {
  static constexpr absl::string_view kType = "WR_READY";
  std::string qp_state;
  std::optional<std::string> post_error;

  std::string Encode() const;
  static absl::StatusOr<WrReadyMsg> Decode(absl::string_view payload);
};

// Client to server, after the send's completion (or its deadline): wait for
// the receive within wait_s and check the bytes.
struct WrCheckMsg {
  static constexpr absl::string_view kType = "WR_CHECK";
  int index = 0;
  ProbeOp op = ProbeOp::kSend;
  uint64_t bytes = 0;
  bool send_ok = false;  // the send completed with success
  double wait_s = 0;     // what is left of the probe deadline

  std::string Encode() const;
  static absl::StatusOr<WrCheckMsg> Decode(absl::string_view payload);
};

// Server to client: what the far end saw of the WR.
struct WrResultMsg {
  static constexpr absl::string_view kType = "WR_RESULT";
  std::optional<RecvCompletion> recv;    // SENDs only
  std::optional<bool> verified;          // when the bytes landed and were compared
  std::optional<uint64_t> first_mismatch;
  Counters delta;  // "d.<name>": hw_counters change since WR (empty: unknown)
  std::string qp_state;

  std::string Encode() const;
  static absl::StatusOr<WrResultMsg> Decode(absl::string_view payload);
};

// Client to server: the probe is over; release the QP.
struct ProbeEndMsg {
  static constexpr absl::string_view kType = "PROBE_END";

  std::string Encode() const;
  static absl::StatusOr<ProbeEndMsg> Decode(absl::string_view payload);
};

// Server to client: the far QP's last state, its async events, its counters.
struct ProbeDoneMsg {
  static constexpr absl::string_view kType = "PROBE_DONE";
  std::string qp_state;
  std::vector<std::string> events;  // "QP_FATAL on rxe1"; ';'-joined on the wire
  bool counters_known = false;
  Counters counters;  // "c.<name>"

  std::string Encode() const;
  static absl::StatusOr<ProbeDoneMsg> Decode(absl::string_view payload);
};

// --- bench (peer mode's `rdmacheck bench --peer` and the bandwidth and
// latency checks; acts/bench/bench_session.h has the two halves) ---------

// Client to server: create QPs of this shape and connect them to ours.
struct BenchSetupMsg {
  static constexpr absl::string_view kType = "BENCH_SETUP";
  BenchNear near;

  std::string Encode() const;
  static absl::StatusOr<BenchSetupMsg> Decode(absl::string_view payload);
};

// Server to client: its QPs (connected), GID, region, path MTU.
struct BenchReadyMsg {
  static constexpr absl::string_view kType = "BENCH_READY";
  BenchFar far;

  std::string Encode() const;
  static absl::StatusOr<BenchReadyMsg> Decode(absl::string_view payload);
};

// Client to server: ready the far end's half of one run.
struct BenchRunMsg {
  static constexpr absl::string_view kType = "BENCH_RUN";
  BenchMode mode = BenchMode::kBandwidth;
  BenchOp op = BenchOp::kWrite;
  uint32_t size = 0;
  int qps = 1;
  int tx_depth = kDefaultTxDepth;
  uint32_t inline_size = 0;
  uint64_t iters = 0;  // latency: the pings to answer

  std::string Encode() const;
  static absl::StatusOr<BenchRunMsg> Decode(absl::string_view payload);
};

// Server to client: ready; the client may post.
struct BenchStartedMsg {
  static constexpr absl::string_view kType = "BENCH_STARTED";

  std::string Encode() const;
  static absl::StatusOr<BenchStartedMsg> Decode(absl::string_view payload);
};

// Client to server: the run is over on this end.
struct BenchStopMsg {
  static constexpr absl::string_view kType = "BENCH_STOP";

  std::string Encode() const;
  static absl::StatusOr<BenchStopMsg> Decode(absl::string_view payload);
};

// Server to client: what its half saw ("b.<name>" / "a.<name>": its port's
// hw_counters before and after).
struct BenchDoneMsg {
  static constexpr absl::string_view kType = "BENCH_DONE";
  BenchFarRun run;

  std::string Encode() const;
  static absl::StatusOr<BenchDoneMsg> Decode(absl::string_view payload);
};

// Client to server: release the far end's QPs (no answer).
struct BenchEndMsg {
  static constexpr absl::string_view kType = "BENCH_END";

  std::string Encode() const;
  static absl::StatusOr<BenchEndMsg> Decode(absl::string_view payload);
};

template <typename M>
absl::Status SendMsg(PeerChannel& ch, const M& m) {
  return ch.Send(M::kType, m.Encode());
}

// The next frame, which must be an M (an ERROR frame is Aborted with the far
// end's message, as PeerChannel::Receive says).
template <typename M>
absl::StatusOr<M> ReceiveMsg(PeerChannel& ch) {
  absl::StatusOr<PeerFrame> f = ch.Receive(M::kType);
  if (!f.ok()) return f.status();
  return M::Decode(f->payload);
}

// Sends `m`, returns the Reply that answers it.
template <typename Reply, typename M>
absl::StatusOr<Reply> AskMsg(PeerChannel& ch, const M& m) {
  absl::Status s = SendMsg(ch, m);
  if (!s.ok()) return s;
  return ReceiveMsg<Reply>(ch);
}

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_PEER_MESSAGES_H_
