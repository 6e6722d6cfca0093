#include "acts/live_device.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "acts/bench/bench_session.h"
#include "acts/probe/cq_overrun.h"
#include "acts/probe/probe.h"
#include "acts/probe/qp_memory.h"
#include "verbs/resources.h"

namespace rdmacheck {
namespace {

ibv_qp_type ToIbv(QpType t) {
  switch (t) {
    case QpType::kRc: return IBV_QPT_RC;
    case QpType::kUc: return IBV_QPT_UC;
    case QpType::kUd: return IBV_QPT_UD;
  }
  return IBV_QPT_RC;
}

ibv_qp_cap ToIbv(const QpCaps& c) {
  ibv_qp_cap cap{};
  cap.max_send_wr = c.max_send_wr;
  cap.max_recv_wr = c.max_recv_wr;
  cap.max_send_sge = c.max_send_sge;
  cap.max_recv_sge = c.max_recv_sge;
  cap.max_inline_data = c.max_inline_data;
  return cap;
}

QpCaps FromIbv(const ibv_qp_cap& cap) {
  QpCaps c;
  c.max_send_wr = cap.max_send_wr;
  c.max_recv_wr = cap.max_recv_wr;
  c.max_send_sge = cap.max_send_sge;
  c.max_recv_sge = cap.max_recv_sge;
  c.max_inline_data = cap.max_inline_data;
  return c;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LiveDevice>> LiveDevice::Open(
    const std::string& name, std::unique_ptr<Device> memory_model) {
  absl::StatusOr<verbs::Context> ctx = verbs::Context::Open(name);
  if (!ctx.ok()) return ctx.status();
  std::optional<int> max_cqe;
  absl::StatusOr<ibv_device_attr_ex> attr = ctx->QueryDeviceEx();
  if (attr.ok() && attr->orig_attr.max_cqe > 0) max_cqe = attr->orig_attr.max_cqe;
  return std::unique_ptr<LiveDevice>(
      new LiveDevice(std::move(*ctx), std::move(memory_model), max_cqe));
}

std::string LiveDevice::Describe() const { return absl::StrCat("live ", ctx_.name()); }

absl::StatusOr<QpCaps> LiveDevice::CreateQp(const QpRequest& req) {
  last_note_.clear();
  std::vector<std::string> notes;
  // Each object below is released when it goes out of scope, on every path,
  // QP first (the wrappers keep their parents alive; verbs/resources.h).
  absl::StatusOr<verbs::ProtectionDomain> pd = verbs::ProtectionDomain::Alloc(ctx_);
  if (!pd.ok()) return pd.status();

  uint64_t want_cqe = static_cast<uint64_t>(req.caps.max_send_wr) +
                      (req.with_srq ? 0 : req.caps.max_recv_wr);
  int cqe = static_cast<int>(std::min<uint64_t>(std::max<uint64_t>(want_cqe, 1), INT_MAX));
  if (max_cqe_ && cqe > *max_cqe_) {
    // A CQ smaller than the queues is legal (it overflows only under load);
    // what is asked here is whether the QP itself is granted.
    notes.push_back(absl::StrCat("CQ capped at max_cqe=", *max_cqe_, " (queues need ", want_cqe,
                                 ")"));
    cqe = *max_cqe_;
  }
  absl::StatusOr<verbs::CompletionQueue> cq = verbs::CompletionQueue::Create(ctx_, cqe);
  if (!cq.ok()) return cq.status();

  std::optional<verbs::SharedReceiveQueue> srq;
  if (req.with_srq) {
    // The request's receive caps are unused with an SRQ (QpRequest), so the
    // SRQ is the smallest one: its own limits are not what is asked about.
    absl::StatusOr<verbs::SharedReceiveQueue> s =
        verbs::SharedReceiveQueue::Create(*pd, /*max_wr=*/1, /*max_sge=*/1);
    if (!s.ok()) return s.status();
    srq.emplace(std::move(*s));
  }

  ibv_qp_cap want = ToIbv(req.caps);
  if (req.with_srq) {
    // With an SRQ the QP's own receive queue is unused; drivers ignore or
    // reject receive caps there, so they are not passed.
    want.max_recv_wr = 0;
    want.max_recv_sge = 0;
  }
  absl::StatusOr<verbs::QueuePair> qp = verbs::QueuePair::Create(
      *pd, *cq, *cq, ToIbv(req.type), want, srq ? &*srq : nullptr);
  if (!qp.ok()) return qp.status();

  QpCaps granted = FromIbv(qp->granted());
  absl::StatusOr<ibv_qp_cap> queried = qp->QueryCaps();
  if (!queried.ok()) {
    notes.push_back(absl::StrCat("could not cross-check: ", queried.status().message()));
  } else {
    QpCaps q = FromIbv(*queried);
    if (q != granted) {
      notes.push_back(absl::StrCat("ibv_create_qp granted {", FormatCaps(granted),
                                   "} but ibv_query_qp reports {", FormatCaps(q),
                                   "}; using the larger of each"));
      granted.max_send_wr = std::max(granted.max_send_wr, q.max_send_wr);
      granted.max_recv_wr = std::max(granted.max_recv_wr, q.max_recv_wr);
      granted.max_send_sge = std::max(granted.max_send_sge, q.max_send_sge);
      granted.max_recv_sge = std::max(granted.max_recv_sge, q.max_recv_sge);
      granted.max_inline_data = std::max(granted.max_inline_data, q.max_inline_data);
    }
  }
  last_note_ = absl::StrJoin(notes, "; ");
  return granted;
}

absl::StatusOr<uint32_t> LiveDevice::CreateCq(uint32_t cqe) {
  int n = static_cast<int>(std::min<uint32_t>(cqe, INT_MAX));
  absl::StatusOr<verbs::CompletionQueue> cq = verbs::CompletionQueue::Create(ctx_, n);
  if (!cq.ok()) return cq.status();
  return static_cast<uint32_t>(cq->cqe());
}

QueueMemory LiveDevice::QpMemory(const QpRequest& req, const QpCaps& granted) const {
  if (model_ == nullptr) {
    QueueMemory m;
    m.basis = "no model";
    return m;
  }
  return model_->QpMemory(req, granted);
}

uint64_t LiveDevice::CqMemory(uint32_t granted_cqe) const {
  if (model_ == nullptr) return 0;
  return model_->CqMemory(granted_cqe);
}

absl::StatusOr<ProbeResult> LiveDevice::RunTrafficProbe(const ProbeRequest& req) {
  ProbeRequest r = req;
  r.device = ctx_.name();
  return rdmacheck::RunTrafficProbe(r);
}

absl::StatusOr<BenchResult> LiveDevice::RunBench(const BenchEnds& ends, const BenchSettings& s) {
  BenchEnds e = ends;
  e.device = ctx_.name();
  return rdmacheck::RunBench(e, s);
}

absl::StatusOr<CqOverrunResult> LiveDevice::RunCqOverrunProbe(const CqOverrunRequest& req) {
  CqOverrunRequest r = req;
  r.device = ctx_.name();
  return rdmacheck::RunCqOverrunProbe(r);
}

absl::StatusOr<QpMemoryMeasurement> LiveDevice::MeasureQpMemory(const QpMemoryRequest& req) {
  QpMemoryRequest r = req;
  r.device = ctx_.name();
  return rdmacheck::MeasureQpMemory(r);
}

}  // namespace rdmacheck
