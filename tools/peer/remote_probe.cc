#include "tools/peer/remote_probe.h"

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "acts/probe/completion_wait.h"
#include "acts/probe/probe_steps.h"
#include "acts/probe/probe_util.h"
#include "acts/probe/sge_layout.h"
#include "facts/hw_counters.h"
#include "facts/rdma_types.h"
#include "tools/peer/messages.h"
#include "util/clock.h"
#include "util/status_macros.h"

namespace rdmacheck {
namespace {

// The far QP from its QPN and textual GID, as they crossed the side channel.
absl::StatusOr<RemoteQp> FarQp(uint32_t qpn, const std::string& gid) {
  RemoteQp q;
  q.qpn = qpn;
  q.gid_text = gid;
  if (inet_pton(AF_INET6, gid.c_str(), q.gid.raw) != 1)
    return absl::InvalidArgumentError(absl::StrCat("peer GID '", gid, "' is not an IPv6 address"));
  return q;
}

ibv_mtu MtuEnum(int64_t v) {
  return static_cast<ibv_mtu>(std::clamp<int64_t>(v, IBV_MTU_256, IBV_MTU_4096));
}

// --- server half ------------------------------------------------------------

// The responder's QP and target, for the WR frames that follow.
struct Served {
  ProbeEnd b;
  uint64_t rbytes = 0;  // the target region's size
  std::string root;
  std::optional<Counters> wr_before;  // at the last WR frame
};

// PROBE_SETUP: checks the request, creates and connects the QP, registers
// the target, answers PROBE_READY.
absl::Status ServeSetup(PeerChannel& ch, const PeerFrame& setup, const std::string& device, Served* sv) {
  RDMACHECK_ASSIGN_OR_RETURN(ProbeSetupMsg m, ProbeSetupMsg::Decode(setup.payload));
  const absl::string_view what = ProbeSetupMsg::kType;
  // The same bounds as the local probe: 7 retries forever on rxe.
  if (m.timeout < 1 || m.timeout > 31 || m.retry_cnt < 0 || m.retry_cnt > 6 || m.rnr_retry < 0 || m.rnr_retry > 6)
    return absl::InvalidArgumentError(absl::StrCat(what, ": timeout ", m.timeout, " retry_cnt ", m.retry_cnt,
                                                   " rnr_retry ", m.rnr_retry, " out of bounds (1..31, 0..6, 0..6)"));
  if (m.recv_bytes <= 0 || m.recv_bytes > (256 << 20))
    return absl::InvalidArgumentError(absl::StrCat(what, ": recv_bytes ", m.recv_bytes, " not in 1..256 MiB"));
  if (!device.empty() && !m.device.empty() && m.device != device)
    return absl::InvalidArgumentError(absl::StrCat("this server serves ", device, ", not ", m.device));
  const std::string dev = device.empty() ? m.device : device;
  if (dev.empty()) return absl::InvalidArgumentError("no device: start `rdmacheck serve -d DEV`");
  ProbeEnd& b = sv->b;
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(sv->root, dev, m.port, m.gid_index, &b));
  RDMACHECK_RETURN_IF_ERROR(AllocPdAndCq(&b));
  RDMACHECK_RETURN_IF_ERROR(CreateProbeQp(&b, 1, 16, 1));
  RDMACHECK_RETURN_IF_ERROR(InitProbeQp(b));
  sv->rbytes = (static_cast<uint64_t>(m.recv_bytes) + 4095) / 4096 * 4096;
  RDMACHECK_ASSIGN_OR_RETURN(Region r,
                             MakeRegion(*b.pd, sv->rbytes, false, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  b.region.emplace(std::move(r));
  const ibv_mtu mtu = std::min(MtuEnum(m.mtu), b.port_attr.active_mtu);
  RDMACHECK_ASSIGN_OR_RETURN(RemoteQp client, FarQp(m.qpn, m.gid));
  RDMACHECK_RETURN_IF_ERROR(ConnectProbeQp(b, client, mtu, m.timeout, m.retry_cnt, m.rnr_retry));
  ProbeReadyMsg ready;
  ready.device = dev;
  ready.port = b.port;
  ready.qpn = b.qp->qp_num();
  ready.gid = b.gid.gid;
  ready.gid_index = b.gid.index;
  ready.gid_type = std::string(GidTypeName(b.gid.type));
  ready.mtu = static_cast<int>(b.port_attr.active_mtu);
  ready.rkey = b.region->mr.rkey();
  ready.addr = reinterpret_cast<uintptr_t>(b.region->buf.data());
  ready.region_bytes = sv->rbytes;
  std::optional<Counters> before = SnapCounters(sv->root, b);
  ready.counters_known = before.has_value();
  if (before) ready.counters = *before;
  return SendMsg(ch, ready);
}

// WR: the target pre-filled and, for a SEND, the receive posted; WR_READY.
absl::Status ServeWr(PeerChannel& ch, const WrMsg& w, Served* sv) {
  if (w.bytes > sv->rbytes)
    return absl::InvalidArgumentError(absl::StrCat("WR ", w.index, ": ", w.bytes, " bytes > region ", sv->rbytes));
  PrefillTarget(sv->b.region->buf.data(), w.index, w.bytes);
  WrReadyMsg rep{QpStateOf(sv->b), std::nullopt};
  if (w.op == ProbeOp::kSend) {
    if (absl::Status s = PostProbeRecv(sv->b, static_cast<uint64_t>(w.index)); !s.ok())
      rep.post_error = std::string(s.message());
  }
  sv->wr_before = SnapCounters(sv->root, sv->b);
  return SendMsg(ch, rep);
}

// WR_CHECK: the receive's completion (SEND) within what is left of the
// client's deadline, every byte compared, the counters' deltas; WR_RESULT.
absl::Status ServeWrCheck(PeerChannel& ch, const WrCheckMsg& w, Served* sv) {
  const double wait_s = std::clamp(w.wait_s, 0.0, 600.0);
  WrResultMsg rep;
  bool landed = w.op == ProbeOp::kRdmaWrite && w.send_ok;
  if (w.op == ProbeOp::kSend) {
    rep.recv = RecvCompletionOf(WaitForCompletions(PollerFor(*sv->b.cq), 1, w.send_ok ? wait_s : 0.0, nullptr));
    landed = rep.recv->state == RecvCompletion::State::kCompleted;
  }
  if (landed) {
    rep.first_mismatch = FirstMismatch(sv->b.region->buf.data(), w.index, std::min(w.bytes, sv->rbytes));
    rep.verified = !rep.first_mismatch;
  }
  std::optional<Counters> after = SnapCounters(sv->root, sv->b);
  if (sv->wr_before && after) rep.delta = CounterDelta(*sv->wr_before, *after);
  rep.qp_state = QpStateOf(sv->b);
  return SendMsg(ch, rep);
}

// PROBE_END: the QP's state, its async events and counters; PROBE_DONE.
absl::Status ServeEnd(PeerChannel& ch, const Served& sv) {
  ProbeDoneMsg done;
  DrainAsyncEvents(*sv.b.ctx, sv.b.dev, 0.05, AsyncEventText::kTypeOnly, &done.events);
  done.qp_state = QpStateOf(sv.b);
  std::optional<Counters> after = SnapCounters(sv.root, sv.b);
  done.counters_known = after.has_value();
  if (after) done.counters = *after;
  return SendMsg(ch, done);
}

absl::Status ServeImpl(PeerChannel& ch, const PeerFrame& setup, const std::string& device, const std::string& root) {
  Served sv;
  sv.root = root;
  RDMACHECK_RETURN_IF_ERROR(ServeSetup(ch, setup, device, &sv));
  for (;;) {
    RDMACHECK_ASSIGN_OR_RETURN(PeerFrame fr, ch.Receive());
    if (fr.type == WrMsg::kType) {
      RDMACHECK_ASSIGN_OR_RETURN(WrMsg w, WrMsg::Decode(fr.payload));
      RDMACHECK_RETURN_IF_ERROR(ServeWr(ch, w, &sv));
    } else if (fr.type == WrCheckMsg::kType) {
      RDMACHECK_ASSIGN_OR_RETURN(WrCheckMsg w, WrCheckMsg::Decode(fr.payload));
      RDMACHECK_RETURN_IF_ERROR(ServeWrCheck(ch, w, &sv));
    } else if (fr.type == ProbeEndMsg::kType) {
      return ServeEnd(ch, sv);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected ", fr.type, " frame during a probe"));
    }
  }
}

// --- client half ------------------------------------------------------------

// The far end's half as the client's WRs need it.
struct FarEnd {
  std::string host;
  uint64_t addr = 0;  // the RDMA WRITE target
  uint32_t rkey = 0;
};

// This end's QP and send buffers; r gets the GID, the SGEs asked and
// granted, the WR layouts and any huge-page note.
absl::Status SetUpNear(const ProbeRequest& req, ProbeEnd* a, WrLayouts* lay, ProbeResult* r) {
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(req.sysfs_root, req.device, req.port, req.gid_index, a));
  RDMACHECK_RETURN_IF_ERROR(AllocPdAndCq(a));
  r->gid_index = a->gid.index;
  r->gid = a->gid.gid;
  r->gid_type = std::string(GidTypeName(a->gid.type));
  RDMACHECK_ASSIGN_OR_RETURN(r->requested_send_sge, WantSendSge(req, *a));
  RDMACHECK_RETURN_IF_ERROR(CreateProbeQp(a, 16, 1, r->requested_send_sge));
  RDMACHECK_RETURN_IF_ERROR(InitProbeQp(*a));
  r->granted_send_sge = a->qp->granted().max_send_sge;
  RDMACHECK_ASSIGN_OR_RETURN(*lay, LayOutWrs(req.wrs, r->granted_send_sge, &r->wrs));
  return MakeSendBuffers(*lay, "on this host", a, r);
}

// PROBE_SETUP / PROBE_READY: the far QP created and connected to ours, then
// ours to it, at the smaller active MTU; r gets the far device, GID, path
// MTU and counters.
absl::StatusOr<FarEnd> ConnectFar(PeerChannel& ch, const ProbeRequest& req, const ProbeEnd& a,
                                  const WrLayouts& lay, ProbeResult* r) {
  ProbeSetupMsg setup;
  setup.device = req.peer_device;
  setup.port = req.peer_port;
  setup.gid_index = req.peer_gid_index;
  setup.qpn = a.qp->qp_num();
  setup.gid = a.gid.gid;
  setup.mtu = static_cast<int>(a.port_attr.active_mtu);
  setup.recv_bytes = static_cast<int64_t>(lay.need_recv);
  setup.timeout = req.timeout;
  setup.retry_cnt = req.retry_cnt;
  setup.rnr_retry = req.rnr_retry;
  RDMACHECK_ASSIGN_OR_RETURN(ProbeReadyMsg ready, AskMsg<ProbeReadyMsg>(ch, setup));
  FarEnd far;
  far.host = ch.peer_name().substr(0, ch.peer_name().rfind(':'));
  far.rkey = ready.rkey;
  far.addr = ready.addr;
  r->peer_gid = ready.gid;
  r->peer_device = absl::StrCat(ready.device, "@", far.host);
  r->peer_gid_index = ready.gid_index;
  const ibv_mtu mtu = std::min(a.port_attr.active_mtu, MtuEnum(ready.mtu));
  r->path_mtu = 128 << mtu;
  RDMACHECK_ASSIGN_OR_RETURN(RemoteQp server, FarQp(ready.qpn, r->peer_gid));
  RDMACHECK_RETURN_IF_ERROR(ConnectProbeQp(a, server, mtu, req.timeout, req.retry_cnt, req.rnr_retry));
  r->counters_known = ready.counters_known;
  r->peer_counters_before = ready.counters;
  return far;
}

// One WR across the link: WR (the far end pre-fills its target and posts
// the receive), the post and the send's completion here within the
// deadline, WR_CHECK (the far end's receive and byte check in what is left
// of it). True when the WR failed (the probe stops there).
absl::StatusOr<bool> RunPeerWr(PeerChannel& ch, const ProbeRequest& req, const ProbeEnd& a, const FarEnd& far,
                               const SgeLayout& l, const std::atomic<bool>* stop, WrOutcome* w, bool* interrupted) {
  const Region& src = w->spec.straddle >= kPage2M ? *a.send_huge : *a.send_4k;
  w->sges_crossing = CountCrossing(l, reinterpret_cast<uintptr_t>(src.buf.data()), w->spec.straddle);
  std::vector<ibv_sge> sges = WriteMessage(l, src.buf.data(), src.mr.lkey(), w->index);
  RDMACHECK_ASSIGN_OR_RETURN(WrReadyMsg wr_ready, AskMsg<WrReadyMsg>(ch, WrMsg{w->index, w->spec.op, l.total_bytes}));
  if (wr_ready.post_error) {
    w->state = WrState::kPostFailed;
    w->recv_side = true;
    w->post_error = *wr_ready.post_error;
    return true;
  }
  w->qp_state_before = QpStateOf(a);
  std::optional<Counters> ca = SnapCounters(req.sysfs_root, a);
  const double posted = MonotonicSeconds();
  bool send_ok = false;
  if (absl::Status s = PostProbeSend(a, w->index, w->spec.op, sges, far.addr, far.rkey); !s.ok()) {
    w->state = WrState::kPostFailed;
    w->post_error = std::string(s.message());
  } else {
    send_ok = WaitSendCompletion(a, req.deadline_s, stop, w, interrupted);
  }
  RDMACHECK_ASSIGN_OR_RETURN(
      WrResultMsg res, AskMsg<WrResultMsg>(ch, WrCheckMsg{w->index, w->spec.op, l.total_bytes, send_ok,
                                                           SecondsLeft(req.deadline_s, posted)}));
  if (w->spec.op == ProbeOp::kSend && send_ok) {
    w->seconds = MonotonicSeconds() - posted;
    if (res.recv) RecordRecvCompletion(*res.recv, w);
  }
  std::optional<Counters> ca2 = SnapCounters(req.sysfs_root, a);
  if (ca && ca2) w->local_delta = CounterDelta(*ca, *ca2);
  w->peer_delta = res.delta;
  if (w->state == WrState::kCompleted) {
    w->verified = res.verified.value_or(false);
    if (!w->verified) w->first_mismatch = res.first_mismatch;
  }
  return w->state != WrState::kCompleted || !w->verified || *interrupted;
}

// PROBE_END / PROBE_DONE: both QPs' states, async events and counters.
absl::Status EndPeerProbe(PeerChannel& ch, const ProbeRequest& req, const ProbeEnd& a, const FarEnd& far,
                          bool failed, ProbeResult* r) {
  DrainAsyncEvents(*a.ctx, a.dev, failed ? 0.05 : 0.0, AsyncEventText::kTypeOnly, &r->async_events);
  RDMACHECK_ASSIGN_OR_RETURN(ProbeDoneMsg done, AskMsg<ProbeDoneMsg>(ch, ProbeEndMsg{}));
  for (const std::string& e : done.events) r->async_events.push_back(absl::StrCat(e, "@", far.host));
  r->qp_state = QpStateOf(a);
  r->peer_qp_state = done.qp_state;
  std::optional<Counters> after = SnapCounters(req.sysfs_root, a);
  if (after) r->counters_after = *after;
  r->peer_counters_after = done.counters;
  r->counters_known = r->counters_known && after.has_value() && done.counters_known;
  return absl::OkStatus();
}

}  // namespace

absl::Status ServePeerProbe(PeerChannel& ch, const PeerFrame& setup, const std::string& device,
                            const std::string& sysfs_root) {
  absl::Status s = ServeImpl(ch, setup, device, sysfs_root);
  // Tell the client why, unless the channel itself is what failed.
  if (!s.ok() && !absl::IsDeadlineExceeded(s) && !absl::IsUnavailable(s) && !absl::IsDataLoss(s)) {
    ch.SendError(s.message());
  }
  return s;
}

absl::StatusOr<ProbeResult> RunPeerProbe(PeerChannel& ch, const ProbeRequest& req, const std::atomic<bool>* stop) {
  if (req.device.empty()) return absl::InvalidArgumentError("probe: no device");
  if (req.retry_cnt < 0 || req.retry_cnt > 6 || req.rnr_retry < 0 || req.rnr_retry > 6)
    return absl::InvalidArgumentError("probe: retry_cnt and rnr_retry must be 0..6 (7 retries forever on rxe)");
  if (req.timeout < 1 || req.timeout > 31) return absl::InvalidArgumentError("probe: timeout must be 1..31");
  if (!(req.deadline_s > 0 && req.deadline_s <= 600)) return absl::InvalidArgumentError("probe: deadline_s must be in (0, 600]");
  if (req.wrs.empty()) return absl::InvalidArgumentError("probe: no work requests");
  const double t0 = MonotonicSeconds();
  ProbeResult r;
  r.device = req.device;
  r.loopback = false;
  r.retry_cnt = req.retry_cnt;
  r.timeout = req.timeout;
  r.deadline_s = req.deadline_s;
  ProbeEnd a;
  WrLayouts lay;
  RDMACHECK_RETURN_IF_ERROR(SetUpNear(req, &a, &lay, &r));
  RDMACHECK_ASSIGN_OR_RETURN(FarEnd far, ConnectFar(ch, req, a, lay, &r));
  r.setup_seconds = MonotonicSeconds() - t0;
  std::optional<Counters> before = SnapCounters(req.sysfs_root, a);
  r.counters_known = before.has_value() && r.counters_known;
  if (before) r.counters_before = *before;

  // Each side-channel read may wait for the far end's completion deadline.
  ch.set_io_deadline(req.deadline_s + 10);
  bool failed = false;
  for (size_t i = 0; i < r.wrs.size() && !failed; ++i) {
    if (!lay.layouts[i] || !r.wrs[i].skip_reason.empty()) continue;
    if (stop != nullptr && stop->load()) {
      r.interrupted = true;
      break;
    }
    RDMACHECK_ASSIGN_OR_RETURN(failed, RunPeerWr(ch, req, a, far, *lay.layouts[i], stop, &r.wrs[i], &r.interrupted));
  }
  RDMACHECK_RETURN_IF_ERROR(EndPeerProbe(ch, req, a, far, failed, &r));
  r.seconds = MonotonicSeconds() - t0;
  return r;
}

}  // namespace rdmacheck
