// `rdmacheck watch`: samples every QP on the host (the kernel's RDMA netlink
// resource dump, tools/watch/qp_dump.h) a few times and flags the QPs that are in
// error or not progressing between samples. docs/watch.md says what each
// flag means and why.
//
//   std::vector<std::vector<QpRecord>> samples = ...;   // oldest first
//   WatchReport rep = EvaluateSamples(samples, /*interval_s=*/1);
//   std::cout << RenderWatchText(rep);                   // or RenderWatchJson
//   return rep.flagged > 0 ? 1 : 0;
//
//   int code = RunWatchCommand(WatchOptions{.count = 2}, std::cout, std::cerr);
#ifndef RDMACHECK_TOOLS_WATCH_WATCH_H_
#define RDMACHECK_TOOLS_WATCH_WATCH_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/watch/qp_dump.h"

namespace rdmacheck {

enum class QpFlag {
  kNone,
  kError,        // state ERR or SQE: the QP failed; its WRs flush
  kRetransmit,   // sq-psn went back: the requester is resending unacknowledged packets
  kNoProgress,   // RTS, and neither sq-psn nor rq-psn moved: idle, or stuck
};
absl::string_view QpFlagName(QpFlag f);  // "", "error", "retransmitting", "no-progress"

// One QP followed through the samples (matched by device, lqpn, pid, comm).
struct WatchedQp {
  QpRecord last;                       // the latest sample it appears in
  std::vector<std::string> states;     // per sample it appears in
  std::vector<std::optional<uint32_t>> sq_psn, rq_psn;
  int seen = 0;                        // samples it appears in
  bool appeared = false;               // not in the first sample
  bool gone = false;                   // not in the last sample
  QpFlag flag = QpFlag::kNone;
  std::string reason;                  // why flagged, with the numbers
  // The other end when it is on this host too (RC: its lqpn is our rqpn and
  // its rqpn our lqpn, one such QP): "rxe1/1 qp 17".
  std::string local_peer;
  // Packets this QP sent that its local peer has not received (our last
  // sq-psn - its last rq-psn, mod 2^24), when local_peer is known.
  std::optional<uint32_t> unreceived;
};

struct WatchReport {
  int samples = 0;
  double interval_s = 0;
  std::vector<WatchedQp> qps;          // by device, port, lqpn
  int flagged = 0;
  std::vector<std::string> notes;      // e.g. "1 sample: progress not judged"
};

// Pure: the report for samples taken interval_s apart (oldest first).
WatchReport EvaluateSamples(const std::vector<std::vector<QpRecord>>& samples, double interval_s);

std::string RenderWatchText(const WatchReport& rep);
std::string RenderWatchJson(const WatchReport& rep);  // schema "rdmacheck.watch/1"

// Where samples come from (tests replace it): the parsed dump, or the error.
using QpSampler = std::function<absl::StatusOr<std::vector<QpRecord>>()>;
QpSampler RdmaToolSampler(double deadline_s = 5);

// What `rdmacheck watch` is asked to do (its flags: cli/watch_flags.h).
struct WatchOptions {
  double interval_s = 1;       // between samples
  int count = 3;               // samples; 0: until Ctrl-C (the report covers the samples taken)
  std::string format = "text"; // or "json"
  std::string device;          // only this device's QPs; "": all
};

// `rdmacheck watch`. Exit 0 nothing flagged, 1 something flagged, 3 the
// dump could not be read. `sleep_s` and `sampler` default to the real
// ones; tests pass fakes.
int RunWatchCommand(const WatchOptions& options, std::ostream& out, std::ostream& err,
                    QpSampler sampler = nullptr, std::function<bool(double)> sleep_s = nullptr);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_WATCH_WATCH_H_
