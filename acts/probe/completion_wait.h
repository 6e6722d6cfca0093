// WaitForCompletions: poll a CQ until the wanted completions arrive, the
// deadline passes or a stop flag is raised; never an unbounded loop. The CQ
// poll, the clock and the pause between empty polls are injected, so the
// deadline logic is tested with a fake clock.
//
//   CompletionPoller p{.poll = [&](int n, ibv_wc* wc) { return ibv_poll_cq(cq, n, wc); }};
//   WaitOutcome w = WaitForCompletions(p, /*want=*/1, /*deadline_s=*/2.0, &g_stop);
//   if (w.end == WaitEnd::kDeadline) ...  // w.seconds ~ 2.0
#ifndef RDMACHECK_ACTS_PROBE_COMPLETION_WAIT_H_
#define RDMACHECK_ACTS_PROBE_COMPLETION_WAIT_H_

#include <infiniband/verbs.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "acts/probe_types.h"

namespace rdmacheck {

struct CompletionPoller {
  // ibv_poll_cq(cq, n, wc): completions written, or < 0 on error.
  std::function<int(int, ibv_wc*)> poll;
  // Monotonic seconds; default std::chrono::steady_clock.
  std::function<double()> now;
  // Called between empty polls; default sleeps 20 us (keeps latency low
  // without spinning a core for the whole deadline).
  std::function<void()> pause;
};

enum class WaitEnd { kGot, kDeadline, kStopped, kPollError };

struct WaitOutcome {
  WaitEnd end = WaitEnd::kGot;
  std::vector<ibv_wc> wcs;  // what arrived, in order (also on the other ends)
  double seconds = 0;
  int poll_rc = 0;          // the negative ibv_poll_cq return on kPollError
};

// Returns once `want` completions arrived, or any completion with an error
// status arrived (the QP is then in error: waiting for more is pointless), or
// deadline_s passed, or *stop became true.
WaitOutcome WaitForCompletions(const CompletionPoller& p, int want, double deadline_s,
                               const std::atomic<bool>* stop);

// Writes what the wait for a WR's send-side completion says into *w: its
// seconds, its state and, on an error completion, the status and vendor
// error. A Ctrl-C during the wait sets *interrupted. Returns true when the
// WR completed with success. The local probe and the peer probe share it.
bool RecordSendCompletion(const WaitOutcome& ws, WrOutcome* w, bool* interrupted);

// What the receiver's CQ said about a SEND's receive (the peer probe's far end
// sends it across in WR_RESULT, tools/peer/messages.h).
struct RecvCompletion {
  enum class State { kCompleted, kNone, kError };
  State state = State::kNone;
  // kError: the completion's status and vendor error; absent when
  // ibv_poll_cq itself failed (wc_status_text then says so).
  std::optional<int> wc_status;
  std::string wc_status_text;
  uint32_t vendor_err = 0;
};
// The outcome of waiting for one receive completion.
RecvCompletion RecvCompletionOf(const WaitOutcome& wo);
// Writes a failed receive into *w, on the receive side: no receive
// (kNoCompletion) or its error status. A good receive leaves *w as the send
// left it.
void RecordRecvCompletion(const RecvCompletion& rc, WrOutcome* w);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_COMPLETION_WAIT_H_
