// RunTrafficProbe: a live RC connection between two local RDMA devices
// (rxe0 <-> rxe1 over their netdevs) or within one device, then the WRs of a
// ProbeRequest one at a time, each with a completion deadline, every byte
// verified at the receiver. Records QP states, async events and the ports'
// hw_counters before and after each WR, for ClassifyProbe (acts/probe/classify.h).
//
//   ProbeRequest req{.device = "rxe0", .peer_device = "rxe1"};
//   req.wrs = HangProbeWrs();
//   ASSIGN_OR_RETURN(ProbeResult r, RunTrafficProbe(req));
//
// Bounded: retry_cnt and rnr_retry must be < 7 (7 retries forever on rxe),
// every wait has req.deadline_s, async events are read from a non-blocking fd
// with poll(). Everything created is released on every path. While it runs a
// SIGINT handler raises a flag the loops check; after the teardown the
// previous handler is restored and SIGINT re-raised, so Ctrl-C ends the
// process (status 130) with nothing left behind in the kernel.
#ifndef RDMACHECK_ACTS_PROBE_PROBE_H_
#define RDMACHECK_ACTS_PROBE_PROBE_H_

#include <atomic>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "acts/probe_types.h"
#include "util/stop_flag.h"  // SigintGuard, which every probe entry point declares first

namespace rdmacheck {

// InvalidArgument for a request the probe refuses (retry_cnt 7, no WRs,
// deadline <= 0 or > 600 s, timeout outside 1..31), with the field named.
absl::Status ValidateProbeRequest(const ProbeRequest& req);

// NotFound for a missing device, FailedPrecondition for a port not ACTIVE,
// the verbs error (call and arguments) for a failed setup step. A WR that
// fails is not an error: it is in the result.
absl::StatusOr<ProbeResult> RunTrafficProbe(const ProbeRequest& req);

// The flag probes stop on: util/stop_flag.h, raised by the SIGINT handler
// while a probe runs and by the check runner at a check's deadline.
const std::atomic<bool>& ProbeInterruptFlag();

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_PROBE_H_
