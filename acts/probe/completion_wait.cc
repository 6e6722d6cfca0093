#include "acts/probe/completion_wait.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"

namespace rdmacheck {

WaitOutcome WaitForCompletions(const CompletionPoller& p, int want, double deadline_s,
                               const std::atomic<bool>* stop) {
  auto now = p.now ? p.now : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  auto pause = p.pause ? p.pause : [] { std::this_thread::sleep_for(std::chrono::microseconds(20)); };
  WaitOutcome out;
  const double start = now();
  ibv_wc batch[16];
  while (true) {
    int room = want - static_cast<int>(out.wcs.size());
    if (room > 16) room = 16;
    int n = room > 0 ? p.poll(room, batch) : 0;
    if (n < 0) {
      out.end = WaitEnd::kPollError;
      out.poll_rc = n;
      break;
    }
    bool error = false;
    for (int i = 0; i < n; ++i) {
      out.wcs.push_back(batch[i]);
      error = error || batch[i].status != IBV_WC_SUCCESS;
    }
    if (error || static_cast<int>(out.wcs.size()) >= want) {
      out.end = WaitEnd::kGot;
      break;
    }
    if (stop != nullptr && stop->load()) {
      out.end = WaitEnd::kStopped;
      break;
    }
    if (now() - start >= deadline_s) {
      out.end = WaitEnd::kDeadline;
      break;
    }
    if (n == 0) pause();
  }
  out.seconds = now() - start;
  return out;
}

bool RecordSendCompletion(const WaitOutcome& ws, WrOutcome* w, bool* interrupted) {
  w->seconds = ws.seconds;
  if (ws.end == WaitEnd::kStopped) {
    *interrupted = true;
    w->state = WrState::kNoCompletion;
  } else if (ws.end == WaitEnd::kPollError) {
    w->state = WrState::kError;
    w->wc_status_text = absl::StrCat("ibv_poll_cq returned ", ws.poll_rc);
  } else if (ws.end == WaitEnd::kDeadline || ws.wcs.empty()) {
    w->state = WrState::kNoCompletion;
  } else if (ws.wcs[0].status != IBV_WC_SUCCESS) {
    w->state = WrState::kError;
    w->wc_status = ws.wcs[0].status;
    w->wc_status_text = ibv_wc_status_str(ws.wcs[0].status);
    w->vendor_err = ws.wcs[0].vendor_err;
  } else {
    w->state = WrState::kCompleted;
    return true;
  }
  return false;
}


RecvCompletion RecvCompletionOf(const WaitOutcome& wo) {
  RecvCompletion rc;
  if (wo.end == WaitEnd::kPollError) {
    rc.state = RecvCompletion::State::kError;
    rc.wc_status_text = absl::StrCat("ibv_poll_cq returned ", wo.poll_rc);
  } else if (wo.wcs.empty()) {
    rc.state = RecvCompletion::State::kNone;
  } else if (wo.wcs[0].status != IBV_WC_SUCCESS) {
    rc.state = RecvCompletion::State::kError;
    rc.wc_status = static_cast<int>(wo.wcs[0].status);
    rc.wc_status_text = ibv_wc_status_str(wo.wcs[0].status);
    rc.vendor_err = wo.wcs[0].vendor_err;
  } else {
    rc.state = RecvCompletion::State::kCompleted;
  }
  return rc;
}

void RecordRecvCompletion(const RecvCompletion& rc, WrOutcome* w) {
  if (rc.state == RecvCompletion::State::kNone) {
    w->state = WrState::kNoCompletion;
    w->recv_side = true;
  } else if (rc.state == RecvCompletion::State::kError) {
    w->state = WrState::kError;
    w->recv_side = true;
    w->wc_status = rc.wc_status.value_or(0);
    w->wc_status_text = rc.wc_status_text;
    w->vendor_err = rc.vendor_err;
  }
}

}  // namespace rdmacheck
