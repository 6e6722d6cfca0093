#include "verbs/resources.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "verbs/errors.h"

namespace rdmacheck::verbs {
namespace {

absl::Status MovedFrom(absl::string_view what) {
  return absl::FailedPreconditionError(absl::StrCat(what, ": used after move"));
}

}  // namespace

absl::StatusOr<ProtectionDomain> ProtectionDomain::Alloc(const Context& ctx) {
  if (ctx.get() == nullptr) return MovedFrom("Context");
  std::string call = absl::StrCat("ibv_alloc_pd(dev=", ctx.name(), ")");
  errno = 0;
  ibv_pd* raw = ibv_alloc_pd(ctx.get());
  if (raw == nullptr) return VerbsError(call, errno);
  std::shared_ptr<ibv_context> keep = ctx.shared();
  std::shared_ptr<ibv_pd> pd(raw, [keep, dev = ctx.name()](ibv_pd* p) {
    int rc = ibv_dealloc_pd(p);
    if (rc != 0) ReportTeardownFailure(absl::StrCat("ibv_dealloc_pd(dev=", dev, ")"), rc);
  });
  return ProtectionDomain(ctx.name(), std::move(pd));
}

absl::StatusOr<CompletionChannel> CompletionChannel::Create(const Context& ctx) {
  if (ctx.get() == nullptr) return MovedFrom("Context");
  errno = 0;
  ibv_comp_channel* raw = ibv_create_comp_channel(ctx.get());
  if (raw == nullptr) {
    return VerbsError(absl::StrCat("ibv_create_comp_channel(dev=", ctx.name(), ")"), errno);
  }
  std::shared_ptr<ibv_context> keep = ctx.shared();
  std::shared_ptr<ibv_comp_channel> ch(raw, [keep, dev = ctx.name()](ibv_comp_channel* c) {
    int rc = ibv_destroy_comp_channel(c);
    if (rc != 0) {
      ReportTeardownFailure(absl::StrCat("ibv_destroy_comp_channel(dev=", dev, ")"), rc);
    }
  });
  return CompletionChannel(std::move(ch));
}

absl::StatusOr<CompletionQueue> CompletionQueue::Create(const Context& ctx, int cqe,
                                                        const CompletionChannel* channel,
                                                        int comp_vector) {
  if (ctx.get() == nullptr) return MovedFrom("Context");
  std::string call = CreateCqCall(ctx.name(), cqe, channel != nullptr, comp_vector);
  errno = 0;
  ibv_cq* raw = ibv_create_cq(ctx.get(), cqe, nullptr,
                              channel != nullptr ? channel->get() : nullptr, comp_vector);
  if (raw == nullptr) return VerbsError(call, errno);
  std::shared_ptr<ibv_context> keep_ctx = ctx.shared();
  std::shared_ptr<ibv_comp_channel> keep_ch =
      channel != nullptr ? channel->shared() : nullptr;
  std::shared_ptr<ibv_cq> cq(raw, [keep_ctx, keep_ch, dev = ctx.name()](ibv_cq* c) {
    int cqe_now = c->cqe;
    int rc = ibv_destroy_cq(c);
    if (rc != 0) {
      ReportTeardownFailure(absl::StrCat("ibv_destroy_cq(dev=", dev, " cqe=", cqe_now, ")"), rc);
    }
  });
  return CompletionQueue(std::move(cq));
}

absl::StatusOr<SharedReceiveQueue> SharedReceiveQueue::Create(const ProtectionDomain& pd,
                                                              uint32_t max_wr,
                                                              uint32_t max_sge) {
  if (pd.get() == nullptr) return MovedFrom("ProtectionDomain");
  ibv_srq_init_attr init;
  std::memset(&init, 0, sizeof(init));
  init.attr.max_wr = max_wr;
  init.attr.max_sge = max_sge;
  std::string call = absl::StrFormat("ibv_create_srq(dev=%s max_wr=%u max_sge=%u)",
                                     pd.device(), max_wr, max_sge);
  errno = 0;
  ibv_srq* raw = ibv_create_srq(pd.get(), &init);
  if (raw == nullptr) return VerbsError(call, errno);
  std::shared_ptr<ibv_pd> keep = pd.shared();
  std::shared_ptr<ibv_srq> srq(raw, [keep, dev = pd.device()](ibv_srq* s) {
    int rc = ibv_destroy_srq(s);
    if (rc != 0) ReportTeardownFailure(absl::StrCat("ibv_destroy_srq(dev=", dev, ")"), rc);
  });
  return SharedReceiveQueue(std::move(srq), init.attr);
}

absl::StatusOr<QueuePair> QueuePair::Create(const ProtectionDomain& pd,
                                            const CompletionQueue& send_cq,
                                            const CompletionQueue& recv_cq,
                                            ibv_qp_type type, const ibv_qp_cap& caps,
                                            const SharedReceiveQueue* srq, bool sq_sig_all) {
  if (pd.get() == nullptr) return MovedFrom("ProtectionDomain");
  if (send_cq.get() == nullptr || recv_cq.get() == nullptr) return MovedFrom("CompletionQueue");
  ibv_qp_init_attr init;
  std::memset(&init, 0, sizeof(init));
  init.send_cq = send_cq.get();
  init.recv_cq = recv_cq.get();
  init.srq = srq != nullptr ? srq->get() : nullptr;
  init.qp_type = type;
  init.cap = caps;
  init.sq_sig_all = sq_sig_all ? 1 : 0;
  std::string call = CreateQpCall(pd.device(), type, caps, srq != nullptr);
  errno = 0;
  ibv_qp* raw = ibv_create_qp(pd.get(), &init);
  if (raw == nullptr) return VerbsError(call, errno);
  std::shared_ptr<ibv_pd> keep_pd = pd.shared();
  std::shared_ptr<ibv_cq> keep_scq = send_cq.shared();
  std::shared_ptr<ibv_cq> keep_rcq = recv_cq.shared();
  std::shared_ptr<ibv_srq> keep_srq = srq != nullptr ? srq->shared() : nullptr;
  std::shared_ptr<ibv_qp> qp(
      raw, [keep_pd, keep_scq, keep_rcq, keep_srq, dev = pd.device()](ibv_qp* q) {
        uint32_t num = q->qp_num;
        int rc = ibv_destroy_qp(q);
        if (rc != 0) {
          ReportTeardownFailure(absl::StrCat("ibv_destroy_qp(dev=", dev, " qp_num=", num, ")"),
                                rc);
        }
      });
  return QueuePair(pd.device(), std::move(qp), init.cap);
}

absl::StatusOr<ibv_qp_cap> QueuePair::QueryCaps() const {
  if (!qp_) return MovedFrom("QueuePair");
  ibv_qp_attr attr;
  ibv_qp_init_attr init;
  std::memset(&attr, 0, sizeof(attr));
  std::memset(&init, 0, sizeof(init));
  int rc = ibv_query_qp(qp_.get(), &attr, IBV_QP_CAP, &init);
  if (rc != 0) {
    return VerbsError(
        absl::StrCat("ibv_query_qp(dev=", dev_, " qp_num=", qp_->qp_num, " mask=IBV_QP_CAP)"), rc);
  }
  // Providers fill attr.cap; init.cap mirrors it in rdma-core. Prefer attr.
  return attr.cap;
}

absl::StatusOr<MemoryRegion> MemoryRegion::Register(const ProtectionDomain& pd, void* addr,
                                                    size_t length, int access) {
  if (pd.get() == nullptr) return MovedFrom("ProtectionDomain");
  std::string call = RegMrCall(pd.device(), addr, length, access);
  errno = 0;
  ibv_mr* raw = ibv_reg_mr(pd.get(), addr, length, access);
  if (raw == nullptr) return VerbsError(call, errno);
  std::shared_ptr<ibv_pd> keep = pd.shared();
  std::shared_ptr<ibv_mr> mr(raw, [keep, dev = pd.device()](ibv_mr* m) {
    size_t len = m->length;
    int rc = ibv_dereg_mr(m);
    if (rc != 0) {
      ReportTeardownFailure(absl::StrCat("ibv_dereg_mr(dev=", dev, " length=", len, ")"), rc);
    }
  });
  return MemoryRegion(std::move(mr));
}

}  // namespace rdmacheck::verbs
