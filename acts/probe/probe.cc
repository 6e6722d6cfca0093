#include "acts/probe/probe.h"

#include <infiniband/verbs.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "acts/probe/completion_wait.h"
#include "acts/probe/probe_steps.h"
#include "acts/probe/probe_util.h"
#include "acts/probe/sge_layout.h"
#include "facts/gid_table.h"
#include "facts/hw_counters.h"
#include "util/clock.h"
#include "util/status_macros.h"
#include "util/stop_flag.h"
#include "verbs/rc_connect.h"

namespace rdmacheck {
namespace {

// Probes wait on the process's stop flag.
std::atomic<bool>& g_interrupted = StopFlag();

// Everything before the first WR: both ends opened, their QPs created and
// connected, the layouts laid out and the buffers registered; r gets what
// the setup decided (GIDs, path MTU, SGEs asked and granted, notes).
absl::Status SetUp(const ProbeRequest& req, ProbeEnd* a, ProbeEnd* b, WrLayouts* lay, ProbeResult* r) {
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(req.sysfs_root, req.device, req.port, req.gid_index, a));
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(req.sysfs_root, r->peer_device, r->loopback ? req.port : req.peer_port,
                                         req.peer_gid_index ? req.peer_gid_index : req.gid_index, b));
  r->gid_index = a->gid.index;
  r->gid = a->gid.gid;
  r->gid_type = std::string(GidTypeName(a->gid.type));
  r->peer_gid_index = b->gid.index;
  r->peer_gid = b->gid.gid;
  const ibv_mtu mtu = std::min(a->port_attr.active_mtu, b->port_attr.active_mtu);
  r->path_mtu = 128 << mtu;

  RDMACHECK_ASSIGN_OR_RETURN(r->requested_send_sge, WantSendSge(req, *a));
  RDMACHECK_RETURN_IF_ERROR(AllocPdAndCq(a));
  RDMACHECK_RETURN_IF_ERROR(AllocPdAndCq(b));
  RDMACHECK_RETURN_IF_ERROR(CreateProbeQp(a, 16, 1, r->requested_send_sge));
  r->granted_send_sge = a->qp->granted().max_send_sge;
  RDMACHECK_RETURN_IF_ERROR(CreateProbeQp(b, 1, 16, 1));

  // Layouts, then buffers big enough for all of them.
  RDMACHECK_ASSIGN_OR_RETURN(*lay, LayOutWrs(req.wrs, r->granted_send_sge, &r->wrs));
  RDMACHECK_RETURN_IF_ERROR(
      MakeSendBuffers(*lay, absl::StrCat("for ", lay->need_huge / kPage2M, " x 2 MiB"), a, r));
  RDMACHECK_ASSIGN_OR_RETURN(
      Region rr, MakeRegion(*b->pd, (lay->need_recv + 4095) / 4096 * 4096, false,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  b->region.emplace(std::move(rr));

  RDMACHECK_RETURN_IF_ERROR(InitProbeQp(*a));
  RDMACHECK_RETURN_IF_ERROR(InitProbeQp(*b));
  RDMACHECK_RETURN_IF_ERROR(ConnectProbeQp(*a, {b->qp->qp_num(), b->raw_gid, b->gid.gid}, mtu, req.timeout,
                                           req.retry_cnt, req.rnr_retry));
  return ConnectProbeQp(*b, {a->qp->qp_num(), a->raw_gid, a->gid.gid}, mtu, req.timeout, req.retry_cnt,
                        req.rnr_retry);
}

// One WR from a to b: the message written and the target pre-filled, the
// receive (SEND) and the send posted, both completions awaited within the
// deadline, the counters around it, every byte compared. True when the WR
// failed (the probe stops there). *ca, *cb: both ends' counters before the WR
// (the previous WR's after: nothing between two WRs sends a packet, so one
// reading serves both), replaced with those after it. r: the time split
// (wait, counters, bytes) is added to.
bool RunWr(const ProbeRequest& req, const ProbeEnd& a, const ProbeEnd& b, const SgeLayout& l, WrOutcome* w,
           bool* interrupted, std::optional<Counters>* ca, std::optional<Counters>* cb, ProbeResult* r) {
  const double t_bytes = MonotonicSeconds();
  const Region& src = w->spec.straddle >= kPage2M ? *a.send_huge : *a.send_4k;
  w->sges_crossing = CountCrossing(l, reinterpret_cast<uintptr_t>(src.buf.data()), w->spec.straddle);
  std::vector<ibv_sge> sges = WriteMessage(l, src.buf.data(), src.mr.lkey(), w->index);
  uint8_t* dst = b.region->buf.data();
  PrefillTarget(dst, w->index, l.total_bytes);
  r->bytes_seconds += MonotonicSeconds() - t_bytes;

  w->qp_state_before = QpStateOf(a);
  const bool send = w->spec.op == ProbeOp::kSend;
  if (send) {
    if (absl::Status s = PostProbeRecv(b, 1000 + w->index); !s.ok()) {
      w->state = WrState::kPostFailed;
      w->post_error = std::string(s.message());
      return true;
    }
  }
  const double posted = MonotonicSeconds();
  if (absl::Status s = PostProbeSend(a, w->index, w->spec.op, sges, reinterpret_cast<uintptr_t>(dst),
                                     b.region->mr.rkey());
      !s.ok()) {
    w->state = WrState::kPostFailed;
    w->post_error = std::string(s.message());
    return true;
  }
  if (WaitSendCompletion(a, req.deadline_s, &g_interrupted, w, interrupted) && send) {
    WaitOutcome wr = WaitForCompletions(PollerFor(*b.cq), 1, SecondsLeft(req.deadline_s, posted), &g_interrupted);
    w->seconds = MonotonicSeconds() - posted;
    if (wr.end == WaitEnd::kStopped) {
      *interrupted = true;
      w->state = WrState::kNoCompletion;
    } else if (wr.end == WaitEnd::kPollError) {
      // The receive CQ could not be read: no receive was seen.
      w->state = WrState::kNoCompletion;
      w->recv_side = true;
    } else {
      RecordRecvCompletion(RecvCompletionOf(wr), w);
    }
  }
  const double t_counters = MonotonicSeconds();
  r->wait_seconds += t_counters - posted;
  std::optional<Counters> ca2 = SnapCounters(req.sysfs_root, a), cb2 = SnapCounters(req.sysfs_root, b);
  const double t_verify = MonotonicSeconds();
  r->counters_seconds += t_verify - t_counters;
  if (*ca && ca2) w->local_delta = CounterDelta(**ca, *ca2);
  if (*cb && cb2) w->peer_delta = CounterDelta(**cb, *cb2);
  *ca = std::move(ca2);
  *cb = std::move(cb2);
  if (w->state == WrState::kCompleted) {
    w->first_mismatch = FirstMismatch(dst, w->index, l.total_bytes);
    w->verified = !w->first_mismatch;
  }
  r->bytes_seconds += MonotonicSeconds() - t_verify;
  return w->state != WrState::kCompleted || !w->verified || *interrupted;
}

}  // namespace

const std::atomic<bool>& ProbeInterruptFlag() { return g_interrupted; }

absl::Status ValidateProbeRequest(const ProbeRequest& req) {
  if (req.device.empty()) return absl::InvalidArgumentError("probe: no device");
  if (req.retry_cnt < 0 || req.retry_cnt > 6) {
    return absl::InvalidArgumentError(absl::StrCat(
        "probe: retry_cnt=", req.retry_cnt, " must be 0..6 (7 retries forever on rxe: a blocked path would hang)"));
  }
  if (req.rnr_retry < 0 || req.rnr_retry > 6) {
    return absl::InvalidArgumentError(
        absl::StrCat("probe: rnr_retry=", req.rnr_retry, " must be 0..6 (7 retries forever)"));
  }
  if (req.timeout < 1 || req.timeout > 31) {
    return absl::InvalidArgumentError(
        absl::StrCat("probe: timeout=", req.timeout, " must be 1..31 (0 waits forever)"));
  }
  if (!(req.deadline_s > 0 && req.deadline_s <= 600)) {
    return absl::InvalidArgumentError(absl::StrCat("probe: deadline_s=", req.deadline_s, " must be in (0, 600]"));
  }
  if (req.wrs.empty()) return absl::InvalidArgumentError("probe: no work requests");
  return absl::OkStatus();
}

absl::StatusOr<ProbeResult> RunTrafficProbe(const ProbeRequest& req) {
  RDMACHECK_RETURN_IF_ERROR(ValidateProbeRequest(req));
  // First, so that it is destroyed last: everything below is released before
  // a SIGINT is passed on.
  SigintGuard sigint;
  const double t0 = MonotonicSeconds();
  ProbeResult r;
  r.device = req.device;
  r.loopback = req.peer_device.empty() || (req.peer_device == req.device && req.peer_port == req.port);
  r.peer_device = req.peer_device.empty() ? req.device : req.peer_device;
  r.retry_cnt = req.retry_cnt;
  r.timeout = req.timeout;
  r.deadline_s = req.deadline_s;

  ProbeEnd a, b;
  WrLayouts lay;
  RDMACHECK_RETURN_IF_ERROR(SetUp(req, &a, &b, &lay, &r));
  r.setup_seconds = MonotonicSeconds() - t0;
  std::optional<Counters> before_a = SnapCounters(req.sysfs_root, a), before_b = SnapCounters(req.sysfs_root, b);
  r.counters_known = before_a.has_value() && before_b.has_value();
  if (before_a) r.counters_before = *before_a;
  if (before_b) r.peer_counters_before = *before_b;

  bool failed = false;
  std::optional<Counters> last_a = before_a, last_b = before_b;
  for (size_t i = 0; i < r.wrs.size() && !failed; ++i) {
    if (!lay.layouts[i] || !r.wrs[i].skip_reason.empty()) continue;
    if (g_interrupted.load()) {
      r.interrupted = true;
      break;
    }
    failed = RunWr(req, a, b, *lay.layouts[i], &r.wrs[i], &r.interrupted, &last_a, &last_b, &r);
  }
  // After a failure, give the QP-fatal / CQ-error events a moment to land.
  const double ev_wait = failed ? 0.05 : 0.0;
  DrainAsyncEvents(*a.ctx, a.dev, ev_wait, AsyncEventText::kWithElement, &r.async_events);
  DrainAsyncEvents(*b.ctx, b.dev, 0.0, AsyncEventText::kWithElement, &r.async_events);
  r.qp_state = QpStateOf(a);
  r.peer_qp_state = QpStateOf(b);
  // A WR left in flight: stop both requesters before the QPs are destroyed.
  if (failed) {
    (void)verbs::ToErr(*a.qp, a.dev);
    (void)verbs::ToErr(*b.qp, b.dev);
  }
  std::optional<Counters> after_a = SnapCounters(req.sysfs_root, a), after_b = SnapCounters(req.sysfs_root, b);
  if (after_a) r.counters_after = *after_a;
  if (after_b) r.peer_counters_after = *after_b;
  r.seconds = MonotonicSeconds() - t0;
  return r;
}

}  // namespace rdmacheck
