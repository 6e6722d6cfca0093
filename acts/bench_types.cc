#include "acts/bench_types.h"

namespace rdmacheck {

absl::string_view BenchOpName(BenchOp op) {
  switch (op) {
    case BenchOp::kWrite: return "write";
    case BenchOp::kSend: return "send";
    case BenchOp::kRead: return "read";
  }
  return "?";
}

std::optional<BenchOp> ParseBenchOp(absl::string_view s) {
  if (s == "write") return BenchOp::kWrite;
  if (s == "send") return BenchOp::kSend;
  if (s == "read") return BenchOp::kRead;
  return std::nullopt;
}

absl::string_view BenchEndName(BenchEnd e) {
  switch (e) {
    case BenchEnd::kOk: return "ok";
    case BenchEnd::kStalled: return "stalled";
    case BenchEnd::kWcError: return "completion error";
    case BenchEnd::kPostFailed: return "post failed";
    case BenchEnd::kInterrupted: return "interrupted";
  }
  return "?";
}

bool SessionShape::operator==(const SessionShape& o) const {
  return mode == o.mode && op == o.op && qps == o.qps && max_size == o.max_size && tx_depth == o.tx_depth &&
         inline_size == o.inline_size && mtu == o.mtu;
}

double BenchResult::bw_avg_mbps() const {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / (1 << 20) : 0;
}

}  // namespace rdmacheck
