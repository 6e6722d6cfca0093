#include "probe/probe_types.h"

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

Counters CounterDelta(const Counters& before, const Counters& after) {
  Counters d;
  for (const auto& [name, v] : after) {
    auto it = before.find(name);
    if (it == before.end()) continue;
    d[name] = v >= it->second ? v - it->second : 0;
  }
  return d;
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
