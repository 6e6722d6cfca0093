// CqOverrunRequest / CqOverrunResult: what the CQ-overrun probe is asked to
// do and what the device then did. Plain data (no libibverbs), so the
// cq-overrun check and its tests use them without a device; the probe is
// acts/probe/cq_overrun.h, reached through Device::RunCqOverrunProbe.
//
//   CqOverrunRequest req;
//   req.device = "rxe0"; req.cqe = 4;      // rxe grants 7
//   absl::StatusOr<CqOverrunResult> got = dev->RunCqOverrunProbe(req);
//   got->cq_err_seconds;  // first IBV_EVENT_CQ_ERR, seconds after the first post
//   got->Lost();          // signaled WRs posted - completions polled
#ifndef RDMACHECK_ACTS_CQ_OVERRUN_TYPES_H_
#define RDMACHECK_ACTS_CQ_OVERRUN_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmacheck {

struct CqOverrunRequest {
  std::string device;
  int port = 1;
  std::optional<int> gid_index;  // -x; else chosen (RoCE v2 IPv4-mapped first)
  // The deliberately small CQ the sender completes into.
  uint32_t cqe = 4;
  // Signaled RDMA WRITEs posted without polling; 0: 2 x granted cqe + 2.
  uint32_t burst = 0;
  // Each wait (for the event, for the queue to settle, for the drain, for
  // the WR posted afterwards) ends after this long.
  double deadline_s = 2.0;
  std::string sysfs_root = "/sys";
};

// One async event, with when it came.
struct TimedEvent {
  std::string what;      // "CQ_ERR on rxe0", "QP_FATAL on rxe0 (qp 17)"
  double seconds = 0;    // after the first post
};

struct CqOverrunResult {
  std::string device;
  int gid_index = -1;
  std::string gid;
  uint32_t requested_cqe = 0;
  uint32_t granted_cqe = 0;       // ibv_cq.cqe after ibv_create_cq
  uint32_t granted_send_wr = 0;   // the sender's send queue, as granted
  int posted = 0;                 // signaled WRs accepted by ibv_post_send
  std::string post_error;         // the first refused post, if any
  double post_seconds = 0;        // first post -> last post returned
  // The first IBV_EVENT_CQ_ERR, seconds after the first post; none: not seen
  // within the deadline.
  std::optional<double> cq_err_seconds;
  std::vector<TimedEvent> events;  // every async event read, in order
  std::string qp_state_after;      // ibv_query_qp once the burst settled
  // Completions polled after the burst, by status text ("success",
  // "Work Request Flushed Error"), and in total.
  std::map<std::string, int> statuses;
  int polled = 0;
  int polled_success = 0;
  int polled_flushed = 0;
  // One more signaled WR posted after the drain: "completed: success",
  // "completed: Work Request Flushed Error", "no completion in 2 s",
  // "post refused: ...".
  std::string next_wr;
  std::string qp_state_final;      // after that WR
  bool interrupted = false;        // SIGINT: stopped early, all released
  double setup_seconds = 0;
  double seconds = 0;

  // Completions of the burst never polled: the ones the overrun lost.
  int Lost() const { return posted > polled ? posted - polled : 0; }
};

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_CQ_OVERRUN_TYPES_H_
