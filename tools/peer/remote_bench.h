// The bench engine split across two hosts for peer mode: this host's end
// posts every WR (acts/bench/bench_session.h, with BenchEnds.far set to a
// ChannelBenchPeer), and `rdmacheck serve` holds the far end's QPs and
// region (a BenchResponder), keeping its receive queues full for SEND runs
// and answering each ping of a latency run. The QPs' numbers, GIDs, regions
// and each run's start and end cross the side channel (BENCH_* frames,
// tools/peer/messages.h).
//
//   ChannelBenchPeer far(ch, "198.18.0.2");   // client, after the handshake
//   BenchEnds ends{.device = "rxe0"}; ends.far = &far;
//   absl::StatusOr<BenchResult> r = RunBench(ends, settings);   // "rxe0 -> rxe1@198.18.0.2"
//
//   absl::Status s = ServePeerBench(ch, setup_frame, "rxe1", log);  // server
//
// Bounded: every side-channel read has the channel's deadline (a run's end
// waits at most the run's longest wait plus 10 s); the server's responder
// is released on every path, the channel failing included.
#ifndef RDMACHECK_TOOLS_PEER_REMOTE_BENCH_H_
#define RDMACHECK_TOOLS_PEER_REMOTE_BENCH_H_

#include <string>

#include "absl/status/status.h"
#include "acts/bench_types.h"
#include "tools/peer/channel.h"

namespace rdmacheck {

// Client half: BenchPeer over an open channel. The far device's name comes
// back as "<dev>@<host>".
class ChannelBenchPeer : public BenchPeer {
 public:
  ChannelBenchPeer(PeerChannel& ch, std::string host) : ch_(ch), host_(std::move(host)) {}
  ~ChannelBenchPeer() override { Close(); }
  absl::StatusOr<BenchFar> Open(const BenchNear& near) override;
  absl::Status Start(const BenchSettings& s) override;
  absl::StatusOr<BenchFarRun> Finish() override;
  void Close() override;

 private:
  PeerChannel& ch_;
  std::string host_;
  bool open_ = false;  // the far end holds a session for us
};

// Server half, after a BENCH_SETUP frame: sets up the responder on `device`
// ("" the one the client names), answers BENCH_RUN / BENCH_STOP until
// BENCH_END, releases everything. A setup or run the far end refuses is an
// ERROR frame to the client (which may go on) and the error returned.
absl::Status ServePeerBench(PeerChannel& ch, const PeerFrame& setup, const std::string& device,
                            const std::string& sysfs_root = "/sys");

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_PEER_REMOTE_BENCH_H_
