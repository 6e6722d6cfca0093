// ProbeRequest / ProbeResult: what a live traffic probe is asked to do and
// what it saw. Plain data (no libibverbs), so checks and their tests use them
// without a device; the probe itself is acts/probe/probe.h, reached by checks
// through Device::RunTrafficProbe (acts/device.h).
//
//   ProbeRequest req;
//   req.device = "rxe0"; req.peer_device = "rxe1";   // "" peer: same device
//   req.wrs = {{ProbeOp::kSend, 64}, {ProbeOp::kRdmaWrite, 65536}};
//   absl::StatusOr<ProbeResult> got = dev->RunTrafficProbe(req);
//   for (const WrOutcome& w : got->wrs) ... w.state, w.wc_status, w.verified
#ifndef RDMACHECK_ACTS_PROBE_TYPES_H_
#define RDMACHECK_ACTS_PROBE_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "facts/hw_counters.h"

namespace rdmacheck {

enum class ProbeOp { kSend, kRdmaWrite };
absl::string_view ProbeOpName(ProbeOp op);  // "SEND", "RDMA_WRITE"

inline constexpr uint64_t kPage4K = 4096;
inline constexpr uint64_t kPage2M = 2ull << 20;

// One work request of the probe.
struct WrSpec {
  ProbeOp op = ProbeOp::kSend;
  // Contiguous mode (straddle == 0): the message size in one SGE.
  // Straddle mode: the bytes of EACH SGE.
  uint32_t bytes = 64;
  // SGEs in the WR; 0 means the granted max_send_sge.
  uint32_t num_sge = 1;
  // 0: one contiguous SGE. Else every SGE straddles a boundary of this many
  // bytes (kPage4K, kPage2M); kPage2M needs huge pages.
  uint64_t straddle = 0;
};

struct ProbeRequest {
  std::string device;
  int port = 1;
  std::string peer_device;  // empty: the same device (rxe internal loopback)
  int peer_port = 1;
  std::optional<int> gid_index;       // -x; else chosen (RoCE v2 IPv4-mapped first)
  std::optional<int> peer_gid_index;  // else chosen the same way
  // IB transport retries. 7 means "forever" on rxe: refused (InvalidArgument).
  int retry_cnt = 6;
  int rnr_retry = 3;  // also < 7 for the same reason
  // Local ACK timeout exponent: 4.096 us * 2^timeout per try (14: ~67 ms).
  int timeout = 14;
  // Each wait for a completion ends after this long.
  double deadline_s = 2.0;
  // Ask the QP for the device's max_sge (to be able to post num_sge = 0).
  bool want_max_sge = false;
  std::vector<WrSpec> wrs;
  // Sysfs root for hw_counters (tests point it at a fake tree).
  std::string sysfs_root = "/sys";
};


enum class WrState {
  kNotRun,        // an earlier WR failed or the probe was interrupted
  kCompleted,     // success completion (and, for SEND, the receive too)
  kError,         // completed with an error status
  kNoCompletion,  // nothing by the deadline
  kPostFailed,    // ibv_post_send/recv refused it
};
absl::string_view WrStateName(WrState s);

struct WrOutcome {
  int index = 0;
  WrSpec spec;
  uint32_t num_sge = 0;          // resolved (num_sge 0 -> granted)
  uint64_t total_bytes = 0;      // sum of SGE lengths
  int sges_crossing = 0;         // SGEs that straddle spec.straddle
  WrState state = WrState::kNotRun;
  int wc_status = 0;             // enum ibv_wc_status when kError/kCompleted
  std::string wc_status_text;    // ibv_wc_status_str
  uint32_t vendor_err = 0;
  bool recv_side = false;        // the error came from the receiver's CQ
  std::string post_error;        // when kPostFailed
  std::string skip_reason;       // kNotRun because the probe could not do it here
  std::string qp_state_before;   // ibv_query_qp just before the post: "RTS", "ERR"
  double seconds = 0;            // post -> completion (or deadline)
  bool verified = false;         // every byte compared equal
  std::optional<uint64_t> first_mismatch;  // byte offset, when not verified
  Counters local_delta;          // hw_counters change during this WR
  Counters peer_delta;
};

struct ProbeResult {
  std::string device;
  std::string peer_device;
  bool loopback = false;  // same device: rxe's internal path, no IP stack
  int gid_index = -1;
  int peer_gid_index = -1;
  std::string gid;        // textual, e.g. "::ffff:198.18.0.1"
  std::string peer_gid;
  std::string gid_type;   // "RoCEv2"
  int path_mtu = 0;       // bytes
  int retry_cnt = 0;
  int timeout = 0;
  double deadline_s = 0;
  uint32_t requested_send_sge = 0;
  uint32_t granted_send_sge = 0;
  std::vector<WrOutcome> wrs;
  // ibv_query_qp state after the run: "RTS", "ERR", ...
  std::string qp_state;
  std::string peer_qp_state;
  // "QP_FATAL on rxe0 (qp 17)", "CQ_ERR on rxe1"
  std::vector<std::string> async_events;
  Counters counters_before, counters_after;            // local device port
  Counters peer_counters_before, peer_counters_after;  // peer (same when loopback)
  bool counters_known = false;
  bool interrupted = false;   // SIGINT during the probe
  std::vector<std::string> notes;  // e.g. "no huge pages: 2 MiB part skipped"
  double seconds = 0;
  double setup_seconds = 0;  // open, create, connect: before the first WR
  // Where the WRs' time went (docs/performance.md): posting and waiting for
  // completions, reading both ends' hw_counters, writing the messages and
  // comparing every byte.
  double wait_seconds = 0;
  double counters_seconds = 0;
  double bytes_seconds = 0;

  // The first WR that did not complete successfully and verified, or null.
  const WrOutcome* FirstFailure() const;
  int CompletedCount() const;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_TYPES_H_
