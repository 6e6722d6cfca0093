#include "tools/peer/remote_bench.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "acts/bench/bench_session.h"
#include "tools/peer/messages.h"
#include "util/status_macros.h"

namespace rdmacheck {

// --- client half ------------------------------------------------------------

absl::StatusOr<BenchFar> ChannelBenchPeer::Open(const BenchNear& near) {
  Close();
  RDMACHECK_ASSIGN_OR_RETURN(BenchReadyMsg ready, AskMsg<BenchReadyMsg>(ch_, BenchSetupMsg{near}));
  open_ = true;
  BenchFar far = std::move(ready.far);
  far.device = absl::StrCat(far.device, "@", host_);
  return far;
}

absl::Status ChannelBenchPeer::Start(const BenchSettings& s) {
  BenchRunMsg m;
  m.mode = s.mode;
  m.op = s.op;
  m.size = s.size;
  m.qps = s.mode == BenchMode::kLatency ? 1 : std::max(1, s.qps);
  m.tx_depth = s.tx_depth;
  m.inline_size = s.inline_size.value_or(0);
  m.iters = s.iters;
  absl::StatusOr<BenchStartedMsg> started = AskMsg<BenchStartedMsg>(ch_, m);
  // An ERROR frame means the far end has ended its session already.
  if (!started.ok()) open_ = false;
  return started.status();
}

absl::StatusOr<BenchFarRun> ChannelBenchPeer::Finish() {
  // The far end answers once its thread has stopped, within its own
  // completion deadlines (2 s each): well inside the channel's deadline.
  absl::StatusOr<BenchDoneMsg> done = AskMsg<BenchDoneMsg>(ch_, BenchStopMsg{});
  if (!done.ok()) {
    open_ = false;
    return done.status();
  }
  return std::move(done->run);
}

void ChannelBenchPeer::Close() {
  if (!open_) return;
  open_ = false;
  (void)SendMsg(ch_, BenchEndMsg{});
}

// --- server half ------------------------------------------------------------

namespace {

absl::Status ServeImpl(PeerChannel& ch, const PeerFrame& setup, const std::string& device,
                       const std::string& root) {
  RDMACHECK_ASSIGN_OR_RETURN(BenchSetupMsg m, BenchSetupMsg::Decode(setup.payload));
  if (!device.empty() && !m.near.peer_device.empty() && m.near.peer_device != device)
    return absl::InvalidArgumentError(absl::StrCat("this server serves ", device, ", not ", m.near.peer_device));
  const std::string dev = device.empty() ? m.near.peer_device : device;
  if (dev.empty()) return absl::InvalidArgumentError("no device: start `rdmacheck serve -d DEV`");
  RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<BenchResponder> far, BenchResponder::Open(m.near, dev, 1, root, 2.0));
  RDMACHECK_RETURN_IF_ERROR(SendMsg(ch, BenchReadyMsg{far->far()}));
  for (;;) {
    RDMACHECK_ASSIGN_OR_RETURN(PeerFrame fr, ch.Receive());
    if (fr.type == BenchRunMsg::kType) {
      RDMACHECK_ASSIGN_OR_RETURN(BenchRunMsg run, BenchRunMsg::Decode(fr.payload));
      if (run.iters > 1'000'000'000 || run.tx_depth < 1)
        return absl::InvalidArgumentError(absl::StrCat(BenchRunMsg::kType, ": iters ", run.iters, " tx_depth ",
                                                       run.tx_depth, " out of bounds (..1e9, 1..)"));
      BenchSettings s;
      s.mode = run.mode;
      s.op = run.op;
      s.size = run.size;
      s.qps = run.qps;
      s.tx_depth = run.tx_depth;
      if (run.inline_size > 0) s.inline_size = run.inline_size;
      s.iters = run.iters;
      RDMACHECK_RETURN_IF_ERROR(far->Start(s));
      RDMACHECK_RETURN_IF_ERROR(SendMsg(ch, BenchStartedMsg{}));
    } else if (fr.type == BenchStopMsg::kType) {
      RDMACHECK_RETURN_IF_ERROR(SendMsg(ch, BenchDoneMsg{far->Finish()}));
    } else if (fr.type == BenchEndMsg::kType) {
      return absl::OkStatus();
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected ", fr.type, " frame during a bench session"));
    }
  }
}

}  // namespace

absl::Status ServePeerBench(PeerChannel& ch, const PeerFrame& setup, const std::string& device,
                            const std::string& sysfs_root) {
  absl::Status s = ServeImpl(ch, setup, device, sysfs_root);
  // Tell the client why, unless the channel itself is what failed.
  if (!s.ok() && !absl::IsDeadlineExceeded(s) && !absl::IsUnavailable(s) && !absl::IsDataLoss(s))
    ch.SendError(s.message());
  return s;
}

}  // namespace rdmacheck
