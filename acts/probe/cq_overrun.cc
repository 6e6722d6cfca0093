#include "acts/probe/cq_overrun.h"

#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "acts/probe/completion_wait.h"
#include "acts/probe/gid_choice.h"
#include "facts/gid_table.h"
#include "acts/probe/probe.h"
#include "acts/probe/probe_util.h"
#include "util/status_macros.h"
#include "verbs/context.h"
#include "verbs/errors.h"
#include "verbs/qp_state.h"
#include "verbs/rc_connect.h"
#include "verbs/resources.h"
#include "util/clock.h"

namespace rdmacheck {
namespace {

bool Interrupted() { return ProbeInterruptFlag().load(); }

// The enum name beside libibverbs' text.
std::string EventName(ibv_event_type t) {
  return absl::StrCat("IBV_EVENT_", verbs::AsyncEventName(t), " (", ibv_event_type_str(t), ")");
}

// Reads the async events pending within `wait_s`; returns how many were
// CQ_ERR. `t0` is the first post.
int ReadEvents(ibv_context* ctx, const std::string& dev, double wait_s, double t0,
               std::vector<TimedEvent>* out) {
  int cq_err = 0;
  const double end = MonotonicSeconds() + wait_s;
  for (int i = 0; i < 256; ++i) {
    int ms = std::max(0, static_cast<int>((end - MonotonicSeconds()) * 1000));
    pollfd p{ctx->async_fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) break;
    ibv_async_event ev;
    if (ibv_get_async_event(ctx, &ev) != 0) break;
    TimedEvent te;
    te.seconds = MonotonicSeconds() - t0;
    te.what = absl::StrCat(EventName(ev.event_type), " on ", dev);
    switch (ev.event_type) {
      case IBV_EVENT_QP_FATAL:
      case IBV_EVENT_QP_REQ_ERR:
      case IBV_EVENT_QP_ACCESS_ERR:
      case IBV_EVENT_QP_LAST_WQE_REACHED:
        absl::StrAppend(&te.what, " (qp ", ev.element.qp->qp_num, ")");
        break;
      case IBV_EVENT_CQ_ERR:
        ++cq_err;
        break;
      default:
        break;
    }
    out->push_back(std::move(te));
    ibv_ack_async_event(&ev);
  }
  return cq_err;
}

// The two QPs share the device, port and GID; retry_cnt never 7 (rxe
// retries forever).
absl::Status Connect(const verbs::QueuePair& qp, uint32_t dest_qpn, const ibv_gid& dgid, int sgid_index,
                     int port, ibv_mtu mtu, const std::string& dev) {
  verbs::RcPath p;
  p.dev = dev;
  p.port = port;
  p.path_mtu = mtu;
  p.dest_qpn = dest_qpn;
  p.dgid = dgid;
  p.sgid_index = sgid_index;
  p.timeout = 14;
  p.retry_cnt = 6;
  p.rnr_retry = 3;
  p.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  p.naming = verbs::RcCallNaming::kQpNumber;
  return verbs::ConnectRc(qp, p);
}

}  // namespace

absl::Status ValidateCqOverrunRequest(const CqOverrunRequest& req) {
  if (req.device.empty()) return absl::InvalidArgumentError("cq overrun probe: no device");
  if (req.cqe == 0 || req.cqe > 4096) {
    return absl::InvalidArgumentError(absl::StrCat("cq overrun probe: cqe=", req.cqe, " must be 1..4096"));
  }
  if (req.burst > 4096) {
    return absl::InvalidArgumentError(absl::StrCat("cq overrun probe: burst=", req.burst, " must be 0..4096"));
  }
  if (!(req.deadline_s > 0 && req.deadline_s <= 60)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cq overrun probe: deadline_s=", req.deadline_s, " must be in (0, 60]"));
  }
  return absl::OkStatus();
}

uint32_t CqOverrunBurst(const CqOverrunRequest& req, uint32_t granted_cqe) {
  return req.burst != 0 ? req.burst : 2 * granted_cqe + 2;
}

absl::StatusOr<CqOverrunResult> RunCqOverrunProbe(const CqOverrunRequest& req) {
  RDMACHECK_RETURN_IF_ERROR(ValidateCqOverrunRequest(req));
  // First, so that it is destroyed last: everything below is released before
  // a SIGINT is passed on.
  SigintGuard sigint;
  const double t_start = MonotonicSeconds();
  CqOverrunResult r;
  r.device = req.device;
  r.requested_cqe = req.cqe;
  // The buffer outlives its registration (declared before the MR).
  std::vector<uint8_t> buf(8192, 0);

  // A context of its own: the probe reads and acks its async events.
  RDMACHECK_ASSIGN_OR_RETURN(verbs::Context ctx, verbs::Context::OpenUncached(req.device));
  RDMACHECK_ASSIGN_OR_RETURN(PortGid pg, ResolvePortGid(ctx, req.sysfs_root, req.device, req.port, req.gid_index));
  const ibv_port_attr& pa = pg.attr;
  const GidEntry& gid = pg.gid;
  const ibv_gid& raw = pg.raw;
  r.gid_index = gid.index;
  r.gid = gid.gid;

  RDMACHECK_ASSIGN_OR_RETURN(verbs::ProtectionDomain pd, verbs::ProtectionDomain::Alloc(ctx));
  RDMACHECK_ASSIGN_OR_RETURN(verbs::CompletionQueue small, verbs::CompletionQueue::Create(ctx, req.cqe));
  r.granted_cqe = static_cast<uint32_t>(small.cqe());
  RDMACHECK_ASSIGN_OR_RETURN(verbs::CompletionQueue roomy, verbs::CompletionQueue::Create(ctx, 16));
  RDMACHECK_ASSIGN_OR_RETURN(
      verbs::MemoryRegion mr,
      verbs::MemoryRegion::Register(pd, buf.data(), buf.size(), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  const uint32_t burst = CqOverrunBurst(req, r.granted_cqe);
  ibv_qp_cap cap_a{};
  cap_a.max_send_wr = burst + 1;  // the burst and the WR posted after it
  cap_a.max_recv_wr = 1;
  cap_a.max_send_sge = 1;
  cap_a.max_recv_sge = 1;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::QueuePair qa, verbs::QueuePair::Create(pd, small, roomy, IBV_QPT_RC, cap_a));
  r.granted_send_wr = qa.granted().max_send_wr;
  ibv_qp_cap cap_b{};
  cap_b.max_send_wr = 1;
  cap_b.max_recv_wr = 1;
  cap_b.max_send_sge = 1;
  cap_b.max_recv_sge = 1;
  RDMACHECK_ASSIGN_OR_RETURN(verbs::QueuePair qb, verbs::QueuePair::Create(pd, roomy, roomy, IBV_QPT_RC, cap_b));
  const ibv_mtu mtu = std::min(pa.active_mtu, IBV_MTU_1024);
  RDMACHECK_RETURN_IF_ERROR(Connect(qa, qb.qp_num(), raw, gid.index, req.port, mtu, req.device));
  RDMACHECK_RETURN_IF_ERROR(Connect(qb, qa.qp_num(), raw, gid.index, req.port, mtu, req.device));

  ibv_context* c = ctx.get();
  int flags = fcntl(c->async_fd, F_GETFL);
  if (flags < 0 || fcntl(c->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return verbs::VerbsError(absl::StrCat("fcntl(async_fd of ", req.device, ", O_NONBLOCK)"), errno);
  }
  r.setup_seconds = MonotonicSeconds() - t_start;

  // 64 bytes from the start of the buffer to its second half, each WR
  // signaled, none polled until the burst has played out.
  auto post_one = [&](uint64_t id) -> int {
    ibv_sge sge{reinterpret_cast<uintptr_t>(buf.data()), 64, mr.lkey()};
    ibv_send_wr wr{};
    wr.wr_id = id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(buf.data() + 4096);
    wr.wr.rdma.rkey = mr.rkey();
    ibv_send_wr* bad = nullptr;
    return ibv_post_send(qa.get(), &wr, &bad);
  };
  const double t0 = MonotonicSeconds();
  for (uint32_t i = 0; i < burst && !Interrupted(); ++i) {
    if (int rc = post_one(i); rc != 0) {
      r.post_error = absl::StrCat("ibv_post_send(dev=", req.device, " WR ", i, " of ", burst,
                                  " RDMA_WRITE signaled): ", verbs::ErrnoText(rc));
      break;
    }
    ++r.posted;
  }
  r.post_seconds = MonotonicSeconds() - t0;

  // Wait for the first CQ_ERR (or the deadline), then until events stop for
  // 100 ms: the rest of the burst completes (or is lost) meanwhile.
  const double deadline = t0 + req.deadline_s;
  while (!Interrupted() && MonotonicSeconds() < deadline) {
    const double slice = std::min(0.05, deadline - MonotonicSeconds());
    const size_t before = r.events.size();
    ReadEvents(c, req.device, slice, t0, &r.events);
    for (size_t i = before; i < r.events.size() && !r.cq_err_seconds; ++i) {
      if (r.events[i].what.rfind("IBV_EVENT_CQ_ERR", 0) == 0) r.cq_err_seconds = r.events[i].seconds;
    }
    if (r.cq_err_seconds) break;
  }
  if (r.cq_err_seconds) {
    const double settle_end = std::min(deadline + req.deadline_s, MonotonicSeconds() + req.deadline_s);
    double quiet_since = MonotonicSeconds();
    while (!Interrupted() && MonotonicSeconds() < settle_end && MonotonicSeconds() - quiet_since < 0.1) {
      const size_t before = r.events.size();
      ReadEvents(c, req.device, 0.02, t0, &r.events);
      if (r.events.size() != before) quiet_since = MonotonicSeconds();
    }
  }
  r.qp_state_after = verbs::QueryQpState(qa);

  // Drain: poll until the CQ stays empty for 50 ms (bounded by the deadline).
  const double drain_end = MonotonicSeconds() + req.deadline_s;
  double empty_since = MonotonicSeconds();
  while (!Interrupted() && MonotonicSeconds() < drain_end && MonotonicSeconds() - empty_since < 0.05) {
    ibv_wc wc[16];
    int n = ibv_poll_cq(small.get(), 16, wc);
    if (n < 0) {
      r.statuses[absl::StrCat("ibv_poll_cq returned ", n)]++;
      break;
    }
    if (n == 0) {
      poll(nullptr, 0, 1);
      continue;
    }
    empty_since = MonotonicSeconds();
    for (int i = 0; i < n; ++i) {
      r.statuses[ibv_wc_status_str(wc[i].status)]++;
      ++r.polled;
      if (wc[i].status == IBV_WC_SUCCESS) ++r.polled_success;
      if (wc[i].status == IBV_WC_WR_FLUSH_ERR) ++r.polled_flushed;
    }
  }

  // One more WR: does the QP (and the CQ) still work after the overrun?
  if (Interrupted()) {
    r.interrupted = true;
    r.next_wr = "not posted (interrupted)";
  } else if (int rc = post_one(burst); rc != 0) {
    r.next_wr = absl::StrCat("post refused: ", verbs::ErrnoText(rc));
  } else {
    CompletionPoller p = PollerFor(small);
    // Late completions of the burst may come first: they count as polled.
    auto count = [&r](const ibv_wc& wc) {
      r.statuses[ibv_wc_status_str(wc.status)]++;
      ++r.polled;
      if (wc.status == IBV_WC_SUCCESS) ++r.polled_success;
      if (wc.status == IBV_WC_WR_FLUSH_ERR) ++r.polled_flushed;
    };
    const double next_end = MonotonicSeconds() + req.deadline_s;
    while (r.next_wr.empty()) {
      WaitOutcome w = WaitForCompletions(p, 1, std::max(0.0, next_end - MonotonicSeconds()), &ProbeInterruptFlag());
      for (const ibv_wc& wc : w.wcs) {
        if (wc.wr_id == burst) {
          r.next_wr = absl::StrCat("completed: ", ibv_wc_status_str(wc.status));
        } else {
          count(wc);
        }
      }
      if (!r.next_wr.empty()) break;
      if (w.end == WaitEnd::kStopped) {
        r.interrupted = true;
        r.next_wr = "interrupted";
      } else if (w.end == WaitEnd::kPollError) {
        r.next_wr = absl::StrCat("ibv_poll_cq returned ", w.poll_rc);
      } else if (w.end == WaitEnd::kDeadline || MonotonicSeconds() >= next_end) {
        r.next_wr = absl::StrFormat("no completion in %g s", req.deadline_s);
      }
    }
  }
  ReadEvents(c, req.device, 0.02, t0, &r.events);
  r.qp_state_final = verbs::QueryQpState(qa);
  r.interrupted = r.interrupted || Interrupted();
  r.seconds = MonotonicSeconds() - t_start;
  return r;
}

}  // namespace rdmacheck
