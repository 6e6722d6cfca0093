#include "acts/bench/bench_session.h"

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "acts/bench/bench_math.h"
#include "acts/probe/probe_steps.h"
#include "acts/probe/probe_util.h"
#include "facts/gid_table.h"
#include "util/clock.h"
#include "util/status_macros.h"
#include "util/stop_flag.h"
#include "verbs/errors.h"
#include "verbs/qp_state.h"
#include "verbs/rc_connect.h"

namespace rdmacheck {

SessionShape ShapeFor(const BenchSettings& s) {
  SessionShape sh;
  sh.mode = s.mode;
  sh.op = s.op;
  sh.qps = s.mode == BenchMode::kLatency ? 1 : std::max(1, s.qps);
  sh.max_size = std::max<uint32_t>(1, s.size);
  sh.tx_depth = std::max(1, s.tx_depth);
  sh.inline_size = EffectiveInline(s);
  sh.mtu = s.mtu;
  return sh;
}

namespace {

constexpr uint64_t kPage = 4096;

uint64_t RegionBytes(const SessionShape& sh) {
  // Latency: a target half and a source half (RunLatency).
  uint64_t b = static_cast<uint64_t>(sh.qps) * sh.max_size * (sh.mode == BenchMode::kLatency ? 2 : 1);
  return std::max<uint64_t>(kPage, (b + kPage - 1) / kPage * kPage);
}

// Receives kept posted per QP for SEND runs.
int RxDepth(const SessionShape& sh) { return std::max(2 * sh.tx_depth, 64); }

}  // namespace

uint64_t RegisteredBytes(const SessionShape& shape) { return 2 * RegionBytes(shape); }

absl::Status CheckMemlock(uint64_t bytes, std::optional<uint64_t> limit) {
  if (!limit || bytes <= *limit) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the run registers ", bytes, " bytes but RLIMIT_MEMLOCK is ", *limit,
      " bytes (ulimit -l ", *limit / 1024, "): use smaller -s or -q, or raise the limit (ulimit -l unlimited, "
      "or LimitMEMLOCK=infinity in the service's unit)"));
}

std::optional<uint64_t> SoftMemlockLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(rl.rlim_cur);
}

namespace {

// One end: the probe's open end (context, port, GID, PD), a CQ and a QP per
// QP of the shape, and one registered region sliced per QP. Destroyed QPs ->
// region -> CQs -> PD -> context.
struct Side {
  ProbeEnd base;
  std::vector<verbs::CompletionQueue> cqs;
  std::optional<Region> region;
  std::vector<verbs::QueuePair> qps;
};

// Pins the calling thread to `cpus` for its lifetime, then restores the mask
// it had: only rdmacheck's own thread moves, the host is not changed.
class ThreadPin {
 public:
  explicit ThreadPin(const std::vector<int>& cpus, std::vector<std::string>* notes) {
    if (cpus.empty()) return;
    if (pthread_getaffinity_np(pthread_self(), sizeof(old_), &old_) != 0) return;
    cpu_set_t want;
    CPU_ZERO(&want);
    for (int c : cpus)
      if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &want);
    if (int rc = pthread_setaffinity_np(pthread_self(), sizeof(want), &want); rc != 0) {
      notes->push_back(absl::StrCat("--pin ", absl::StrJoin(cpus, ","), " not applied: ", verbs::ErrnoText(rc)));
      return;
    }
    pinned_ = true;
    want_ = want;
  }
  ~ThreadPin() {
    if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof(old_), &old_);
  }
  ThreadPin(const ThreadPin&) = delete;
  ThreadPin& operator=(const ThreadPin&) = delete;

  // For a thread that must not share the pinned CPUs (latency's answering
  // end: two spinning threads on one CPU measure the scheduler's time slice,
  // about 8 ms a round trip in the guest, not the link): the CPUs the
  // thread had before, less the pinned ones. nullopt when not pinned or
  // when nothing is left.
  std::optional<cpu_set_t> Others() const {
    if (!pinned_) return std::nullopt;
    cpu_set_t rest;
    CPU_ZERO(&rest);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &old_) && !CPU_ISSET(c, &want_)) CPU_SET(c, &rest);
    if (CPU_COUNT(&rest) == 0) return std::nullopt;
    return rest;
  }

 private:
  cpu_set_t old_{};
  cpu_set_t want_{};
  bool pinned_ = false;
};

}  // namespace

struct BenchSession::State {
  BenchEnds ends;
  SessionShape shape;
  Side a, b;  // b is empty in peer mode: the far end holds it
  BenchFar far;  // peer mode: the far end's QPs and region
  bool loopback = false;
  int active_mtu = 0;
  int path_mtu = 0;
  double setup_seconds = 0;
  std::vector<int> recv_posted;  // receives outstanding per QP of b (SEND runs)
  bool broken = false;  // a run left the QPs in error or with WRs in flight
  std::string broken_why;
};

BenchSession::BenchSession(std::unique_ptr<State> st) : st_(std::move(st)) {}
BenchSession::~BenchSession() {
  // A run that stalled or failed may leave WRs in flight: stop both
  // requesters (ERR flushes them) before the QPs are destroyed.
  if (st_ && st_->broken) {
    for (const verbs::QueuePair& qp : st_->a.qps) (void)verbs::ToErr(qp, st_->a.base.dev);
    for (const verbs::QueuePair& qp : st_->b.qps) (void)verbs::ToErr(qp, st_->b.base.dev);
  }
  if (st_ && st_->ends.far) st_->ends.far->Close();
}
const SessionShape& BenchSession::shape() const { return st_->shape; }
int BenchSession::active_mtu() const { return st_->active_mtu; }

namespace {

absl::Status SetUpSide(Side* s, const SessionShape& sh, bool requester, int max_qp_wr) {
  RDMACHECK_ASSIGN_OR_RETURN(verbs::ProtectionDomain pd, verbs::ProtectionDomain::Alloc(*s->base.ctx));
  s->base.pd.emplace(std::move(pd));
  const bool recv = !requester && sh.op == BenchOp::kSend && sh.mode == BenchMode::kBandwidth;
  const int send_wr = std::min(sh.tx_depth, max_qp_wr);
  const int recv_wr = recv ? std::min(RxDepth(sh), max_qp_wr) : 1;
  for (int i = 0; i < sh.qps; ++i) {
    RDMACHECK_ASSIGN_OR_RETURN(verbs::CompletionQueue cq,
                               verbs::CompletionQueue::Create(*s->base.ctx, send_wr + recv_wr + 1));
    s->cqs.push_back(std::move(cq));
  }
  RDMACHECK_ASSIGN_OR_RETURN(
      Region r, MakeRegion(*s->base.pd, RegionBytes(sh), false,
                           IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
  s->region.emplace(std::move(r));
  for (int i = 0; i < sh.qps; ++i) {
    ibv_qp_cap cap{};
    cap.max_send_wr = static_cast<uint32_t>(send_wr);
    cap.max_recv_wr = static_cast<uint32_t>(recv_wr);
    cap.max_send_sge = 1;
    cap.max_recv_sge = 1;
    cap.max_inline_data = sh.inline_size;
    RDMACHECK_ASSIGN_OR_RETURN(verbs::QueuePair qp,
                               verbs::QueuePair::Create(*s->base.pd, s->cqs[i], s->cqs[i], IBV_QPT_RC, cap));
    s->qps.push_back(std::move(qp));
  }
  return absl::OkStatus();
}

// The other end's QPs as a connect needs them: local, or across the side
// channel in peer mode.
struct Dest {
  std::vector<uint32_t> qpns;
  ibv_gid gid{};
  std::string gid_text;
};

Dest DestOf(const Side& s) {
  Dest d{{}, s.base.raw_gid, s.base.gid.gid};
  for (const verbs::QueuePair& qp : s.qps) d.qpns.push_back(qp.qp_num());
  return d;
}

absl::StatusOr<Dest> DestOf(const std::vector<uint32_t>& qpns, const std::string& gid) {
  Dest d{qpns, {}, gid};
  if (inet_pton(AF_INET6, gid.c_str(), d.gid.raw) != 1)
    return absl::InvalidArgumentError(absl::StrCat("far end's GID '", gid, "' is not an IPv6 address"));
  return d;
}

absl::Status ConnectSides(Side* from, const Dest& to, ibv_mtu mtu, int rd_atomic) {
  if (to.qpns.size() != from->qps.size())
    return absl::InvalidArgumentError(
        absl::StrCat("the far end has ", to.qpns.size(), " QPs for this end's ", from->qps.size()));
  for (size_t i = 0; i < from->qps.size(); ++i) {
    verbs::RcPath p;
    p.dev = from->base.dev;
    p.port = from->base.port;
    p.path_mtu = mtu;
    p.dest_qpn = to.qpns[i];
    p.dgid = to.gid;
    p.dgid_text = to.gid_text;
    p.sgid_index = from->base.gid.index;
    p.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    p.rd_atomic = rd_atomic;
    RDMACHECK_RETURN_IF_ERROR(verbs::ConnectRc(from->qps[i], p));
  }
  return absl::OkStatus();
}

ibv_mtu MtuEnum(int bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
  }
}

}  // namespace

namespace {

// READs in flight one end allows, as perftest asks for (at most 16).
int RdAtomic(const ibv_device_attr_ex& d) {
  return std::max(1, std::min({d.orig_attr.max_qp_init_rd_atom, d.orig_attr.max_qp_rd_atom, 16}));
}

}  // namespace

absl::StatusOr<std::unique_ptr<BenchSession>> BenchSession::Open(const BenchEnds& ends, const SessionShape& shape) {
  // Peer mode registers only this end's half here; the far end checks its own.
  RDMACHECK_RETURN_IF_ERROR(
      CheckMemlock(RegisteredBytes(shape) / (ends.far ? 2 : 1), SoftMemlockLimit()));
  const double t0 = MonotonicSeconds();
  auto st = std::make_unique<State>();
  st->ends = ends;
  st->shape = shape;
  st->loopback = !ends.far && (ends.peer_device.empty() || ends.peer_device == ends.device);
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(ends.sysfs_root, ends.device, ends.port, ends.gid_index, &st->a.base));
  RDMACHECK_ASSIGN_OR_RETURN(ibv_device_attr_ex da, st->a.base.ctx->QueryDeviceEx());
  if (ends.far) {
    // This end's QPs first: the far end connects its own to them and answers
    // with theirs, the path MTU both use and the READs in flight both allow.
    const int ours = 128 << st->a.base.port_attr.active_mtu;
    if (MtuChoice m = ChooseBenchMtu(shape.mtu, ours); !m.error.empty()) return absl::InvalidArgumentError(m.error);
    RDMACHECK_RETURN_IF_ERROR(SetUpSide(&st->a, shape, true, da.orig_attr.max_qp_wr));
    BenchNear n;
    n.shape = shape;
    n.active_mtu = ours;
    n.rd_atomic = RdAtomic(da);
    n.device = ends.device;
    n.peer_device = ends.peer_device;
    n.peer_gid_index = ends.peer_gid_index;
    n.gid = st->a.base.gid.gid;
    for (const verbs::QueuePair& qp : st->a.qps) n.qpns.push_back(qp.qp_num());
    n.addr = reinterpret_cast<uintptr_t>(st->a.region->buf.data());
    n.rkey = st->a.region->mr.rkey();
    n.region_bytes = st->a.region->buf.size();
    RDMACHECK_ASSIGN_OR_RETURN(st->far, ends.far->Open(n));
    // From here the far end holds QPs: ~BenchSession closes them, on every path.
    auto session = std::unique_ptr<BenchSession>(new BenchSession(std::move(st)));
    State& s = *session->st_;
    s.active_mtu = std::min(ours, s.far.active_mtu);
    s.path_mtu = s.far.path_mtu;
    if (s.path_mtu > s.active_mtu || s.path_mtu < 256 || s.far.region_bytes < RegionBytes(shape))
      return absl::InvalidArgumentError(absl::StrCat("the far end answered path MTU ", s.path_mtu, " (active ",
                                                     s.active_mtu, ") and a region of ", s.far.region_bytes,
                                                     " bytes for ", RegionBytes(shape)));
    RDMACHECK_ASSIGN_OR_RETURN(Dest to, DestOf(s.far.qpns, s.far.gid));
    RDMACHECK_RETURN_IF_ERROR(ConnectSides(&s.a, to, MtuEnum(s.path_mtu), std::min(n.rd_atomic, s.far.rd_atomic)));
    s.setup_seconds = MonotonicSeconds() - t0;
    return session;
  }
  const std::string peer = st->loopback ? ends.device : ends.peer_device;
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(ends.sysfs_root, peer, st->loopback ? ends.port : ends.peer_port,
                                         ends.peer_gid_index ? ends.peer_gid_index : ends.gid_index, &st->b.base));
  const ibv_mtu active = std::min(st->a.base.port_attr.active_mtu, st->b.base.port_attr.active_mtu);
  st->active_mtu = 128 << active;
  MtuChoice mtu = ChooseBenchMtu(shape.mtu, st->active_mtu);
  if (!mtu.error.empty()) return absl::InvalidArgumentError(mtu.error);
  st->path_mtu = mtu.bytes;

  RDMACHECK_ASSIGN_OR_RETURN(ibv_device_attr_ex db, st->b.base.ctx->QueryDeviceEx());
  const int max_wr = std::min(da.orig_attr.max_qp_wr, db.orig_attr.max_qp_wr);
  const int rd = std::min(RdAtomic(da), RdAtomic(db));
  RDMACHECK_RETURN_IF_ERROR(SetUpSide(&st->a, shape, true, max_wr));
  RDMACHECK_RETURN_IF_ERROR(SetUpSide(&st->b, shape, false, max_wr));
  RDMACHECK_RETURN_IF_ERROR(ConnectSides(&st->a, DestOf(st->b), MtuEnum(st->path_mtu), rd));
  RDMACHECK_RETURN_IF_ERROR(ConnectSides(&st->b, DestOf(st->a), MtuEnum(st->path_mtu), rd));
  st->setup_seconds = MonotonicSeconds() - t0;
  return std::unique_ptr<BenchSession>(new BenchSession(std::move(st)));
}

bool BenchSession::Fits(const BenchSettings& s) const {
  const SessionShape want = ShapeFor(s);
  const SessionShape& have = st_->shape;
  return !st_->broken && want.mode == have.mode && want.op == have.op && want.qps <= have.qps &&
         want.max_size <= have.max_size && want.tx_depth <= have.tx_depth && want.inline_size <= have.inline_size &&
         (want.mtu == 0 ? st_->path_mtu == st_->active_mtu : want.mtu == st_->path_mtu);
}

namespace {

std::optional<Counters> Snap(const BenchEnds& e, const Side& s) { return SnapCounters(e.sysfs_root, s.base); }

void Fail(BenchResult* r, BenchEnd end, std::string why) {
  if (r->end != BenchEnd::kOk) return;
  r->end = end;
  r->failure = std::move(why);
}

void FailWc(BenchResult* r, const ibv_wc& wc, const std::string& dev) {
  if (r->end != BenchEnd::kOk) return;
  r->wc_status = wc.status;
  r->wc_status_text = ibv_wc_status_str(wc.status);
  r->vendor_err = wc.vendor_err;
  Fail(r, BenchEnd::kWcError,
       absl::StrCat("completion with status ", wc.status, " (", r->wc_status_text, ") on ", dev, ", vendor_err 0x",
                    absl::Hex(wc.vendor_err)));
}

// The receives of a SEND run: each over the whole of QP i's slice of the
// region, so a receive posted for one run still fits the largest message of
// the next.
int PostRecvs(const Side& b, int i, int n) {
  const uint64_t slice = b.region->buf.size() / b.qps.size();
  for (int k = 0; k < n; ++k) {
    ibv_sge sge{reinterpret_cast<uintptr_t>(b.region->buf.data()) + static_cast<uint64_t>(i) * slice,
                static_cast<uint32_t>(slice), b.region->mr.lkey()};
    ibv_recv_wr wr{};
    wr.wr_id = static_cast<uint64_t>(i);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (int rc = ibv_post_recv(b.qps[i].get(), &wr, &bad); rc != 0) return rc;
  }
  return 0;
}

// Every receive completion on b's QP i, each receive posted again at once,
// so the receive queue stays full (a SEND finding none is an RNR NAK).
void RefillRecvs(const Side& b, int i, BenchResult* r) {
  ibv_wc wc[32];
  for (int rgot = 32; rgot == 32 && r->end == BenchEnd::kOk;) {
    rgot = ibv_poll_cq(b.cqs[i].get(), 32, wc);
    for (int k = 0; k < rgot; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) {
        FailWc(r, wc[k], b.base.dev);
        return;
      }
    }
    if (rgot > 0) {
      if (int rc = PostRecvs(b, i, rgot); rc != 0)
        Fail(r, BenchEnd::kPostFailed, absl::StrCat("ibv_post_recv(dev=", b.base.dev, "): ", verbs::ErrnoText(rc)));
    }
  }
}

// The far end's region as this end's WRITEs and READs address it (a local
// side's, or the one the far end announced in peer mode).
struct WriteTarget {
  uint64_t addr = 0;
  uint32_t rkey = 0;
};
WriteTarget TargetOf(const Side& s) { return {reinterpret_cast<uintptr_t>(s.region->buf.data()), s.region->mr.rkey()}; }

// Posts the receives that bring each of b's first q QPs to its granted
// depth; recv_posted: the receives outstanding per QP, kept across the runs
// of a session (a SEND run leaves its receive queues full for the next).
bool FillRecvs(const Side& b, int q, std::vector<int>* recv_posted, BenchResult* r) {
  const int rx = static_cast<int>(b.qps[0].granted().max_recv_wr);
  recv_posted->resize(b.qps.size(), 0);
  for (int i = 0; i < q; ++i) {
    const int more = rx - (*recv_posted)[i];
    if (more <= 0) continue;
    (*recv_posted)[i] = rx;
    if (int rc = PostRecvs(b, i, more); rc != 0) {
      Fail(r, BenchEnd::kPostFailed,
           std::string(verbs::VerbsError(absl::StrCat("ibv_post_recv(dev=", b.base.dev, ")"), rc).message()));
      return false;
    }
  }
  return true;
}

// QPs [q0, q1) of a bandwidth run, on the calling thread. b: the far side
// when it is local (its receives refilled here; FillRecvs was called), nullptr
// in peer mode (the far end refills its own); bt: where the WRITEs land.
void RunBandwidthOn(const BenchEnds& ends, Side& a, Side* b, WriteTarget bt, const BenchSettings& s,
                    const std::atomic<bool>& stop, int q0, int q1, BenchResult* r) {
  const int q = q1;
  const int l = std::max(1, s.post_list);
  const int m = r->settings.cq_mod;
  // The window is the depth asked (-t), as perftest's: rxe grants more
  // (128 -> 255) and a deeper window would not be the same run.
  const int depth = std::min(std::max(1, s.tx_depth), static_cast<int>(a.qps[0].granted().max_send_wr));
  const bool duration = s.duration_s > 0 || s.stop.has_value();
  const uint64_t iters = duration ? UINT64_MAX : std::max<uint64_t>(1, s.iters);
  const bool inl = r->settings.inline_size && s.size <= *r->settings.inline_size;
  const uint32_t size = s.size;
  std::vector<uint64_t> posted(q, 0), done(q, 0), last_sig(q, 0);
  const bool rx = s.op == BenchOp::kSend && b != nullptr;
  std::vector<ibv_send_wr> wr(l);
  std::vector<ibv_sge> sge(l);
  ibv_wc wc[32];
  const StopRule rule = s.stop.value_or(StopRule{});
  const double run_s = s.duration_s > 0 ? s.duration_s : rule.max_s;
  const double slice_s = s.stop ? rule.slice_s : (duration ? std::max(0.05, run_s / 20) : 0.05);

  const double t0 = FastSeconds();
  double start_t = -1;      // the first post (or the end of the warm-up)
  uint64_t start_done = 0;  // messages completed before start_t
  double last_t = t0, progress_t = t0;
  double slice_t = -1;
  uint64_t slice_done = 0;
  bool time_up = false, stable = false;
  bool warming = duration && s.warmup_s > 0;
  uint64_t total_done = 0;
  // A duration or stop-rule run counts up to its last completion before time
  // was up, as perftest counts only what completes in its sample window: the
  // drain after it runs with the window emptying (at 64 KiB and -t 128, 8 MiB
  // and a tenth of the run on rxe), where rxe drops and retries less than in
  // the steady state the figure is for.
  double end_t = -1;
  uint64_t end_done = 0;
  while (true) {
    const double now = FastSeconds();
    if (stop.load()) {
      Fail(r, BenchEnd::kInterrupted, "interrupted (Ctrl-C or the check's deadline)");
      break;
    }
    if (duration && !time_up && !warming && start_t >= 0) {
      const double el = now - start_t;
      if (s.stop && s.duration_s == 0) {
        StopNow sn = ShouldStop(rule, r->slice_gbps, el);
        if (sn != StopNow::kGoOn) {
          time_up = true;
          stable = sn == StopNow::kStable;
        }
      } else if (el >= s.duration_s - 2 * s.warmup_s) {
        time_up = true;
      }
      if (time_up && total_done > start_done) {
        end_t = last_t;
        end_done = total_done;
      }
    }
    bool posting_done = true;
    for (int i = q0; i < q && r->end == BenchEnd::kOk; ++i) {
      while (true) {
        int n;
        bool tail = false;
        if (!duration) {
          if (posted[i] >= iters) break;
          n = static_cast<int>(std::min<uint64_t>(l, iters - posted[i]));
        } else if (time_up) {
          if (last_sig[i] == posted[i]) break;
          n = 1;  // one signalled WR so the unsignalled ones before it are accounted
          tail = true;
        } else {
          n = l;
        }
        posting_done = false;
        if (static_cast<int>(posted[i] - done[i]) + n > depth) break;
        for (int j = 0; j < n; ++j) {
          const uint64_t off = static_cast<uint64_t>(i) * size;
          sge[j] = {reinterpret_cast<uintptr_t>(a.region->buf.data()) + off, size, a.region->mr.lkey()};
          ibv_send_wr& w = wr[j];
          w = {};
          w.wr_id = posted[i] + j + 1;
          w.sg_list = &sge[j];
          w.num_sge = 1;
          w.next = j + 1 < n ? &wr[j + 1] : nullptr;
          const bool last = tail || (!duration && posted[i] + j + 1 == iters);
          w.send_flags = (Signalled(posted[i], j, m, last) ? IBV_SEND_SIGNALED : 0) | (inl ? IBV_SEND_INLINE : 0);
          if (w.send_flags & IBV_SEND_SIGNALED) last_sig[i] = posted[i] + j + 1;
          if (s.op == BenchOp::kSend) {
            w.opcode = IBV_WR_SEND;
          } else {
            w.opcode = s.op == BenchOp::kRead ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
            w.wr.rdma.remote_addr = bt.addr + off;
            w.wr.rdma.rkey = bt.rkey;
          }
        }
        ibv_send_wr* bad = nullptr;
        if (int rc = ibv_post_send(a.qps[i].get(), &wr[0], &bad); rc != 0) {
          Fail(r, BenchEnd::kPostFailed,
               std::string(verbs::VerbsError(absl::StrCat("ibv_post_send(dev=", a.base.dev, " opcode=",
                                                          BenchOpName(s.op), " list=", n, ")"),
                                             rc)
                               .message()));
          break;
        }
        if (start_t < 0) start_t = slice_t = FastSeconds();
        posted[i] += n;
      }
    }
    if (r->end != BenchEnd::kOk) break;
    bool progressed = false;
    for (int i = q0; i < q && r->end == BenchEnd::kOk; ++i) {
      int got = ibv_poll_cq(a.cqs[i].get(), 32, wc);
      if (got < 0) {
        Fail(r, BenchEnd::kWcError, absl::StrCat("ibv_poll_cq(dev=", a.base.dev, ") returned ", got));
        break;
      }
      for (int k = 0; k < got; ++k) {
        if (wc[k].status != IBV_WC_SUCCESS) {
          FailWc(r, wc[k], a.base.dev);
          break;
        }
        total_done += wc[k].wr_id - done[i];
        done[i] = wc[k].wr_id;
        progressed = true;
      }
      if (rx) RefillRecvs(*b, i, r);
    }
    if (r->end != BenchEnd::kOk) break;
    const double t = FastSeconds();
    if (progressed) {
      last_t = progress_t = t;
      if (warming && start_t >= 0 && t - start_t >= s.warmup_s) {
        // The warm-up ends at this completion: count from here.
        warming = false;
        start_t = slice_t = t;
        start_done = slice_done = total_done;
        r->slice_gbps.clear();
      } else if (slice_t >= 0 && t - slice_t >= slice_s) {
        r->slice_gbps.push_back(GbitsPerSecond((total_done - slice_done) * size, t - slice_t));
        slice_t = t;
        slice_done = total_done;
      }
    }
    uint64_t outstanding = 0;
    for (int i = q0; i < q; ++i) outstanding += posted[i] - done[i];
    if (posting_done && outstanding == 0) break;
    if (outstanding > 0 && t - progress_t > ends.deadline_s) {
      Fail(r, BenchEnd::kStalled,
           absl::StrCat("no completion for ", ends.deadline_s, " s with ", outstanding, " WRs outstanding after ",
                        total_done, " completed"));
      break;
    }
  }
  // The last receives' completions, so the next run starts with full queues.
  for (int i = q0; i < q && rx; ++i) RefillRecvs(*b, i, r);
  if (end_t < 0) {  // an iterations run, or no completion before time was up
    end_t = last_t;
    end_done = total_done;
  }
  r->messages = end_done - start_done;
  r->bytes = r->messages * size;
  r->seconds = start_t >= 0 ? end_t - start_t : 0;
  r->bw_avg_gbps = GbitsPerSecond(r->bytes, r->seconds);
  r->msg_rate_mpps = r->seconds > 0 ? r->messages / r->seconds / 1e6 : 0;
  r->bw_peak_gbps = r->bw_avg_gbps;
  for (double g : r->slice_gbps) r->bw_peak_gbps = std::max(r->bw_peak_gbps, g);
  r->stable = stable;
}

// A bandwidth run: its QPs on one thread, or split over s.threads threads
// (each its own QPs, CQs and window), whose figures add up as concurrent
// runs' do. The threads inherit the caller's CPU mask (--pin).
void RunBandwidth(const BenchEnds& ends, Side& a, Side* b, WriteTarget bt, const BenchSettings& s,
                  const std::atomic<bool>& stop, std::vector<int>* recv_posted, BenchResult* r) {
  const int q = std::max(1, s.qps);
  if (s.op == BenchOp::kSend && b != nullptr && !FillRecvs(*b, q, recv_posted, r)) return;
  const int n = std::clamp(s.threads, 1, q);
  if (n == 1) {
    RunBandwidthOn(ends, a, b, bt, s, stop, 0, q, r);
    return;
  }
  std::vector<BenchResult> part(n, *r);
  {
    std::vector<std::thread> ts;
    for (int k = 0; k < n; ++k)
      ts.emplace_back([&, k] { RunBandwidthOn(ends, a, b, bt, s, stop, k * q / n, (k + 1) * q / n, &part[k]); });
    for (std::thread& t : ts) t.join();
  }
  AddConcurrent(part, r);
}

// Spins until the byte at `p` reads `want`, the deadline passes, `stop` or
// `quit` is raised.
bool WaitByte(const volatile uint8_t* p, uint8_t want, double deadline_at, const std::atomic<bool>& stop,
              const std::atomic<bool>& quit) {
  for (uint32_t k = 0;; ++k) {
    if (*p == want) return true;
    if ((k & 1023) == 1023 && (stop.load() || quit.load() || FastSeconds() > deadline_at)) return *p == want;
  }
}

// Reaps send completions of `s` without waiting; false on an error status.
bool Reap(const Side& s, int* outstanding, BenchResult* r) {
  ibv_wc wc[16];
  int got = ibv_poll_cq(s.cqs[0].get(), 16, wc);
  for (int k = 0; k < got; ++k) {
    if (wc[k].status != IBV_WC_SUCCESS) {
      FailWc(r, wc[k], s.base.dev);
      return false;
    }
  }
  if (got > 0) *outstanding -= got;
  return true;
}

// A latency run's buffers: each side's region is two halves, the first the
// target of the other side's WRITEs, the second the source of its own (one
// byte serving both would read as the answer before it came).
uint8_t* Target(const Side& s) { return s.region->buf.data(); }
uint8_t* Source(const Side& s) { return s.region->buf.data() + s.region->buf.size() / 2; }

// One WRITE of `size` bytes from `from`'s source half to `to`'s target half,
// signalled; when the send queue is full (`depth`), its completions are
// waited for first, within `deadline_s`.
bool PingWrite(const Side& from, WriteTarget to, uint32_t size, bool inl, int depth, double deadline_s,
               int* outstanding, BenchResult* r) {
  // Nothing in flight (the ping drains each WRITE): no poll before the post,
  // which would sit inside every sample.
  if (*outstanding > 0 && !Reap(from, outstanding, r)) return false;
  if (*outstanding >= depth) {
    const double until = FastSeconds() + deadline_s;
    while (*outstanding >= depth && FastSeconds() < until)
      if (!Reap(from, outstanding, r)) return false;
    if (*outstanding >= depth) {
      Fail(r, BenchEnd::kStalled, absl::StrCat("no send completion on ", from.base.dev, " for ", deadline_s, " s"));
      return false;
    }
  }
  ibv_sge sge{reinterpret_cast<uintptr_t>(Source(from)), size, from.region->mr.lkey()};
  ibv_send_wr w{};
  w.wr_id = 1;
  w.sg_list = &sge;
  w.num_sge = 1;
  w.opcode = IBV_WR_RDMA_WRITE;
  w.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
  w.wr.rdma.remote_addr = to.addr;  // the target half comes first
  w.wr.rdma.rkey = to.rkey;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(from.qps[0].get(), &w, &bad); rc != 0) {
    Fail(r, BenchEnd::kPostFailed,
         std::string(verbs::VerbsError(absl::StrCat("ibv_post_send(dev=", from.base.dev, " opcode=write)"), rc).message()));
    return false;
  }
  ++*outstanding;
  return true;
}

// Waits for the last WRs' completions so the QP is idle for the next run.
// The clock is read every 256 polls, as WaitByte reads it: a read per poll
// lengthens the spin, and so every latency sample, by its own cost.
void Drain(const Side& s, int* outstanding, double deadline_s, BenchResult* r) {
  const double until = FastSeconds() + deadline_s;
  for (uint32_t k = 0; r->end == BenchEnd::kOk && *outstanding > 0; ++k) {
    if ((k & 255) == 255 && FastSeconds() >= until) return;
    if (!Reap(s, outstanding, r)) return;
  }
}

// Joins a thread on every path out of the scope that started it.
class Joiner {
 public:
  explicit Joiner(std::thread t) : t_(std::move(t)) {}
  ~Joiner() {
    if (t_.joinable()) t_.join();
  }
  void Join() {
    if (t_.joinable()) t_.join();
  }
  Joiner(const Joiner&) = delete;
  Joiner& operator=(const Joiner&) = delete;

 private:
  std::thread t_;
};

// The answering half of the ping-pong, as ib_write_lat's other process:
// each time the last byte of b's target changes to the next mark, b writes
// the mark back to `to` (the pinging end's target). No deadline of its own:
// the pinging end gives up and raises `quit`.
void Respond(const Side& b, WriteTarget to, const BenchSettings& s, double deadline_s, const std::atomic<bool>& stop,
             const std::atomic<bool>& quit, BenchResult* far) {
  const uint32_t size = std::max<uint32_t>(1, s.size);
  const bool inl = s.inline_size && size <= *s.inline_size;
  const int depth = std::min(std::max(1, s.tx_depth), static_cast<int>(b.qps[0].granted().max_send_wr));
  const uint64_t iters = std::max<uint64_t>(2, s.iters);
  int out_b = 0;
  for (uint64_t k = 1; k <= iters && !quit.load(); ++k) {
    const uint8_t mark = static_cast<uint8_t>(k);
    if (!WaitByte(Target(b) + size - 1, mark, std::numeric_limits<double>::infinity(), stop, quit)) return;
    Source(b)[size - 1] = mark;
    if (!PingWrite(b, to, size, inl, depth, deadline_s, &out_b, far)) return;
    // As ib_write_lat (run_iter_lat_write): its own completion before the next byte.
    Drain(b, &out_b, deadline_s, far);
  }
  Drain(b, &out_b, deadline_s, far);
}

// Clears the ping-pong's bytes of one side before a run.
void ClearPing(const Side& s, uint32_t size) {
  std::fill(Target(s), Target(s) + size, 0);
  std::fill(Source(s), Source(s) + size, 0);
}

// ib_write_lat's ping-pong (perftest's run_iter_lat_write): a writes to b and
// waits for that WRITE's completion, then for b's answer; b answers
// (Respond) on a thread of its own, or in peer mode at the far end; half of
// each round trip, timed at a from post to answer, is one sample. b: nullptr in peer mode; bt: where a's WRITEs land.
void RunLatency(const BenchEnds& ends, Side& a, Side* b, WriteTarget bt, const BenchSettings& s,
                const std::atomic<bool>& stop, const ThreadPin& pin, BenchResult* r) {
  const uint32_t size = std::max<uint32_t>(1, s.size);
  const bool inl = r->settings.inline_size && size <= *r->settings.inline_size;
  const uint64_t iters = std::max<uint64_t>(2, s.iters);
  const int depth = std::min(std::max(1, s.tx_depth), static_cast<int>(a.qps[0].granted().max_send_wr));
  ClearPing(a, size);
  if (b) ClearPing(*b, size);
  std::vector<double> samples;
  samples.reserve(iters);
  std::atomic<bool> quit{false};
  BenchResult far;  // the responder's failure, if any
  far.settings = r->settings;
  // A local answering end spins on CPUs of its own, off the pinned ones.
  const std::optional<cpu_set_t> others = b ? pin.Others() : std::nullopt;
  if (others) {
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &*others)) cpus.push_back(c);
    r->notes.push_back(absl::StrCat("the answering end (", r->peer_device, ") ran on CPU ", absl::StrJoin(cpus, ","),
                                    ", off the pinned CPUs: two spinning threads on one CPU time the scheduler"));
  }
  const double t0 = FastSeconds();
  {
    Joiner responder(b ? std::thread([&] {
      if (others) pthread_setaffinity_np(pthread_self(), sizeof(*others), &*others);
      Respond(*b, TargetOf(a), r->settings, ends.deadline_s, stop, quit, &far);
    })
                       : std::thread());
    int out_a = 0;
    for (uint64_t k = 1; k <= iters; ++k) {
      const uint8_t mark = static_cast<uint8_t>(k);
      Source(a)[size - 1] = mark;
      const double ts = FastSeconds();
      if (!PingWrite(a, bt, size, inl, depth, ends.deadline_s, &out_a, r)) break;
      // As ib_write_lat: this WRITE's completion, then the answer.
      Drain(a, &out_a, ends.deadline_s, r);
      if (!WaitByte(Target(a) + size - 1, mark, ts + ends.deadline_s, stop, quit)) {
        if (stop.load()) Fail(r, BenchEnd::kInterrupted, "interrupted (Ctrl-C or the check's deadline)");
        Fail(r, BenchEnd::kStalled,
             absl::StrCat("no answer to WRITE ", k, " (", r->device, " -> ", r->peer_device, " -> ", r->device,
                          ") within ", ends.deadline_s, " s"));
        break;
      }
      samples.push_back((FastSeconds() - ts) * 1e6 / 2);
    }
    Drain(a, &out_a, ends.deadline_s, r);
    quit.store(true);
    responder.Join();
  }
  if (r->end == BenchEnd::kOk && far.end != BenchEnd::kOk) {
    r->end = far.end;
    r->failure = far.failure;
    r->wc_status = far.wc_status;
    r->wc_status_text = far.wc_status_text;
    r->vendor_err = far.vendor_err;
  }
  r->seconds = FastSeconds() - t0;
  r->messages = samples.size();
  r->lat = LatencyStatsOf(std::move(samples));
}

}  // namespace

absl::StatusOr<BenchResult> BenchSession::Run(const BenchSettings& in) {
  State& st = *st_;
  if (st.broken) return absl::FailedPreconditionError(absl::StrCat("bench session unusable: ", st.broken_why));
  if (!Fits(in)) return absl::InvalidArgumentError("bench settings do not fit this session's QPs and buffers");
  BenchPeer* far = st.ends.far;
  BenchResult r;
  r.settings = in;
  r.settings.mtu = st.path_mtu;
  r.settings.cq_mod = EffectiveCqMod(in);
  r.settings.inline_size = std::min<uint32_t>(EffectiveInline(in), st.a.qps[0].granted().max_inline_data);
  r.device = st.a.base.dev;
  r.peer_device = far ? st.far.device : st.b.base.dev;
  r.loopback = st.loopback;
  r.gid = st.a.base.gid.gid;
  r.peer_gid = far ? st.far.gid : st.b.base.gid.gid;
  r.gid_index = st.a.base.gid.index;
  r.peer_gid_index = far ? st.far.gid_index : st.b.base.gid.index;
  r.active_mtu = st.active_mtu;
  r.registered_bytes = RegisteredBytes(st.shape);
  r.setup_seconds = st.setup_seconds;
  st.setup_seconds = 0;  // paid once, by the session's first run

  ThreadPin pin(in.pin_cpus, &r.notes);
  Side* b = far ? nullptr : &st.b;
  const WriteTarget bt = far ? WriteTarget{st.far.addr, st.far.rkey} : TargetOf(st.b);
  std::optional<Counters> ca = Snap(st.ends, st.a), cb = b ? Snap(st.ends, *b) : std::nullopt;
  if (far) {
    if (absl::Status s = far->Start(r.settings); !s.ok()) {
      st.broken = true;
      st.broken_why = absl::StrCat("the far end did not start its half: ", s.message());
      return absl::Status(s.code(), st.broken_why);
    }
  }
  const std::atomic<bool>& stop = StopFlag();
  FastClockCorrection clock;  // the loops time on FastSeconds; the figures on CLOCK_MONOTONIC
  if (in.mode == BenchMode::kLatency) {
    RunLatency(st.ends, st.a, b, bt, r.settings, stop, pin, &r);
  } else {
    RunBandwidth(st.ends, st.a, b, bt, r.settings, stop, &st.recv_posted, &r);
  }
  ScaleTimes(clock.Factor(), &r);
  std::optional<Counters> ca2 = Snap(st.ends, st.a), cb2 = b ? Snap(st.ends, *b) : std::nullopt;
  if (far) {
    absl::StatusOr<BenchFarRun> fr = far->Finish();
    if (!fr.ok()) {
      r.notes.push_back(absl::StrCat("the far end's half did not report: ", fr.status().message()));
      st.broken = true;
      st.broken_why = absl::StrCat("the far end did not report: ", fr.status().message());
    } else {
      if (r.end == BenchEnd::kOk && fr->end != BenchEnd::kOk) {
        r.end = fr->end;
        r.failure = absl::StrCat("far end: ", fr->failure);
        r.wc_status = fr->wc_status;
        r.wc_status_text = fr->wc_status_text;
        r.vendor_err = fr->vendor_err;
      }
      if (fr->counters_known) {
        cb = fr->counters_before;
        cb2 = fr->counters_after;
      }
      if (r.end != BenchEnd::kOk) r.notes.push_back(absl::StrCat("far end's QP after the run: ", fr->qp_state));
    }
  }
  if (ca && ca2 && cb && cb2) {
    r.counters_known = true;
    r.counters_before = *std::move(ca);
    r.counters_after = *std::move(ca2);
    r.peer_counters_before = *std::move(cb);
    r.peer_counters_after = *std::move(cb2);
  }
  r.qp_state = verbs::QueryQpState(st.a.qps[0]);
  if (r.end != BenchEnd::kOk) {
    st.broken = true;
    st.broken_why = absl::StrCat("an earlier run ended ", BenchEndName(r.end));
  }
  return r;
}

// --- the far end's half (peer mode) ---------------------------------------

struct BenchResponder::State {
  std::string sysfs_root;
  double deadline_s = 2;
  SessionShape shape;
  Side b;
  BenchFar far;
  WriteTarget near;  // the near end's region: the ping target
  std::vector<int> recv_posted;
  std::atomic<bool> quit{false};
  std::optional<std::thread> thread;
  BenchResult seen;  // the thread's failure, if any
  std::optional<Counters> before;
  bool running = false;
  bool broken = false;
};

BenchResponder::BenchResponder(std::unique_ptr<State> st) : st_(std::move(st)) {}

BenchResponder::~BenchResponder() {
  if (!st_) return;
  if (st_->running) (void)Finish();
  if (st_->broken)
    for (const verbs::QueuePair& qp : st_->b.qps) (void)verbs::ToErr(qp, st_->b.base.dev);
}

const BenchFar& BenchResponder::far() const { return st_->far; }

absl::StatusOr<std::unique_ptr<BenchResponder>> BenchResponder::Open(const BenchNear& n, const std::string& device,
                                                                     int port, const std::string& sysfs_root,
                                                                     double deadline_s) {
  // The near end's numbers are a remote host's: bounded before anything is
  // made of them.
  const SessionShape& sh = n.shape;
  if (sh.qps < 1 || sh.qps > 64 || sh.max_size < 1 || sh.max_size > (64u << 20) || sh.tx_depth < 1 ||
      sh.tx_depth > 16384 || sh.inline_size > 4096 || n.qpns.size() != static_cast<size_t>(sh.qps))
    return absl::InvalidArgumentError(absl::StrCat("bench setup out of bounds: qps ", sh.qps, " (1..64, ",
                                                   n.qpns.size(), " QPNs), max_size ", sh.max_size,
                                                   " (1..64 MiB), tx_depth ", sh.tx_depth, " (1..16384), inline ",
                                                   sh.inline_size, " (..4096)"));
  RDMACHECK_RETURN_IF_ERROR(CheckMemlock(RegisteredBytes(sh) / 2, SoftMemlockLimit()));
  auto st = std::make_unique<State>();
  st->sysfs_root = sysfs_root;
  st->deadline_s = std::clamp(deadline_s, 0.1, 60.0);
  st->shape = sh;
  st->near = {n.addr, n.rkey};
  RDMACHECK_RETURN_IF_ERROR(OpenProbeEnd(sysfs_root, device, port, n.peer_gid_index, &st->b.base));
  const int ours = 128 << st->b.base.port_attr.active_mtu;
  MtuChoice mtu = ChooseBenchMtu(sh.mtu, std::min(ours, n.active_mtu > 0 ? n.active_mtu : ours));
  if (!mtu.error.empty()) return absl::InvalidArgumentError(mtu.error);
  RDMACHECK_ASSIGN_OR_RETURN(ibv_device_attr_ex db, st->b.base.ctx->QueryDeviceEx());
  const int rd = std::min(std::max(1, n.rd_atomic), RdAtomic(db));
  RDMACHECK_RETURN_IF_ERROR(SetUpSide(&st->b, sh, false, db.orig_attr.max_qp_wr));
  RDMACHECK_ASSIGN_OR_RETURN(Dest to, DestOf(n.qpns, n.gid));
  RDMACHECK_RETURN_IF_ERROR(ConnectSides(&st->b, to, MtuEnum(mtu.bytes), rd));
  BenchFar& f = st->far;
  f.device = st->b.base.dev;
  f.port = st->b.base.port;
  f.gid = st->b.base.gid.gid;
  f.gid_index = st->b.base.gid.index;
  f.active_mtu = ours;
  f.path_mtu = mtu.bytes;
  f.rd_atomic = rd;
  for (const verbs::QueuePair& qp : st->b.qps) f.qpns.push_back(qp.qp_num());
  f.addr = reinterpret_cast<uintptr_t>(st->b.region->buf.data());
  f.rkey = st->b.region->mr.rkey();
  f.region_bytes = st->b.region->buf.size();
  return std::unique_ptr<BenchResponder>(new BenchResponder(std::move(st)));
}

absl::Status BenchResponder::Start(const BenchSettings& in) {
  State& st = *st_;
  if (st.broken) return absl::FailedPreconditionError("the far end's QPs are unusable after an earlier run");
  if (st.running) return absl::FailedPreconditionError("a run is already going on");
  const SessionShape want = ShapeFor(in);
  if (want.mode != st.shape.mode || want.op != st.shape.op || want.qps > st.shape.qps ||
      want.max_size > st.shape.max_size)
    return absl::InvalidArgumentError("the run does not fit the far end's QPs and buffers");
  st.seen = BenchResult{};
  st.seen.settings = in;
  st.seen.device = st.b.base.dev;
  st.quit.store(false);
  st.before = SnapCounters(st.sysfs_root, st.b.base);
  const int q = std::max(1, in.qps);
  if (in.mode == BenchMode::kLatency) {
    ClearPing(st.b, std::max<uint32_t>(1, in.size));
    st.thread.emplace([&st, in] { Respond(st.b, st.near, in, st.deadline_s, st.quit, st.quit, &st.seen); });
  } else if (in.op == BenchOp::kSend) {
    if (!FillRecvs(st.b, q, &st.recv_posted, &st.seen)) {
      st.broken = true;
      return absl::InternalError(st.seen.failure);
    }
    st.thread.emplace([&st, q] {
      while (!st.quit.load() && st.seen.end == BenchEnd::kOk) {
        for (int i = 0; i < q; ++i) RefillRecvs(st.b, i, &st.seen);
        std::this_thread::yield();
      }
    });
  }
  st.running = true;
  return absl::OkStatus();
}

BenchFarRun BenchResponder::Finish() {
  State& st = *st_;
  st.quit.store(true);
  if (st.thread && st.thread->joinable()) st.thread->join();
  st.thread.reset();
  st.running = false;
  // The last receives' completions, so the next run starts with full queues.
  if (st.seen.settings.op == BenchOp::kSend && st.seen.settings.mode == BenchMode::kBandwidth)
    for (int i = 0; i < std::max(1, st.seen.settings.qps) && st.seen.end == BenchEnd::kOk; ++i)
      RefillRecvs(st.b, i, &st.seen);
  BenchFarRun out;
  out.end = st.seen.end;
  out.failure = st.seen.failure;
  out.wc_status = st.seen.wc_status;
  out.wc_status_text = st.seen.wc_status_text;
  out.vendor_err = st.seen.vendor_err;
  out.qp_state = verbs::QueryQpState(st.b.qps[0]);
  std::optional<Counters> after = SnapCounters(st.sysfs_root, st.b.base);
  if (st.before && after) {
    out.counters_known = true;
    out.counters_before = *st.before;
    out.counters_after = *std::move(after);
  }
  if (out.end != BenchEnd::kOk || out.qp_state != "RTS") st.broken = true;
  return out;
}

absl::StatusOr<BenchResult> RunBench(const BenchEnds& ends, const BenchSettings& s) {
  RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<BenchSession> session, BenchSession::Open(ends, ShapeFor(s)));
  return session->Run(s);
}

}  // namespace rdmacheck
