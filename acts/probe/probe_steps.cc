#include "acts/probe/probe_steps.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/clock.h"
#include "util/status_macros.h"
#include "verbs/errors.h"
#include "verbs/qp_state.h"

namespace rdmacheck {

absl::Status OpenProbeEnd(const std::string& sysfs_root, const std::string& dev, int port,
                          std::optional<int> gid_index, ProbeEnd* e) {
  e->dev = dev;
  e->port = port;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::Context ctx, verbs::Context::Open(dev));
  e->ctx.emplace(std::move(ctx));
  RDMACHECK_ASSIGN_OR_RETURN(PortGid pg, ResolvePortGid(*e->ctx, sysfs_root, dev, port, gid_index));
  e->port_attr = pg.attr;
  e->gid = pg.gid;
  e->raw_gid = pg.raw;
  return absl::OkStatus();
}

absl::Status AllocPdAndCq(ProbeEnd* e) {
  RDMACHECK_ASSIGN_OR_RETURN(verbs::ProtectionDomain pd, verbs::ProtectionDomain::Alloc(*e->ctx));
  e->pd.emplace(std::move(pd));
  RDMACHECK_ASSIGN_OR_RETURN(verbs::CompletionQueue cq, verbs::CompletionQueue::Create(*e->ctx, 64));
  e->cq.emplace(std::move(cq));
  return absl::OkStatus();
}

absl::Status CreateProbeQp(ProbeEnd* e, uint32_t send_wr, uint32_t recv_wr, uint32_t send_sge) {
  ibv_qp_cap cap{};
  cap.max_send_wr = send_wr;
  cap.max_recv_wr = recv_wr;
  cap.max_send_sge = send_sge;
  cap.max_recv_sge = 1;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::QueuePair qp, verbs::QueuePair::Create(*e->pd, *e->cq, *e->cq, IBV_QPT_RC, cap));
  e->qp.emplace(std::move(qp));
  return absl::OkStatus();
}

absl::Status InitProbeQp(const ProbeEnd& e) {
  verbs::RcPath p;
  p.dev = e.dev;
  p.port = e.port;
  p.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  return verbs::ToInit(*e.qp, p);
}

absl::Status ConnectProbeQp(const ProbeEnd& e, const RemoteQp& remote, ibv_mtu mtu, int timeout, int retry_cnt,
                            int rnr_retry) {
  verbs::RcPath p;
  p.dev = e.dev;
  p.port = e.port;
  p.path_mtu = mtu;
  p.dest_qpn = remote.qpn;
  p.dgid = remote.gid;
  p.dgid_text = remote.gid_text;
  p.sgid_index = e.gid.index;
  p.rq_psn = 0;
  p.sq_psn = 0;
  p.timeout = timeout;
  p.retry_cnt = retry_cnt;
  p.rnr_retry = rnr_retry;
  RDMACHECK_RETURN_IF_ERROR(verbs::ToRtr(*e.qp, p));
  return verbs::ToRts(*e.qp, p);
}

absl::StatusOr<uint32_t> WantSendSge(const ProbeRequest& req, const ProbeEnd& e) {
  RDMACHECK_ASSIGN_OR_RETURN(ibv_device_attr_ex attr, e.ctx->QueryDeviceEx());
  uint32_t want = 1;
  for (const WrSpec& w : req.wrs) want = std::max(want, w.num_sge);
  if (req.want_max_sge) want = std::max<uint32_t>(1, attr.orig_attr.max_sge);
  return want;
}

absl::StatusOr<WrLayouts> LayOutWrs(const std::vector<WrSpec>& wrs, uint32_t granted_send_sge,
                                    std::vector<WrOutcome>* out) {
  WrLayouts lay;
  lay.layouts.resize(wrs.size());
  out->resize(wrs.size());
  for (size_t i = 0; i < wrs.size(); ++i) {
    WrOutcome& w = (*out)[i];
    w.index = static_cast<int>(i);
    w.spec = wrs[i];
    w.num_sge = w.spec.num_sge == 0 ? granted_send_sge : w.spec.num_sge;
    if (w.num_sge > granted_send_sge) {
      w.skip_reason = absl::StrCat(w.num_sge, " SGEs > granted max_send_sge ", granted_send_sge);
      continue;
    }
    RDMACHECK_ASSIGN_OR_RETURN(SgeLayout l, ComputeSgeLayout(w.spec, w.num_sge));
    w.total_bytes = l.total_bytes;
    lay.need_recv = std::max(lay.need_recv, l.total_bytes);
    uint64_t& need = w.spec.straddle >= kPage2M ? lay.need_huge : lay.need_4k;
    need = std::max(need, l.buffer_bytes);
    lay.layouts[i] = std::move(l);
  }
  return lay;
}

absl::Status MakeSendBuffers(const WrLayouts& lay, absl::string_view where, ProbeEnd* a, ProbeResult* r) {
  const int access = IBV_ACCESS_LOCAL_WRITE;
  RDMACHECK_ASSIGN_OR_RETURN(Region s4k, MakeRegion(*a->pd, (lay.need_4k + 4095) / 4096 * 4096, false, access));
  a->send_4k.emplace(std::move(s4k));
  if (lay.need_huge == 0) return absl::OkStatus();
  absl::StatusOr<Region> h = MakeRegion(*a->pd, (lay.need_huge + kPage2M - 1) / kPage2M * kPage2M, true, access);
  if (h.ok()) {
    a->send_huge.emplace(*std::move(h));
    return absl::OkStatus();
  }
  r->notes.push_back(
      absl::StrCat("no huge pages ", where, " (", h.status().message(), "): the 2 MiB-boundary WRs were skipped"));
  for (WrOutcome& w : r->wrs)
    if (w.spec.straddle >= kPage2M && w.skip_reason.empty()) w.skip_reason = "no huge pages";
  return absl::OkStatus();
}

std::vector<ibv_sge> WriteMessage(const SgeLayout& l, uint8_t* base, uint32_t lkey, int wr) {
  std::vector<ibv_sge> sges;
  uint64_t k = 0;
  for (const SgeSpan& s : l.sges) {
    for (uint32_t j = 0; j < s.length; ++j, ++k) base[s.offset + j] = ProbePatternByte(wr, k);
    sges.push_back({reinterpret_cast<uintptr_t>(base + s.offset), s.length, lkey});
  }
  return sges;
}

void PrefillTarget(uint8_t* dst, int wr, uint64_t bytes) {
  for (uint64_t k = 0; k < bytes; ++k) dst[k] = ProbePatternByte(wr, k) ^ 0xa5;
}

std::optional<uint64_t> FirstMismatch(const uint8_t* dst, int wr, uint64_t bytes) {
  for (uint64_t k = 0; k < bytes; ++k)
    if (dst[k] != ProbePatternByte(wr, k)) return k;
  return std::nullopt;
}

absl::Status PostProbeRecv(const ProbeEnd& b, uint64_t wr_id) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(b.region->buf.data()), static_cast<uint32_t>(b.region->buf.size()),
              b.region->mr.lkey()};
  ibv_recv_wr rwr{};
  rwr.wr_id = wr_id;
  rwr.sg_list = &sge;
  rwr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(b.qp->get(), &rwr, &bad); rc != 0)
    return verbs::VerbsError(absl::StrCat("ibv_post_recv(dev=", b.dev, ")"), rc);
  return absl::OkStatus();
}

absl::Status PostProbeSend(const ProbeEnd& a, uint64_t wr_id, ProbeOp op, std::vector<ibv_sge>& sges,
                           uint64_t remote_addr, uint32_t rkey) {
  const bool send = op == ProbeOp::kSend;
  ibv_send_wr swr{};
  swr.wr_id = wr_id;
  swr.sg_list = sges.data();
  swr.num_sge = static_cast<int>(sges.size());
  swr.opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
  swr.send_flags = IBV_SEND_SIGNALED;
  if (!send) {
    swr.wr.rdma.remote_addr = remote_addr;
    swr.wr.rdma.rkey = rkey;
  }
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(a.qp->get(), &swr, &bad); rc != 0) {
    return verbs::VerbsError(
        absl::StrCat("ibv_post_send(dev=", a.dev, " opcode=", ProbeOpName(op), " num_sge=", sges.size(), ")"), rc);
  }
  return absl::OkStatus();
}

bool WaitSendCompletion(const ProbeEnd& a, double deadline_s, const std::atomic<bool>* stop, WrOutcome* w,
                        bool* interrupted) {
  WaitOutcome ws = WaitForCompletions(PollerFor(*a.cq), 1, deadline_s, stop);
  return RecordSendCompletion(ws, w, interrupted);
}

double SecondsLeft(double deadline_s, double since) {
  return std::max(0.0, deadline_s - (MonotonicSeconds() - since));
}

std::optional<Counters> SnapCounters(const std::string& sysfs_root, const ProbeEnd& e) {
  absl::StatusOr<Counters> c = ReadHwCounters(sysfs_root, e.dev, e.port);
  if (!c.ok()) return std::nullopt;
  return *std::move(c);
}

std::string QpStateOf(const ProbeEnd& e) { return e.qp ? verbs::QueryQpState(*e.qp) : "none"; }

}  // namespace rdmacheck
