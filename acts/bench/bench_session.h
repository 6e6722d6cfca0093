// BenchSession: RC QP pairs between two ends (one device to itself, or two
// local devices), with buffers registered once, over which bandwidth and
// latency runs are made one after the other. A sweep reuses one session
// across the points whose parameters allow it (size, post list, CQ
// moderation, pinning, fewer QPs); a new path MTU, more QPs, a deeper send
// queue or more inline needs a new one (Fits says which).
//
//   ASSIGN_OR_RETURN(auto s, BenchSession::Open(ends, ShapeFor(settings)));
//   ASSIGN_OR_RETURN(BenchResult r, s->Run(settings));
//   r.bw_avg_gbps
//
// Bounded: no wait lasts longer than ends.deadline_s without progress (a
// stalled run ends with BenchEnd::kStalled, its QP state and counters, never
// a hang); the stop flag (util/stop_flag.h: Ctrl-C, the runner's deadline)
// ends a run at once. Memory to register is checked against RLIMIT_MEMLOCK
// before anything is registered. Everything is released when the session
// goes, on every path.
#ifndef RDMACHECK_ACTS_BENCH_BENCH_SESSION_H_
#define RDMACHECK_ACTS_BENCH_BENCH_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "acts/bench_types.h"

namespace rdmacheck {

// What a session is created for: SessionShape (acts/bench_types.h).
SessionShape ShapeFor(const BenchSettings& s);

// Bytes a session of this shape registers (both ends).
uint64_t RegisteredBytes(const SessionShape& shape);

// The memlock check: FailedPrecondition naming the bytes, the limit and the
// remedy when `bytes` exceed the soft RLIMIT_MEMLOCK `limit` (nullopt:
// unlimited). Separate so it is tested without a device.
absl::Status CheckMemlock(uint64_t bytes, std::optional<uint64_t> limit);
// This process's soft RLIMIT_MEMLOCK in bytes; nullopt when unlimited.
std::optional<uint64_t> SoftMemlockLimit();

class BenchSession {
 public:
  // NotFound for a missing device, FailedPrecondition for a port not ACTIVE
  // or memory over RLIMIT_MEMLOCK, InvalidArgument for an MTU above the
  // ports', the verbs error (call and arguments) for a failed setup step.
  static absl::StatusOr<std::unique_ptr<BenchSession>> Open(const BenchEnds& ends, const SessionShape& shape);
  ~BenchSession();
  BenchSession(const BenchSession&) = delete;
  BenchSession& operator=(const BenchSession&) = delete;

  // Whether `s` can run on this session's QPs and buffers.
  bool Fits(const BenchSettings& s) const;
  // One run (bandwidth or latency by s.mode). InvalidArgument when !Fits(s);
  // FailedPrecondition after a run that left the QPs unusable (stalled,
  // error, interrupted). A run that stalls or fails is not an error: it is
  // in the result's `end`.
  absl::StatusOr<BenchResult> Run(const BenchSettings& s);

  const SessionShape& shape() const;
  int active_mtu() const;  // the smaller of the ports' active MTU, bytes

 private:
  struct State;
  explicit BenchSession(std::unique_ptr<State> st);
  std::unique_ptr<State> st_;
};

// The far end's half of a peer-mode session (`rdmacheck serve`): QPs of the
// near end's shape on `device`, connected to the near end's, and a region
// for its WRITEs. Between Start and Finish it keeps the receive queues full
// (SEND) or answers each ping (latency) on a thread of its own; WRITE and
// READ runs need nothing of it. Bounded as a session is; the QPs go to ERR
// before they are destroyed after a run that ended badly.
//
//   ASSIGN_OR_RETURN(auto far, BenchResponder::Open(near, "rxe1", 1, "/sys", 2.0));
//   send far->far() to the near end; then per run:
//   far->Start(settings); ... BenchFarRun seen = far->Finish();
class BenchResponder {
 public:
  // InvalidArgument for a near end's shape out of bounds or an MTU above
  // the ports'; NotFound / FailedPrecondition / the verbs error as Open's.
  static absl::StatusOr<std::unique_ptr<BenchResponder>> Open(const BenchNear& near, const std::string& device,
                                                              int port, const std::string& sysfs_root,
                                                              double deadline_s);
  ~BenchResponder();
  BenchResponder(const BenchResponder&) = delete;
  BenchResponder& operator=(const BenchResponder&) = delete;

  const BenchFar& far() const;
  // Readies this end's half of a run and, for SEND and latency, starts its
  // thread; returns once the near end may post. FailedPrecondition after a
  // run that left the QPs unusable.
  absl::Status Start(const BenchSettings& s);
  // Stops the thread (if any) and says what this end saw.
  BenchFarRun Finish();

 private:
  struct State;
  explicit BenchResponder(std::unique_ptr<State> st);
  std::unique_ptr<State> st_;
};

// A run in a session of its own (ShapeFor(s)).
absl::StatusOr<BenchResult> RunBench(const BenchEnds& ends, const BenchSettings& s);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_BENCH_BENCH_SESSION_H_
