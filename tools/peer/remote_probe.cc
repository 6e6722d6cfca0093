#include "tools/peer/remote_probe.h"

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
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

namespace rdmacheck {
namespace {

using Fields = std::map<std::string, std::string>;

// One end. Members in creation order: destroyed QP -> MRs -> CQ -> PD -> context.
struct End {
  std::string dev;
  int port = 1;
  std::optional<verbs::Context> ctx;
  ibv_port_attr port_attr{};
  GidEntry gid;
  ibv_gid raw_gid{};
  std::optional<verbs::ProtectionDomain> pd;
  std::optional<verbs::CompletionQueue> cq;
  std::optional<Region> region, send_4k, send_huge;
  std::optional<verbs::QueuePair> qp;
};

absl::Status OpenEnd(const std::string& sysfs_root, const std::string& dev, int port, std::optional<int> gid_index,
                     End* e) {
  e->dev = dev;
  e->port = port;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::Context ctx, verbs::Context::Open(dev));
  e->ctx.emplace(std::move(ctx));
  RDMACHECK_ASSIGN_OR_RETURN(PortGid pg, ResolvePortGid(*e->ctx, sysfs_root, dev, port, gid_index));
  e->port_attr = pg.attr;
  e->gid = pg.gid;
  e->raw_gid = pg.raw;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::ProtectionDomain pd, verbs::ProtectionDomain::Alloc(*e->ctx));
  e->pd.emplace(std::move(pd));
  RDMACHECK_ASSIGN_OR_RETURN(verbs::CompletionQueue cq, verbs::CompletionQueue::Create(*e->ctx, 64));
  e->cq.emplace(std::move(cq));
  return absl::OkStatus();
}

absl::Status CreateQp(End* e, uint32_t send_wr, uint32_t recv_wr, uint32_t send_sge) {
  ibv_qp_cap cap{};
  cap.max_send_wr = send_wr;
  cap.max_recv_wr = recv_wr;
  cap.max_send_sge = send_sge;
  cap.max_recv_sge = 1;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::QueuePair qp, verbs::QueuePair::Create(*e->pd, *e->cq, *e->cq, IBV_QPT_RC, cap));
  e->qp.emplace(std::move(qp));
  verbs::RcPath p;
  p.dev = e->dev;
  p.port = e->port;
  p.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  return verbs::ToInit(*e->qp, p);
}

struct Transport {
  int timeout = 14, retry_cnt = 6, rnr_retry = 3;
};

absl::Status Connect(const End& e, uint32_t remote_qpn, const std::string& remote_gid, ibv_mtu mtu, const Transport& t) {
  ibv_gid dgid{};
  if (inet_pton(AF_INET6, remote_gid.c_str(), dgid.raw) != 1)
    return absl::InvalidArgumentError(absl::StrCat("peer GID '", remote_gid, "' is not an IPv6 address"));
  verbs::RcPath p;
  p.dev = e.dev;
  p.port = e.port;
  p.path_mtu = mtu;
  p.dest_qpn = remote_qpn;
  p.dgid = dgid;
  p.dgid_text = remote_gid;
  p.sgid_index = e.gid.index;
  p.timeout = t.timeout;
  p.retry_cnt = t.retry_cnt;
  p.rnr_retry = t.rnr_retry;
  RDMACHECK_RETURN_IF_ERROR(verbs::ToRtr(*e.qp, p));
  return verbs::ToRts(*e.qp, p);
}

std::string QpState(const End& e) { return e.qp ? verbs::QueryQpState(*e.qp) : "none"; }

void DrainEvents(const End& e, double wait_s, std::vector<std::string>* out) {
  if (e.ctx) DrainAsyncEvents(*e.ctx, e.dev, wait_s, AsyncEventText::kTypeOnly, out);
}

std::optional<Counters> Snap(const std::string& root, const End& e) {
  absl::StatusOr<Counters> c = ReadHwCounters(root, e.dev, e.port);
  if (!c.ok()) return std::nullopt;
  return *std::move(c);
}

void PutCounters(const std::string& prefix, const Counters& c, Fields* f) {
  for (const auto& [k, v] : c) (*f)[prefix + k] = absl::StrCat(v);
}
Counters GetCounters(const std::string& prefix, const Fields& f) {
  Counters c;
  for (const auto& [k, v] : f) {
    uint64_t n;
    if (absl::StartsWith(k, prefix) && absl::SimpleAtoi(v, &n)) c[k.substr(prefix.size())] = n;
  }
  return c;
}

CompletionPoller Poller(const End& e) { return PollerFor(*e.cq); }

absl::StatusOr<Fields> Ask(PeerChannel& ch, absl::string_view type, const Fields& f, absl::string_view reply) {
  RDMACHECK_RETURN_IF_ERROR(ch.Send(type, EncodeFields(f)));
  RDMACHECK_ASSIGN_OR_RETURN(PeerFrame got, ch.Receive(reply));
  return DecodeFields(got.payload, reply);
}

ibv_mtu MtuEnum(int64_t v) {
  return static_cast<ibv_mtu>(std::clamp<int64_t>(v, IBV_MTU_256, IBV_MTU_4096));
}

// --- server half ------------------------------------------------------------

absl::Status ServeImpl(PeerChannel& ch, const PeerFrame& setup, const std::string& device, const std::string& root) {
  const std::string what = "PROBE_SETUP";
  RDMACHECK_ASSIGN_OR_RETURN(Fields f, DecodeFields(setup.payload, what));
  RDMACHECK_ASSIGN_OR_RETURN(std::string want_dev, FieldStr(f, "device", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t port, FieldInt(f, "port", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t cqpn, FieldInt(f, "qpn", what));
  RDMACHECK_ASSIGN_OR_RETURN(std::string cgid, FieldStr(f, "gid", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t cmtu, FieldInt(f, "mtu", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t recv_bytes, FieldInt(f, "recv_bytes", what));
  Transport t;
  RDMACHECK_ASSIGN_OR_RETURN(int64_t to, FieldInt(f, "timeout", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t rc, FieldInt(f, "retry_cnt", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t rnr, FieldInt(f, "rnr_retry", what));
  // The same bounds as the local probe: 7 retries forever on rxe.
  if (to < 1 || to > 31 || rc < 0 || rc > 6 || rnr < 0 || rnr > 6)
    return absl::InvalidArgumentError(absl::StrCat(what, ": timeout ", to, " retry_cnt ", rc, " rnr_retry ", rnr,
                                                   " out of bounds (1..31, 0..6, 0..6)"));
  t.timeout = static_cast<int>(to);
  t.retry_cnt = static_cast<int>(rc);
  t.rnr_retry = static_cast<int>(rnr);
  if (recv_bytes <= 0 || recv_bytes > (256 << 20))
    return absl::InvalidArgumentError(absl::StrCat(what, ": recv_bytes ", recv_bytes, " not in 1..256 MiB"));
  if (!device.empty() && !want_dev.empty() && want_dev != device)
    return absl::InvalidArgumentError(absl::StrCat("this server serves ", device, ", not ", want_dev));
  const std::string dev = device.empty() ? want_dev : device;
  if (dev.empty()) return absl::InvalidArgumentError("no device: start `rdmacheck serve -d DEV`");
  std::optional<int> gid_index;
  if (auto it = f.find("gid_index"); it != f.end() && !it->second.empty()) {
    int gi;
    if (!absl::SimpleAtoi(it->second, &gi)) return absl::InvalidArgumentError(absl::StrCat(what, ": bad gid_index"));
    gid_index = gi;
  }
  End b;
  RDMACHECK_RETURN_IF_ERROR(OpenEnd(root, dev, static_cast<int>(port), gid_index, &b));
  RDMACHECK_RETURN_IF_ERROR(CreateQp(&b, 1, 16, 1));
  const uint64_t rbytes = (static_cast<uint64_t>(recv_bytes) + 4095) / 4096 * 4096;
  RDMACHECK_ASSIGN_OR_RETURN(Region r, MakeRegion(*b.pd, rbytes, false, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  b.region.emplace(std::move(r));
  const ibv_mtu mtu = std::min(MtuEnum(cmtu), b.port_attr.active_mtu);
  RDMACHECK_RETURN_IF_ERROR(Connect(b, static_cast<uint32_t>(cqpn), cgid, mtu, t));
  Fields ready{{"device", dev},
               {"port", absl::StrCat(b.port)},
               {"qpn", absl::StrCat(b.qp->qp_num())},
               {"gid", b.gid.gid},
               {"gid_index", absl::StrCat(b.gid.index)},
               {"gid_type", std::string(GidTypeName(b.gid.type))},
               {"mtu", absl::StrCat(static_cast<int>(b.port_attr.active_mtu))},
               {"rkey", absl::StrCat(b.region->mr.rkey())},
               {"addr", absl::StrCat(reinterpret_cast<uintptr_t>(b.region->buf.data()))},
               {"region_bytes", absl::StrCat(rbytes)}};
  std::optional<Counters> before = Snap(root, b);
  ready["counters_known"] = before ? "1" : "0";
  if (before) PutCounters("c.", *before, &ready);
  RDMACHECK_RETURN_IF_ERROR(ch.Send("PROBE_READY", EncodeFields(ready)));

  std::optional<Counters> wr_before;
  for (;;) {
    RDMACHECK_ASSIGN_OR_RETURN(PeerFrame fr, ch.Receive());
    RDMACHECK_ASSIGN_OR_RETURN(Fields w, DecodeFields(fr.payload, fr.type));
    if (fr.type == "WR") {
      RDMACHECK_ASSIGN_OR_RETURN(int64_t index, FieldInt(w, "index", "WR"));
      RDMACHECK_ASSIGN_OR_RETURN(int64_t bytes, FieldInt(w, "bytes", "WR"));
      RDMACHECK_ASSIGN_OR_RETURN(std::string op, FieldStr(w, "op", "WR"));
      if (bytes < 0 || static_cast<uint64_t>(bytes) > rbytes)
        return absl::InvalidArgumentError(absl::StrCat("WR ", index, ": ", bytes, " bytes > region ", rbytes));
      uint8_t* dst = b.region->buf.data();
      for (int64_t k = 0; k < bytes; ++k) dst[k] = PeerPatternByte(static_cast<int>(index), k) ^ 0xa5;
      Fields rep{{"qp_state", QpState(b)}};
      if (op == "SEND") {
        ibv_sge sge{reinterpret_cast<uintptr_t>(dst), static_cast<uint32_t>(rbytes), b.region->mr.lkey()};
        ibv_recv_wr rwr{};
        rwr.wr_id = static_cast<uint64_t>(index);
        rwr.sg_list = &sge;
        rwr.num_sge = 1;
        ibv_recv_wr* bad = nullptr;
        if (int e = ibv_post_recv(b.qp->get(), &rwr, &bad); e != 0)
          rep["post_error"] = absl::StrCat("ibv_post_recv(dev=", dev, "): ", verbs::ErrnoText(e));
      }
      wr_before = Snap(root, b);
      RDMACHECK_RETURN_IF_ERROR(ch.Send("WR_READY", EncodeFields(rep)));
    } else if (fr.type == "WR_CHECK") {
      RDMACHECK_ASSIGN_OR_RETURN(int64_t index, FieldInt(w, "index", "WR_CHECK"));
      RDMACHECK_ASSIGN_OR_RETURN(int64_t bytes, FieldInt(w, "bytes", "WR_CHECK"));
      RDMACHECK_ASSIGN_OR_RETURN(std::string op, FieldStr(w, "op", "WR_CHECK"));
      RDMACHECK_ASSIGN_OR_RETURN(int64_t send_ok, FieldInt(w, "send_ok", "WR_CHECK"));
      RDMACHECK_ASSIGN_OR_RETURN(double wait_s, FieldDouble(w, "wait_s", "WR_CHECK"));
      wait_s = std::clamp(wait_s, 0.0, 600.0);
      Fields rep;
      bool landed = op == "RDMA_WRITE" && send_ok == 1;
      if (op == "SEND") {
        WaitOutcome wo = WaitForCompletions(Poller(b), 1, send_ok == 1 ? wait_s : 0.0, nullptr);
        if (wo.end == WaitEnd::kPollError) {
          rep["state"] = "error";
          rep["wc_status_text"] = absl::StrCat("ibv_poll_cq returned ", wo.poll_rc);
        } else if (wo.wcs.empty()) {
          rep["state"] = "none";
        } else if (wo.wcs[0].status != IBV_WC_SUCCESS) {
          rep["state"] = "error";
          rep["wc_status"] = absl::StrCat(static_cast<int>(wo.wcs[0].status));
          rep["wc_status_text"] = ibv_wc_status_str(wo.wcs[0].status);
          rep["vendor_err"] = absl::StrCat(wo.wcs[0].vendor_err);
        } else {
          rep["state"] = "completed";
          landed = true;
        }
      }
      if (landed) {
        const uint8_t* dst = b.region->buf.data();
        int64_t bad = -1;
        for (int64_t k = 0; k < bytes && k < static_cast<int64_t>(rbytes); ++k) {
          if (dst[k] != PeerPatternByte(static_cast<int>(index), k)) {
            bad = k;
            break;
          }
        }
        rep["verified"] = bad < 0 ? "1" : "0";
        if (bad >= 0) rep["first_mismatch"] = absl::StrCat(bad);
      }
      std::optional<Counters> after = Snap(root, b);
      if (wr_before && after) PutCounters("d.", CounterDelta(*wr_before, *after), &rep);
      rep["qp_state"] = QpState(b);
      RDMACHECK_RETURN_IF_ERROR(ch.Send("WR_RESULT", EncodeFields(rep)));
    } else if (fr.type == "PROBE_END") {
      std::vector<std::string> events;
      DrainEvents(b, 0.05, &events);
      Fields done{{"qp_state", QpState(b)}, {"events", absl::StrJoin(events, ";")}};
      std::optional<Counters> after = Snap(root, b);
      done["counters_known"] = after ? "1" : "0";
      if (after) PutCounters("c.", *after, &done);
      return ch.Send("PROBE_DONE", EncodeFields(done));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected ", fr.type, " frame during a probe"));
    }
  }
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
  End a;
  RDMACHECK_RETURN_IF_ERROR(OpenEnd(req.sysfs_root, req.device, req.port, req.gid_index, &a));
  r.gid_index = a.gid.index;
  r.gid = a.gid.gid;
  r.gid_type = std::string(GidTypeName(a.gid.type));
  RDMACHECK_ASSIGN_OR_RETURN(ibv_device_attr_ex attr, a.ctx->QueryDeviceEx());
  uint32_t want_sge = 1;
  for (const WrSpec& w : req.wrs) want_sge = std::max(want_sge, w.num_sge);
  if (req.want_max_sge) want_sge = std::max<uint32_t>(1, attr.orig_attr.max_sge);
  r.requested_send_sge = want_sge;
  RDMACHECK_RETURN_IF_ERROR(CreateQp(&a, 16, 1, want_sge));
  r.granted_send_sge = a.qp->granted().max_send_sge;

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
    (w.spec.straddle >= kPage2M ? need_huge : need_4k) =
        std::max(w.spec.straddle >= kPage2M ? need_huge : need_4k, l.buffer_bytes);
    layouts[i] = std::move(l);
  }
  RDMACHECK_ASSIGN_OR_RETURN(Region s4k, MakeRegion(*a.pd, (need_4k + 4095) / 4096 * 4096, false, IBV_ACCESS_LOCAL_WRITE));
  a.send_4k.emplace(std::move(s4k));
  if (need_huge > 0) {
    absl::StatusOr<Region> h =
        MakeRegion(*a.pd, (need_huge + kPage2M - 1) / kPage2M * kPage2M, true, IBV_ACCESS_LOCAL_WRITE);
    if (h.ok()) {
      a.send_huge.emplace(*std::move(h));
    } else {
      r.notes.push_back(absl::StrCat("no huge pages on this host (", h.status().message(),
                                     "): the 2 MiB-boundary WRs were skipped"));
      for (WrOutcome& w : r.wrs)
        if (w.spec.straddle >= kPage2M && w.skip_reason.empty()) w.skip_reason = "no huge pages";
    }
  }

  // The far end's QP, connected to ours.
  Fields setup{{"device", req.peer_device},
               {"port", absl::StrCat(req.peer_port)},
               {"gid_index", req.peer_gid_index ? absl::StrCat(*req.peer_gid_index) : ""},
               {"qpn", absl::StrCat(a.qp->qp_num())},
               {"gid", a.gid.gid},
               {"mtu", absl::StrCat(static_cast<int>(a.port_attr.active_mtu))},
               {"recv_bytes", absl::StrCat(need_recv)},
               {"timeout", absl::StrCat(req.timeout)},
               {"retry_cnt", absl::StrCat(req.retry_cnt)},
               {"rnr_retry", absl::StrCat(req.rnr_retry)}};
  RDMACHECK_ASSIGN_OR_RETURN(Fields ready, Ask(ch, "PROBE_SETUP", setup, "PROBE_READY"));
  const std::string host = ch.peer_name().substr(0, ch.peer_name().rfind(':'));
  RDMACHECK_ASSIGN_OR_RETURN(std::string pdev, FieldStr(ready, "device", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t pqpn, FieldInt(ready, "qpn", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(r.peer_gid, FieldStr(ready, "gid", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t pgi, FieldInt(ready, "gid_index", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t pmtu, FieldInt(ready, "mtu", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t rkey, FieldInt(ready, "rkey", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t raddr, FieldInt(ready, "addr", "PROBE_READY"));
  r.peer_device = absl::StrCat(pdev, "@", host);
  r.peer_gid_index = static_cast<int>(pgi);
  const ibv_mtu mtu = std::min(a.port_attr.active_mtu, MtuEnum(pmtu));
  r.path_mtu = 128 << mtu;
  Transport t{req.timeout, req.retry_cnt, req.rnr_retry};
  RDMACHECK_RETURN_IF_ERROR(Connect(a, static_cast<uint32_t>(pqpn), r.peer_gid, mtu, t));
  r.setup_seconds = MonotonicSeconds() - t0;
  std::optional<Counters> before = Snap(req.sysfs_root, a);
  r.counters_known = before.has_value() && ready["counters_known"] == "1";
  if (before) r.counters_before = *before;
  r.peer_counters_before = GetCounters("c.", ready);

  // Each side-channel read may wait for the far end's completion deadline.
  ch.set_io_deadline(req.deadline_s + 10);
  bool failed = false;
  std::vector<uint8_t> expect;
  for (size_t i = 0; i < r.wrs.size() && !failed; ++i) {
    WrOutcome& w = r.wrs[i];
    if (!layouts[i] || !w.skip_reason.empty()) continue;
    if (stop != nullptr && stop->load()) {
      r.interrupted = true;
      break;
    }
    const SgeLayout& l = *layouts[i];
    const Region& src = w.spec.straddle >= kPage2M ? *a.send_huge : *a.send_4k;
    w.sges_crossing = CountCrossing(l, reinterpret_cast<uintptr_t>(src.buf.data()), w.spec.straddle);
    std::vector<ibv_sge> sges;
    uint64_t k = 0;
    for (const SgeSpan& s : l.sges) {
      for (uint32_t j = 0; j < s.length; ++j, ++k) src.buf.data()[s.offset + j] = PeerPatternByte(w.index, k);
      sges.push_back({reinterpret_cast<uintptr_t>(src.buf.data() + s.offset), s.length, src.mr.lkey()});
    }
    const bool send = w.spec.op == ProbeOp::kSend;
    const std::string op(ProbeOpName(w.spec.op));
    RDMACHECK_ASSIGN_OR_RETURN(Fields wr_ready, Ask(ch, "WR",
                                                    {{"index", absl::StrCat(i)},
                                                     {"op", op},
                                                     {"bytes", absl::StrCat(l.total_bytes)}},
                                                    "WR_READY"));
    if (auto it = wr_ready.find("post_error"); it != wr_ready.end()) {
      w.state = WrState::kPostFailed;
      w.recv_side = true;
      w.post_error = it->second;
      failed = true;
      break;
    }
    w.qp_state_before = QpState(a);
    std::optional<Counters> ca = Snap(req.sysfs_root, a);
    ibv_send_wr swr{};
    swr.wr_id = i;
    swr.sg_list = sges.data();
    swr.num_sge = static_cast<int>(sges.size());
    swr.opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
    swr.send_flags = IBV_SEND_SIGNALED;
    if (!send) {
      swr.wr.rdma.remote_addr = static_cast<uint64_t>(raddr);
      swr.wr.rdma.rkey = static_cast<uint32_t>(rkey);
    }
    ibv_send_wr* bad = nullptr;
    const double posted = MonotonicSeconds();
    bool send_ok = false;
    if (int rc = ibv_post_send(a.qp->get(), &swr, &bad); rc != 0) {
      w.state = WrState::kPostFailed;
      w.post_error = absl::StrCat("ibv_post_send(dev=", a.dev, " opcode=", op, " num_sge=", sges.size(),
                                  "): ", verbs::ErrnoText(rc));
    } else {
      WaitOutcome ws = WaitForCompletions(Poller(a), 1, req.deadline_s, stop);
      send_ok = RecordSendCompletion(ws, &w, &r.interrupted);
    }
    // The far end: the receive's completion (SEND) and the bytes.
    const double left = std::max(0.0, req.deadline_s - (MonotonicSeconds() - posted));
    RDMACHECK_ASSIGN_OR_RETURN(Fields res, Ask(ch, "WR_CHECK",
                                               {{"index", absl::StrCat(i)},
                                                {"op", op},
                                                {"bytes", absl::StrCat(l.total_bytes)},
                                                {"send_ok", send_ok ? "1" : "0"},
                                                {"wait_s", absl::StrCat(left)}},
                                               "WR_RESULT"));
    if (send && send_ok) {
      w.seconds = MonotonicSeconds() - posted;
      const std::string st = res["state"];
      if (st == "none") {
        w.state = WrState::kNoCompletion;
        w.recv_side = true;
      } else if (st == "error") {
        w.state = WrState::kError;
        w.recv_side = true;
        absl::SimpleAtoi(res["wc_status"], &w.wc_status);
        w.wc_status_text = res["wc_status_text"];
        absl::SimpleAtoi(res["vendor_err"], &w.vendor_err);
      }
    }
    std::optional<Counters> ca2 = Snap(req.sysfs_root, a);
    if (ca && ca2) w.local_delta = CounterDelta(*ca, *ca2);
    w.peer_delta = GetCounters("d.", res);
    if (w.state == WrState::kCompleted) {
      w.verified = res["verified"] == "1";
      uint64_t m;
      if (!w.verified && absl::SimpleAtoi(res["first_mismatch"], &m)) w.first_mismatch = m;
    }
    failed = w.state != WrState::kCompleted || !w.verified || r.interrupted;
  }
  DrainEvents(a, failed ? 0.05 : 0.0, &r.async_events);
  RDMACHECK_ASSIGN_OR_RETURN(Fields done, Ask(ch, "PROBE_END", {}, "PROBE_DONE"));
  for (absl::string_view e : absl::StrSplit(done["events"], ';', absl::SkipEmpty()))
    r.async_events.push_back(absl::StrCat(e, "@", host));
  r.qp_state = QpState(a);
  r.peer_qp_state = done["qp_state"];
  std::optional<Counters> after = Snap(req.sysfs_root, a);
  if (after) r.counters_after = *after;
  r.peer_counters_after = GetCounters("c.", done);
  r.counters_known = r.counters_known && after.has_value() && done["counters_known"] == "1";
  r.seconds = MonotonicSeconds() - t0;
  return r;
}

}  // namespace rdmacheck
