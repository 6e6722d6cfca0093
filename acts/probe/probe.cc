#include "acts/probe/probe.h"

#include <infiniband/verbs.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "acts/probe/completion_wait.h"
#include "acts/probe/gid_choice.h"
#include "facts/gid_table.h"
#include "facts/hw_counters.h"
#include "acts/probe/probe_util.h"
#include "acts/probe/sge_layout.h"
#include "util/status_macros.h"
#include "verbs/context.h"
#include "verbs/errors.h"
#include "verbs/qp_state.h"
#include "verbs/rc_connect.h"
#include "verbs/resources.h"
#include "util/clock.h"
#include "util/stop_flag.h"

namespace rdmacheck {
namespace {

// Probes wait on the process's stop flag; a SIGINT also marks itself, so
// the guard knows to pass it on.
std::atomic<bool>& g_interrupted = StopFlag();
std::atomic<bool> g_sigint{false};

extern "C" void OnSigint(int) {
  g_sigint.store(true);
  g_interrupted.store(true);
}

// One end of the connection. Members in creation order, so they are
// destroyed QP -> CQ -> MR -> PD -> context (each also holds what it needs).
struct Side {
  std::string dev;
  int port = 1;
  verbs::Context ctx;
  ibv_port_attr port_attr{};
  GidEntry gid;
  ibv_gid raw_gid{};
  std::optional<verbs::ProtectionDomain> pd;
  std::optional<verbs::CompletionQueue> cq;
  std::optional<Region> region;       // receive buffer / RDMA WRITE target
  std::optional<Region> send_4k;      // send buffer, page aligned
  std::optional<Region> send_huge;    // send buffer in huge pages
  std::optional<verbs::QueuePair> qp;
};

std::optional<Counters> Snapshot(const ProbeRequest& req, const Side& s) {
  absl::StatusOr<Counters> c = ReadHwCounters(req.sysfs_root, s.dev, s.port);
  if (!c.ok()) return std::nullopt;
  return *std::move(c);
}

absl::Status OpenSide(const ProbeRequest& req, const std::string& dev, int port,
                      std::optional<int> gid_index, std::optional<Side>* out) {
  RDMACHECK_ASSIGN_OR_RETURN(verbs::Context ctx, verbs::Context::Open(dev));
  RDMACHECK_ASSIGN_OR_RETURN(PortGid pg, ResolvePortGid(ctx, req.sysfs_root, dev, port, gid_index));
  out->emplace(Side{dev, port, std::move(ctx), pg.attr, pg.gid, pg.raw, {}, {}, {}, {}, {}, {}});
  return absl::OkStatus();
}

// This end's half of the connection to `remote`.
verbs::RcPath PathTo(const ProbeRequest& req, const Side& s, const Side& remote, ibv_mtu mtu) {
  verbs::RcPath p;
  p.dev = s.dev;
  p.port = s.port;
  p.path_mtu = mtu;
  p.dest_qpn = remote.qp->qp_num();
  p.dgid = remote.raw_gid;
  p.dgid_text = remote.gid.gid;
  p.sgid_index = s.gid.index;
  p.rq_psn = 0;
  p.sq_psn = 0;
  p.timeout = req.timeout;
  p.retry_cnt = req.retry_cnt;
  p.rnr_retry = req.rnr_retry;
  p.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  return p;
}

uint8_t PatternByte(int wr, uint64_t k) { return static_cast<uint8_t>((k * 131 + wr * 29 + 7) & 0xff); }

}  // namespace

const std::atomic<bool>& ProbeInterruptFlag() { return g_interrupted; }

SigintGuard::SigintGuard() {
  struct sigaction cur {};
  if (sigaction(SIGINT, nullptr, &cur) != 0 || cur.sa_handler == SIG_IGN) return;
  g_sigint.store(false);
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  installed_ = sigaction(SIGINT, &sa, &old_) == 0;
}

SigintGuard::~SigintGuard() {
  if (!installed_) return;
  sigaction(SIGINT, &old_, nullptr);
  if (g_sigint.load()) raise(SIGINT);  // default action: exit status 130
}

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

  std::optional<Side> a, b;
  RDMACHECK_RETURN_IF_ERROR(OpenSide(req, req.device, req.port, req.gid_index, &a));
  RDMACHECK_RETURN_IF_ERROR(OpenSide(req, r.peer_device, r.loopback ? req.port : req.peer_port,
                                     req.peer_gid_index ? req.peer_gid_index : req.gid_index, &b));
  r.gid_index = a->gid.index;
  r.gid = a->gid.gid;
  r.gid_type = std::string(GidTypeName(a->gid.type));
  r.peer_gid_index = b->gid.index;
  r.peer_gid = b->gid.gid;
  const ibv_mtu mtu = std::min(a->port_attr.active_mtu, b->port_attr.active_mtu);
  r.path_mtu = 128 << mtu;

  RDMACHECK_ASSIGN_OR_RETURN(ibv_device_attr_ex attr, a->ctx.QueryDeviceEx());
  uint32_t want_sge = 1;
  for (const WrSpec& w : req.wrs) want_sge = std::max(want_sge, w.num_sge);
  if (req.want_max_sge) want_sge = std::max<uint32_t>(1, attr.orig_attr.max_sge);
  r.requested_send_sge = want_sge;

  for (std::optional<Side>* s : {&a, &b}) {
    RDMACHECK_ASSIGN_OR_RETURN(verbs::ProtectionDomain pd, verbs::ProtectionDomain::Alloc((*s)->ctx));
    (*s)->pd.emplace(std::move(pd));
    RDMACHECK_ASSIGN_OR_RETURN(verbs::CompletionQueue cq, verbs::CompletionQueue::Create((*s)->ctx, 64));
    (*s)->cq.emplace(std::move(cq));
  }
  ibv_qp_cap cap_a{};
  cap_a.max_send_wr = 16;
  cap_a.max_recv_wr = 1;
  cap_a.max_send_sge = want_sge;
  cap_a.max_recv_sge = 1;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::QueuePair qa,
                             verbs::QueuePair::Create(*a->pd, *a->cq, *a->cq, IBV_QPT_RC, cap_a));
  a->qp.emplace(std::move(qa));
  r.granted_send_sge = a->qp->granted().max_send_sge;
  ibv_qp_cap cap_b{};
  cap_b.max_send_wr = 1;
  cap_b.max_recv_wr = 16;
  cap_b.max_send_sge = 1;
  cap_b.max_recv_sge = 1;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::QueuePair qb,
                             verbs::QueuePair::Create(*b->pd, *b->cq, *b->cq, IBV_QPT_RC, cap_b));
  b->qp.emplace(std::move(qb));

  // Layouts, then buffers big enough for all of them.
  std::vector<std::optional<SgeLayout>> layouts(req.wrs.size());
  uint64_t need_4k = 4096, need_huge = 0, need_recv = 4096;
  r.wrs.resize(req.wrs.size());
  for (size_t i = 0; i < req.wrs.size(); ++i) {
    WrOutcome& w = r.wrs[i];
    w.index = static_cast<int>(i);
    w.spec = req.wrs[i];
    w.num_sge = w.spec.num_sge == 0 ? r.granted_send_sge : w.spec.num_sge;
    if (w.num_sge > r.granted_send_sge) {
      w.skip_reason = absl::StrCat(w.num_sge, " SGEs > granted max_send_sge ", r.granted_send_sge);
      continue;
    }
    RDMACHECK_ASSIGN_OR_RETURN(SgeLayout l, ComputeSgeLayout(w.spec, w.num_sge));
    w.total_bytes = l.total_bytes;
    need_recv = std::max(need_recv, l.total_bytes);
    if (w.spec.straddle >= kPage2M) {
      need_huge = std::max(need_huge, l.buffer_bytes);
    } else {
      need_4k = std::max(need_4k, l.buffer_bytes);
    }
    layouts[i] = std::move(l);
  }
  const int send_access = IBV_ACCESS_LOCAL_WRITE;
  RDMACHECK_ASSIGN_OR_RETURN(Region s4k, MakeRegion(*a->pd, (need_4k + 4095) / 4096 * 4096, false, send_access));
  a->send_4k.emplace(std::move(s4k));
  if (need_huge > 0) {
    absl::StatusOr<Region> h = MakeRegion(*a->pd, (need_huge + kPage2M - 1) / kPage2M * kPage2M, true, send_access);
    if (h.ok()) {
      a->send_huge.emplace(*std::move(h));
    } else {
      std::string why = absl::StrCat("no huge pages for ", need_huge / kPage2M,
                                     " x 2 MiB (", h.status().message(),
                                     "): the 2 MiB-boundary WRs were skipped");
      r.notes.push_back(why);
      for (size_t i = 0; i < r.wrs.size(); ++i)
        if (r.wrs[i].spec.straddle >= kPage2M && r.wrs[i].skip_reason.empty())
          r.wrs[i].skip_reason = "no huge pages";
    }
  }
  RDMACHECK_ASSIGN_OR_RETURN(
      Region rr, MakeRegion(*b->pd, (need_recv + 4095) / 4096 * 4096, false,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  b->region.emplace(std::move(rr));

  const verbs::RcPath ab = PathTo(req, *a, *b, mtu), ba = PathTo(req, *b, *a, mtu);
  RDMACHECK_RETURN_IF_ERROR(verbs::ToInit(*a->qp, ab));
  RDMACHECK_RETURN_IF_ERROR(verbs::ToInit(*b->qp, ba));
  RDMACHECK_RETURN_IF_ERROR(verbs::ToRtr(*a->qp, ab));
  RDMACHECK_RETURN_IF_ERROR(verbs::ToRts(*a->qp, ab));
  RDMACHECK_RETURN_IF_ERROR(verbs::ToRtr(*b->qp, ba));
  RDMACHECK_RETURN_IF_ERROR(verbs::ToRts(*b->qp, ba));

  r.setup_seconds = MonotonicSeconds() - t0;
  std::optional<Counters> before_a = Snapshot(req, *a), before_b = Snapshot(req, *b);
  r.counters_known = before_a.has_value() && before_b.has_value();
  if (before_a) r.counters_before = *before_a;
  if (before_b) r.peer_counters_before = *before_b;

  bool failed = false;
  std::vector<uint8_t> expect;
  for (size_t i = 0; i < r.wrs.size() && !failed; ++i) {
    WrOutcome& w = r.wrs[i];
    if (!layouts[i] || !w.skip_reason.empty()) continue;
    if (g_interrupted.load()) {
      r.interrupted = true;
      break;
    }
    const SgeLayout& l = *layouts[i];
    const Region& src = w.spec.straddle >= kPage2M ? *a->send_huge : *a->send_4k;
    w.sges_crossing = CountCrossing(l, reinterpret_cast<uintptr_t>(src.buf.data()), w.spec.straddle);
    // The message: pattern bytes in the SGE spans; the target set to bytes
    // that differ from every expected one, so a byte not written shows.
    expect.assign(l.total_bytes, 0);
    std::vector<ibv_sge> sges;
    uint64_t k = 0;
    for (const SgeSpan& s : l.sges) {
      for (uint32_t j = 0; j < s.length; ++j, ++k) {
        expect[k] = PatternByte(w.index, k);
        src.buf.data()[s.offset + j] = expect[k];
      }
      sges.push_back({reinterpret_cast<uintptr_t>(src.buf.data() + s.offset), s.length, src.mr.lkey()});
    }
    uint8_t* dst = b->region->buf.data();
    for (uint64_t j = 0; j < l.total_bytes; ++j) dst[j] = expect[j] ^ 0xa5;

    w.qp_state_before = verbs::QueryQpState(*a->qp);
    std::optional<Counters> ca = Snapshot(req, *a), cb = Snapshot(req, *b);
    const bool send = w.spec.op == ProbeOp::kSend;
    if (send) {
      ibv_sge rsge{reinterpret_cast<uintptr_t>(dst), static_cast<uint32_t>(b->region->buf.size()),
                   b->region->mr.lkey()};
      ibv_recv_wr rwr{};
      rwr.wr_id = 1000 + i;
      rwr.sg_list = &rsge;
      rwr.num_sge = 1;
      ibv_recv_wr* bad_r = nullptr;
      if (int rc = ibv_post_recv(b->qp->get(), &rwr, &bad_r); rc != 0) {
        w.state = WrState::kPostFailed;
        w.post_error = absl::StrCat("ibv_post_recv(dev=", b->dev, "): ", verbs::ErrnoText(rc));
        failed = true;
        break;
      }
    }
    ibv_send_wr swr{};
    swr.wr_id = i;
    swr.sg_list = sges.data();
    swr.num_sge = static_cast<int>(sges.size());
    swr.opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
    swr.send_flags = IBV_SEND_SIGNALED;
    if (!send) {
      swr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(dst);
      swr.wr.rdma.rkey = b->region->mr.rkey();
    }
    ibv_send_wr* bad = nullptr;
    const double posted = MonotonicSeconds();
    if (int rc = ibv_post_send(a->qp->get(), &swr, &bad); rc != 0) {
      w.state = WrState::kPostFailed;
      w.post_error = absl::StrCat("ibv_post_send(dev=", a->dev, " opcode=", ProbeOpName(w.spec.op),
                                  " num_sge=", sges.size(), "): ", verbs::ErrnoText(rc));
      failed = true;
      break;
    }
    WaitOutcome ws = WaitForCompletions(PollerFor(*a->cq), 1, req.deadline_s, &g_interrupted);
    if (RecordSendCompletion(ws, &w, &r.interrupted)) {
      if (send) {
        double left = std::max(0.0, req.deadline_s - (MonotonicSeconds() - posted));
        WaitOutcome wr = WaitForCompletions(PollerFor(*b->cq), 1, left, &g_interrupted);
        w.seconds = MonotonicSeconds() - posted;
        if (wr.end == WaitEnd::kStopped) {
          r.interrupted = true;
          w.state = WrState::kNoCompletion;
        } else if (wr.wcs.empty()) {
          w.state = WrState::kNoCompletion;
          w.recv_side = true;
        } else if (wr.wcs[0].status != IBV_WC_SUCCESS) {
          w.state = WrState::kError;
          w.recv_side = true;
          w.wc_status = wr.wcs[0].status;
          w.wc_status_text = ibv_wc_status_str(wr.wcs[0].status);
          w.vendor_err = wr.wcs[0].vendor_err;
        }
      }
    }
    std::optional<Counters> ca2 = Snapshot(req, *a), cb2 = Snapshot(req, *b);
    if (ca && ca2) w.local_delta = CounterDelta(*ca, *ca2);
    if (cb && cb2) w.peer_delta = CounterDelta(*cb, *cb2);
    if (w.state == WrState::kCompleted) {
      w.verified = true;
      for (uint64_t j = 0; j < l.total_bytes; ++j) {
        if (dst[j] != expect[j]) {
          w.verified = false;
          w.first_mismatch = j;
          break;
        }
      }
    }
    failed = w.state != WrState::kCompleted || !w.verified || r.interrupted;
  }
  // After a failure, give the QP-fatal / CQ-error events a moment to land.
  const double ev_wait = failed ? 0.05 : 0.0;
  DrainAsyncEvents(a->ctx, a->dev, ev_wait, AsyncEventText::kWithElement, &r.async_events);
  DrainAsyncEvents(b->ctx, b->dev, 0.0, AsyncEventText::kWithElement, &r.async_events);
  r.qp_state = verbs::QueryQpState(*a->qp);
  r.peer_qp_state = verbs::QueryQpState(*b->qp);
  std::optional<Counters> after_a = Snapshot(req, *a), after_b = Snapshot(req, *b);
  if (after_a) r.counters_after = *after_a;
  if (after_b) r.peer_counters_after = *after_b;
  r.seconds = MonotonicSeconds() - t0;
  return r;
}

}  // namespace rdmacheck
