#include "tools/peer/remote_probe.h"

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <algorithm>
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
#include "acts/probe/probe_steps.h"
#include "acts/probe/probe_util.h"
#include "acts/probe/sge_layout.h"
#include "facts/hw_counters.h"
#include "facts/rdma_types.h"
#include "util/clock.h"
#include "util/status_macros.h"

namespace rdmacheck {
namespace {

using Fields = std::map<std::string, std::string>;

// The far QP from its QPN and textual GID, as they crossed the side channel.
absl::StatusOr<RemoteQp> FarQp(int64_t qpn, const std::string& gid) {
  RemoteQp q;
  q.qpn = static_cast<uint32_t>(qpn);
  q.gid_text = gid;
  if (inet_pton(AF_INET6, gid.c_str(), q.gid.raw) != 1)
    return absl::InvalidArgumentError(absl::StrCat("peer GID '", gid, "' is not an IPv6 address"));
  return q;
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

absl::StatusOr<Fields> Ask(PeerChannel& ch, absl::string_view type, const Fields& f, absl::string_view reply) {
  RDMACHECK_RETURN_IF_ERROR(ch.Send(type, EncodeFields(f)));
  RDMACHECK_ASSIGN_OR_RETURN(PeerFrame got, ch.Receive(reply));
  return DecodeFields(got.payload, reply);
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
  const std::string what = "PROBE_SETUP";
  RDMACHECK_ASSIGN_OR_RETURN(Fields f, DecodeFields(setup.payload, what));
  RDMACHECK_ASSIGN_OR_RETURN(std::string want_dev, FieldStr(f, "device", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t port, FieldInt(f, "port", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t cqpn, FieldInt(f, "qpn", what));
  RDMACHECK_ASSIGN_OR_RETURN(std::string cgid, FieldStr(f, "gid", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t cmtu, FieldInt(f, "mtu", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t recv_bytes, FieldInt(f, "recv_bytes", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t to, FieldInt(f, "timeout", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t rc, FieldInt(f, "retry_cnt", what));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t rnr, FieldInt(f, "rnr_retry", what));
  // The same bounds as the local probe: 7 retries forever on rxe.
  if (to < 1 || to > 31 || rc < 0 || rc > 6 || rnr < 0 || rnr > 6)
    return absl::InvalidArgumentError(absl::StrCat(what, ": timeout ", to, " retry_cnt ", rc, " rnr_retry ", rnr,
                                                   " out of bounds (1..31, 0..6, 0..6)"));
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
  ProbeEnd& b = sv->b;
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(sv->root, dev, static_cast<int>(port), gid_index, &b));
  RDMACHECK_RETURN_IF_ERROR(AllocPdAndCq(&b));
  RDMACHECK_RETURN_IF_ERROR(CreateProbeQp(&b, 1, 16, 1));
  RDMACHECK_RETURN_IF_ERROR(InitProbeQp(b));
  sv->rbytes = (static_cast<uint64_t>(recv_bytes) + 4095) / 4096 * 4096;
  RDMACHECK_ASSIGN_OR_RETURN(Region r,
                             MakeRegion(*b.pd, sv->rbytes, false, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  b.region.emplace(std::move(r));
  const ibv_mtu mtu = std::min(MtuEnum(cmtu), b.port_attr.active_mtu);
  RDMACHECK_ASSIGN_OR_RETURN(RemoteQp client, FarQp(cqpn, cgid));
  RDMACHECK_RETURN_IF_ERROR(ConnectProbeQp(b, client, mtu, static_cast<int>(to), static_cast<int>(rc),
                                           static_cast<int>(rnr)));
  Fields ready{{"device", dev},
               {"port", absl::StrCat(b.port)},
               {"qpn", absl::StrCat(b.qp->qp_num())},
               {"gid", b.gid.gid},
               {"gid_index", absl::StrCat(b.gid.index)},
               {"gid_type", std::string(GidTypeName(b.gid.type))},
               {"mtu", absl::StrCat(static_cast<int>(b.port_attr.active_mtu))},
               {"rkey", absl::StrCat(b.region->mr.rkey())},
               {"addr", absl::StrCat(reinterpret_cast<uintptr_t>(b.region->buf.data()))},
               {"region_bytes", absl::StrCat(sv->rbytes)}};
  std::optional<Counters> before = SnapCounters(sv->root, b);
  ready["counters_known"] = before ? "1" : "0";
  if (before) PutCounters("c.", *before, &ready);
  return ch.Send("PROBE_READY", EncodeFields(ready));
}

// WR: the target pre-filled and, for a SEND, the receive posted; WR_READY.
absl::Status ServeWr(PeerChannel& ch, const Fields& w, Served* sv) {
  RDMACHECK_ASSIGN_OR_RETURN(int64_t index, FieldInt(w, "index", "WR"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t bytes, FieldInt(w, "bytes", "WR"));
  RDMACHECK_ASSIGN_OR_RETURN(std::string op, FieldStr(w, "op", "WR"));
  if (bytes < 0 || static_cast<uint64_t>(bytes) > sv->rbytes)
    return absl::InvalidArgumentError(absl::StrCat("WR ", index, ": ", bytes, " bytes > region ", sv->rbytes));
  PrefillTarget(sv->b.region->buf.data(), static_cast<int>(index), static_cast<uint64_t>(bytes));
  Fields rep{{"qp_state", QpStateOf(sv->b)}};
  if (op == "SEND") {
    if (absl::Status s = PostProbeRecv(sv->b, static_cast<uint64_t>(index)); !s.ok())
      rep["post_error"] = std::string(s.message());
  }
  sv->wr_before = SnapCounters(sv->root, sv->b);
  return ch.Send("WR_READY", EncodeFields(rep));
}

// WR_CHECK: the receive's completion (SEND) within what is left of the
// client's deadline, every byte compared, the counters' deltas; WR_RESULT.
absl::Status ServeWrCheck(PeerChannel& ch, const Fields& w, Served* sv) {
  RDMACHECK_ASSIGN_OR_RETURN(int64_t index, FieldInt(w, "index", "WR_CHECK"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t bytes, FieldInt(w, "bytes", "WR_CHECK"));
  RDMACHECK_ASSIGN_OR_RETURN(std::string op, FieldStr(w, "op", "WR_CHECK"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t send_ok, FieldInt(w, "send_ok", "WR_CHECK"));
  RDMACHECK_ASSIGN_OR_RETURN(double wait_s, FieldDouble(w, "wait_s", "WR_CHECK"));
  wait_s = std::clamp(wait_s, 0.0, 600.0);
  Fields rep;
  bool landed = op == "RDMA_WRITE" && send_ok == 1;
  if (op == "SEND") {
    WaitOutcome wo = WaitForCompletions(PollerFor(*sv->b.cq), 1, send_ok == 1 ? wait_s : 0.0, nullptr);
    RecvCompletion rc = RecvCompletionOf(wo);
    if (rc.state == RecvCompletion::State::kError) {
      rep["state"] = "error";
      if (rc.wc_status) {
        rep["wc_status"] = absl::StrCat(*rc.wc_status);
        rep["vendor_err"] = absl::StrCat(rc.vendor_err);
      }
      rep["wc_status_text"] = rc.wc_status_text;
    } else if (rc.state == RecvCompletion::State::kNone) {
      rep["state"] = "none";
    } else {
      rep["state"] = "completed";
      landed = true;
    }
  }
  if (landed) {
    const uint64_t n = bytes <= 0 ? 0 : std::min(static_cast<uint64_t>(bytes), sv->rbytes);
    std::optional<uint64_t> bad = FirstMismatch(sv->b.region->buf.data(), static_cast<int>(index), n);
    rep["verified"] = bad ? "0" : "1";
    if (bad) rep["first_mismatch"] = absl::StrCat(*bad);
  }
  std::optional<Counters> after = SnapCounters(sv->root, sv->b);
  if (sv->wr_before && after) PutCounters("d.", CounterDelta(*sv->wr_before, *after), &rep);
  rep["qp_state"] = QpStateOf(sv->b);
  return ch.Send("WR_RESULT", EncodeFields(rep));
}

// PROBE_END: the QP's state, its async events and counters; PROBE_DONE.
absl::Status ServeEnd(PeerChannel& ch, const Served& sv) {
  std::vector<std::string> events;
  DrainAsyncEvents(*sv.b.ctx, sv.b.dev, 0.05, AsyncEventText::kTypeOnly, &events);
  Fields done{{"qp_state", QpStateOf(sv.b)}, {"events", absl::StrJoin(events, ";")}};
  std::optional<Counters> after = SnapCounters(sv.root, sv.b);
  done["counters_known"] = after ? "1" : "0";
  if (after) PutCounters("c.", *after, &done);
  return ch.Send("PROBE_DONE", EncodeFields(done));
}

absl::Status ServeImpl(PeerChannel& ch, const PeerFrame& setup, const std::string& device, const std::string& root) {
  Served sv;
  sv.root = root;
  RDMACHECK_RETURN_IF_ERROR(ServeSetup(ch, setup, device, &sv));
  for (;;) {
    RDMACHECK_ASSIGN_OR_RETURN(PeerFrame fr, ch.Receive());
    RDMACHECK_ASSIGN_OR_RETURN(Fields w, DecodeFields(fr.payload, fr.type));
    if (fr.type == "WR") {
      RDMACHECK_RETURN_IF_ERROR(ServeWr(ch, w, &sv));
    } else if (fr.type == "WR_CHECK") {
      RDMACHECK_RETURN_IF_ERROR(ServeWrCheck(ch, w, &sv));
    } else if (fr.type == "PROBE_END") {
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
  Fields setup{{"device", req.peer_device},
               {"port", absl::StrCat(req.peer_port)},
               {"gid_index", req.peer_gid_index ? absl::StrCat(*req.peer_gid_index) : ""},
               {"qpn", absl::StrCat(a.qp->qp_num())},
               {"gid", a.gid.gid},
               {"mtu", absl::StrCat(static_cast<int>(a.port_attr.active_mtu))},
               {"recv_bytes", absl::StrCat(lay.need_recv)},
               {"timeout", absl::StrCat(req.timeout)},
               {"retry_cnt", absl::StrCat(req.retry_cnt)},
               {"rnr_retry", absl::StrCat(req.rnr_retry)}};
  RDMACHECK_ASSIGN_OR_RETURN(Fields ready, Ask(ch, "PROBE_SETUP", setup, "PROBE_READY"));
  FarEnd far;
  far.host = ch.peer_name().substr(0, ch.peer_name().rfind(':'));
  RDMACHECK_ASSIGN_OR_RETURN(std::string pdev, FieldStr(ready, "device", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t pqpn, FieldInt(ready, "qpn", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(r->peer_gid, FieldStr(ready, "gid", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t pgi, FieldInt(ready, "gid_index", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t pmtu, FieldInt(ready, "mtu", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t rkey, FieldInt(ready, "rkey", "PROBE_READY"));
  RDMACHECK_ASSIGN_OR_RETURN(int64_t raddr, FieldInt(ready, "addr", "PROBE_READY"));
  far.rkey = static_cast<uint32_t>(rkey);
  far.addr = static_cast<uint64_t>(raddr);
  r->peer_device = absl::StrCat(pdev, "@", far.host);
  r->peer_gid_index = static_cast<int>(pgi);
  const ibv_mtu mtu = std::min(a.port_attr.active_mtu, MtuEnum(pmtu));
  r->path_mtu = 128 << mtu;
  RDMACHECK_ASSIGN_OR_RETURN(RemoteQp server, FarQp(pqpn, r->peer_gid));
  RDMACHECK_RETURN_IF_ERROR(ConnectProbeQp(a, server, mtu, req.timeout, req.retry_cnt, req.rnr_retry));
  r->counters_known = ready["counters_known"] == "1";
  r->peer_counters_before = GetCounters("c.", ready);
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
  const bool send = w->spec.op == ProbeOp::kSend;
  const std::string op(ProbeOpName(w->spec.op));
  RDMACHECK_ASSIGN_OR_RETURN(
      Fields wr_ready,
      Ask(ch, "WR", {{"index", absl::StrCat(w->index)}, {"op", op}, {"bytes", absl::StrCat(l.total_bytes)}},
          "WR_READY"));
  if (auto it = wr_ready.find("post_error"); it != wr_ready.end()) {
    w->state = WrState::kPostFailed;
    w->recv_side = true;
    w->post_error = it->second;
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
  RDMACHECK_ASSIGN_OR_RETURN(Fields res, Ask(ch, "WR_CHECK",
                                             {{"index", absl::StrCat(w->index)},
                                              {"op", op},
                                              {"bytes", absl::StrCat(l.total_bytes)},
                                              {"send_ok", send_ok ? "1" : "0"},
                                              {"wait_s", absl::StrCat(SecondsLeft(req.deadline_s, posted))}},
                                             "WR_RESULT"));
  if (send && send_ok) {
    w->seconds = MonotonicSeconds() - posted;
    const std::string st = res["state"];
    RecvCompletion rc;
    rc.state = st == "none" ? RecvCompletion::State::kNone
               : st == "error" ? RecvCompletion::State::kError
                               : RecvCompletion::State::kCompleted;
    int wc_status;
    if (absl::SimpleAtoi(res["wc_status"], &wc_status)) rc.wc_status = wc_status;
    rc.wc_status_text = res["wc_status_text"];
    absl::SimpleAtoi(res["vendor_err"], &rc.vendor_err);
    RecordRecvCompletion(rc, w);
  }
  std::optional<Counters> ca2 = SnapCounters(req.sysfs_root, a);
  if (ca && ca2) w->local_delta = CounterDelta(*ca, *ca2);
  w->peer_delta = GetCounters("d.", res);
  if (w->state == WrState::kCompleted) {
    w->verified = res["verified"] == "1";
    uint64_t m;
    if (!w->verified && absl::SimpleAtoi(res["first_mismatch"], &m)) w->first_mismatch = m;
  }
  return w->state != WrState::kCompleted || !w->verified || *interrupted;
}

// PROBE_END / PROBE_DONE: both QPs' states, async events and counters.
absl::Status EndPeerProbe(PeerChannel& ch, const ProbeRequest& req, const ProbeEnd& a, const FarEnd& far,
                          bool failed, ProbeResult* r) {
  DrainAsyncEvents(*a.ctx, a.dev, failed ? 0.05 : 0.0, AsyncEventText::kTypeOnly, &r->async_events);
  RDMACHECK_ASSIGN_OR_RETURN(Fields done, Ask(ch, "PROBE_END", {}, "PROBE_DONE"));
  for (absl::string_view e : absl::StrSplit(done["events"], ';', absl::SkipEmpty()))
    r->async_events.push_back(absl::StrCat(e, "@", far.host));
  r->qp_state = QpStateOf(a);
  r->peer_qp_state = done["qp_state"];
  std::optional<Counters> after = SnapCounters(req.sysfs_root, a);
  if (after) r->counters_after = *after;
  r->peer_counters_after = GetCounters("c.", done);
  r->counters_known = r->counters_known && after.has_value() && done["counters_known"] == "1";
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
