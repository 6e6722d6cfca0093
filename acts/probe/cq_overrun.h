// RunCqOverrunProbe: make a CQ deliberately too small and overrun it, to see
// what this device does then. On one device, two RC QPs are connected to
// each other (the driver's loopback); the sender's send CQ has req.cqe
// entries, its send queue room for the whole burst. The burst of signaled
// 64-byte RDMA WRITEs is posted without polling; then the probe watches the
// async event fd (IBV_EVENT_CQ_ERR and when), reads the QP state, drains the
// CQ counting statuses (success, IBV_WC_WR_FLUSH_ERR), and posts one more WR
// to see whether the QP still works.
//
//   CqOverrunRequest req;
//   req.device = "rxe0"; req.cqe = 4;
//   ASSIGN_OR_RETURN(CqOverrunResult r, RunCqOverrunProbe(req));
//   // rxe: granted_cqe 7, posted 16, CQ_ERR after a few ms, Lost() 9
//
// Bounded: every wait has req.deadline_s, events are read from a
// non-blocking fd with poll(), a SIGINT stops it (SigintGuard, acts/probe/probe.h)
// and everything created is released on every path before it returns.
#ifndef RDMACHECK_ACTS_PROBE_CQ_OVERRUN_H_
#define RDMACHECK_ACTS_PROBE_CQ_OVERRUN_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "acts/cq_overrun_types.h"

namespace rdmacheck {

// InvalidArgument for no device, cqe 0 or > 4096, burst > 4096, deadline
// outside (0, 60], with the field named.
absl::Status ValidateCqOverrunRequest(const CqOverrunRequest& req);

// The burst actually posted for a granted CQ depth: req.burst, or
// 2 x granted + 2 when 0 (always more than the CQ holds).
uint32_t CqOverrunBurst(const CqOverrunRequest& req, uint32_t granted_cqe);

// NotFound for a missing device, FailedPrecondition for a port not ACTIVE,
// the verbs error (call and arguments) for a failed setup step. What the
// device did with the overrun is the result, not an error.
absl::StatusOr<CqOverrunResult> RunCqOverrunProbe(const CqOverrunRequest& req);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_CQ_OVERRUN_H_
