#include "acts/probe_types.h"

namespace rdmacheck {

absl::string_view ProbeOpName(ProbeOp op) {
  return op == ProbeOp::kSend ? "SEND" : "RDMA_WRITE";
}

absl::string_view WrStateName(WrState s) {
  switch (s) {
    case WrState::kNotRun: return "not run";
    case WrState::kCompleted: return "completed";
    case WrState::kError: return "completed with error";
    case WrState::kNoCompletion: return "no completion";
    case WrState::kPostFailed: return "post failed";
  }
  return "?";
}

const WrOutcome* ProbeResult::FirstFailure() const {
  for (const WrOutcome& w : wrs) {
    if (w.state == WrState::kNotRun) continue;
    if (w.state != WrState::kCompleted || !w.verified) return &w;
  }
  return nullptr;
}

int ProbeResult::CompletedCount() const {
  int n = 0;
  for (const WrOutcome& w : wrs) n += (w.state == WrState::kCompleted && w.verified) ? 1 : 0;
  return n;
}

}  // namespace rdmacheck
