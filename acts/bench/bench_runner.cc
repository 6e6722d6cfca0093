#include "acts/bench/bench_runner.h"

#include <algorithm>

namespace rdmacheck {

std::optional<SessionShape> CoveringShape(const std::vector<BenchSettings>& all) {
  if (all.empty()) return std::nullopt;
  SessionShape sh = ShapeFor(all[0]);
  for (const BenchSettings& s : all) {
    SessionShape o = ShapeFor(s);
    if (o.mode != sh.mode || o.op != sh.op || o.mtu != sh.mtu) return std::nullopt;
    sh.qps = std::max(sh.qps, o.qps);
    sh.max_size = std::max(sh.max_size, o.max_size);
    sh.tx_depth = std::max(sh.tx_depth, o.tx_depth);
    sh.inline_size = std::max(sh.inline_size, o.inline_size);
  }
  return sh;
}

void LiveRunner::Prepare(const std::vector<BenchSettings>& upcoming) {
  next_ = CoveringShape(upcoming);
  if (next_ && !CheckMemlock(RegisteredBytes(*next_), SoftMemlockLimit()).ok()) next_.reset();
}

absl::StatusOr<BenchResult> LiveRunner::Run(const BenchSettings& s) {
  if (!session_ || !session_->Fits(s)) {
    session_.reset();  // release the old QPs and memory before making new ones
    SessionShape want = ShapeFor(s);
    if (next_) {
      SessionShape cover = *next_;
      if (cover.mode == want.mode && cover.op == want.op && cover.mtu == want.mtu && cover.qps >= want.qps &&
          cover.max_size >= want.max_size && cover.tx_depth >= want.tx_depth && cover.inline_size >= want.inline_size)
        want = cover;
    }
    absl::StatusOr<std::unique_ptr<BenchSession>> opened = BenchSession::Open(ends_, want);
    if (!opened.ok()) return opened.status();
    session_ = *std::move(opened);
    ++opened_;
  }
  absl::StatusOr<BenchResult> r = session_->Run(s);
  if (r.ok() && r->end != BenchEnd::kOk) session_.reset();  // its QPs are unusable now
  return r;
}

absl::StatusOr<int> LiveRunner::ActiveMtu() {
  if (!session_) {
    absl::StatusOr<std::unique_ptr<BenchSession>> opened = BenchSession::Open(ends_, SessionShape{});
    if (!opened.ok()) return opened.status();
    session_ = *std::move(opened);
    ++opened_;
  }
  return session_->active_mtu();
}

}  // namespace rdmacheck
