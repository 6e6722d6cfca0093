// BenchSettings / BenchResult: what a bandwidth or latency run is asked to do
// and what it measured. Plain data (no libibverbs), so checks, the sweep, the
// renderers and their tests use them without a device; the engine is
// acts/bench/bench_session.h, reached by checks through Device::RunBench
// (acts/device.h).
//
//   BenchRequest req;
//   req.ends = {.device = "rxe0", .peer_device = "rxe1"};
//   req.settings.size = 65536;          // -s
//   absl::StatusOr<BenchResult> got = dev->RunBench(req);
//   got->bw_avg_gbps                    // perftest's "BW average", in Gb/s
//
// The figures are defined as perftest defines them (docs/bench.md): bandwidth
// is the bytes of the completed messages over the time from the first post
// to the last completion; latency is half a WRITE round trip.
#ifndef RDMACHECK_ACTS_BENCH_TYPES_H_
#define RDMACHECK_ACTS_BENCH_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/hw_counters.h"

namespace rdmacheck {

enum class BenchOp { kWrite, kSend, kRead };
absl::string_view BenchOpName(BenchOp op);  // "write", "send", "read"
// "write" | "send" | "read"; nullopt otherwise.
std::optional<BenchOp> ParseBenchOp(absl::string_view s);

enum class BenchMode { kBandwidth, kLatency };

// perftest's defaults for ib_write_bw (DEF_SIZE_BW, DEF_TX_BW, DEF_CQ_MOD,
// DEF_ITERS in perftest_parameters.h), so a bare run compares with a bare
// ib_write_bw.
inline constexpr uint32_t kDefaultBwSize = 65536;
inline constexpr int kDefaultTxDepth = 128;
inline constexpr int kDefaultCqMod = 100;
inline constexpr uint32_t kCqModSizeLimit = 8192;
inline constexpr uint32_t kDefaultLatInline = 220;
inline constexpr uint64_t kDefaultBwIters = 5000;
// ib_write_lat: 2-byte messages, 1000 iterations, a send queue of one WR
// (DEF_SIZE_LAT, DEF_ITERS, DEF_TX_LAT).
inline constexpr uint32_t kDefaultLatSize = 2;
inline constexpr uint64_t kDefaultLatIters = 1000;
inline constexpr int kDefaultLatTxDepth = 1;

class BenchPeer;

// Which devices: one device to itself (peer_device empty), two local ones,
// or this host's device and one on another host (far set: peer mode).
struct BenchEnds {
  std::string device;
  int port = 1;
  std::string peer_device;  // empty: loopback QPs on `device`
  int peer_port = 1;
  std::optional<int> gid_index;
  std::optional<int> peer_gid_index;
  // The longest a run may go without a completion (or, for latency, without
  // the reply) before it ends as stalled.
  double deadline_s = 2.0;
  std::string sysfs_root = "/sys";
  // Peer mode: the far end is `rdmacheck serve` on another host, reached
  // through this (not owned; tools/peer implements it over the side
  // channel); peer_device names its device there ("": the one it serves).
  BenchPeer* far = nullptr;
};

// When a duration run is stable enough to stop (the sweep's points): at
// least min_s, at most max_s, and stop as soon as the last `slices` slices
// of slice_s are within `spread` ((max - min) / mean) of each other.
struct StopRule {
  double slice_s = 0.25;
  double min_s = 1.0;
  double max_s = 3.0;
  double spread = 0.05;
  int slices = 3;
};

struct BenchSettings {
  BenchMode mode = BenchMode::kBandwidth;
  BenchOp op = BenchOp::kWrite;
  uint32_t size = kDefaultBwSize;  // -s, bytes per message
  int qps = 1;                     // -q
  int post_list = 1;               // -l, WRs per ibv_post_send
  // --cq-mod, one signalled WR every N (capped at tx_depth); 0: perftest's
  // default, 100, or 1 for messages over 8192 bytes (MSG_SIZE_CQ_MOD_LIMIT).
  int cq_mod = 0;
  // -I, send messages up to this many bytes inline; nullopt: perftest's
  // default, 220 for WRITE latency (DEF_INLINE_WRITE), else none.
  std::optional<uint32_t> inline_size;
  int mtu = 0;                     // -m, bytes; 0: the ports' active_mtu
  int tx_depth = kDefaultTxDepth;  // -t, outstanding WRs per QP
  uint64_t iters = kDefaultBwIters;  // -n, when duration_s == 0
  // -D; > 0: run for this long instead of iters. As perftest's margins,
  // warmup_s at the start and warmup_s before the end are not counted (the
  // end's is not run: posting stops, and the WRs in flight complete
  // uncounted).
  double duration_s = 0;
  double warmup_s = 0;             // duration and stop-rule runs: time not counted at the start
  std::vector<int> pin_cpus;       // --pin: this thread's CPUs while it runs
  // --threads: the QPs of a bandwidth run split over this many threads (at
  // most -q), each posting and polling its own; 1 as perftest.
  int threads = 1;
  std::optional<StopRule> stop;    // stop when stable (duration runs)
};

// How a run ended.
enum class BenchEnd {
  kOk,
  kStalled,      // no completion (or reply) within deadline_s
  kWcError,      // a completion with an error status
  kPostFailed,   // ibv_post_send/recv refused a WR
  kInterrupted,  // Ctrl-C or the runner's stop flag
};
absl::string_view BenchEndName(BenchEnd e);  // "ok", "stalled", ...

struct LatencyStats {
  uint64_t samples = 0;
  double min_us = 0, median_us = 0, avg_us = 0, stdev_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
};

struct BenchResult {
  BenchSettings settings;  // as run: mtu and cq_mod resolved, inline as granted
  std::string device, peer_device;
  bool loopback = false;
  std::string gid, peer_gid;
  int gid_index = -1, peer_gid_index = -1;
  int active_mtu = 0;  // the smaller of the two ports' active_mtu, bytes

  BenchEnd end = BenchEnd::kOk;
  std::string failure;  // what ended it when not kOk, with the numbers
  int wc_status = 0;
  std::string wc_status_text;
  uint32_t vendor_err = 0;
  std::string qp_state;  // ibv_query_qp of the first QP after the run

  // Bandwidth.
  uint64_t messages = 0;  // completed
  uint64_t bytes = 0;
  double seconds = 0;     // first post -> last completion (after warm-up)
  double bw_avg_gbps = 0;
  double bw_peak_gbps = 0;  // the best slice
  double msg_rate_mpps = 0;
  std::vector<double> slice_gbps;  // per StopRule slice (or per 1/20 of the run)
  bool stable = false;             // a StopRule ended it within its spread

  // Latency.
  LatencyStats lat;

  uint64_t registered_bytes = 0;  // memory registered for the run (both ends)
  Counters counters_before, counters_after;            // local port hw_counters
  Counters peer_counters_before, peer_counters_after;  // peer's (same when loopback)
  bool counters_known = false;
  double setup_seconds = 0;  // open, create, connect
  std::vector<std::string> notes;

  double bw_avg_mbps() const;  // MB/s, 2^20 bytes (perftest's MB/sec)
};

// --- peer mode ---------------------------------------------------------------
// A session across hosts: this host's end posts every WR (the requester);
// the far end's QPs and region are its targets, and the far end keeps its
// receive queues full (SEND) or answers each ping (latency). These cross the
// side channel (tools/peer/messages.h), so they are plain data.

// What a session's QPs and buffers are created for (both ends' in peer mode).
struct SessionShape {
  BenchMode mode = BenchMode::kBandwidth;
  BenchOp op = BenchOp::kWrite;
  int qps = 1;
  uint32_t max_size = kDefaultBwSize;
  int tx_depth = kDefaultTxDepth;
  uint32_t inline_size = 0;
  int mtu = 0;  // the path MTU asked, bytes; 0: the (smaller) active MTU
  bool operator==(const SessionShape& o) const;
};

// What the far end needs to create and connect its QPs: the session's shape
// and this end's QPs, GID and region.
struct BenchNear {
  SessionShape shape;
  int active_mtu = 0;   // this end's, bytes
  int rd_atomic = 1;    // READs in flight this end allows
  std::string device;   // this end's, for the far end's log
  std::string peer_device;  // the far end's to use ("": the one it serves)
  std::optional<int> peer_gid_index;
  std::string gid;      // this end's, textual
  std::vector<uint32_t> qpns;
  uint64_t addr = 0;    // this end's region (latency: the far end writes its first half)
  uint32_t rkey = 0;
  uint64_t region_bytes = 0;
};

// The far end's answer: its QPs (connected to ours), GID and region.
struct BenchFar {
  std::string device;  // "rxe1@198.18.0.2" once tools/peer names the host
  int port = 1;
  std::string gid;
  int gid_index = -1;
  int active_mtu = 0;  // the far port's, bytes
  int path_mtu = 0;    // what both ends' QPs were connected with, bytes
  int rd_atomic = 1;   // READs in flight both allow
  std::vector<uint32_t> qpns;
  uint64_t addr = 0;
  uint32_t rkey = 0;
  uint64_t region_bytes = 0;
};

// What the far end's half saw of one run.
struct BenchFarRun {
  BenchEnd end = BenchEnd::kOk;
  std::string failure;
  int wc_status = 0;
  std::string wc_status_text;
  uint32_t vendor_err = 0;
  std::string qp_state;
  bool counters_known = false;
  Counters counters_before, counters_after;
};

// This end's line to the far end. Open creates and connects the far end's
// QPs (one far session at a time); Start readies its half of a run (receives
// posted, the ping target cleared) and returns once it is ready; Finish ends
// that half and says what it saw; Close releases the far end's QPs.
class BenchPeer {
 public:
  virtual ~BenchPeer() = default;
  virtual absl::StatusOr<BenchFar> Open(const BenchNear& near) = 0;
  virtual absl::Status Start(const BenchSettings& s) = 0;
  virtual absl::StatusOr<BenchFarRun> Finish() = 0;
  virtual void Close() = 0;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_BENCH_TYPES_H_
