// The objects made from a verbs::Context: ProtectionDomain,
// CompletionChannel, CompletionQueue, SharedReceiveQueue, QueuePair,
// MemoryRegion. Move-only RAII; factories return absl::StatusOr whose error
// names the call and its arguments (verbs/errors.h).
//
//   ASSIGN_OR_RETURN(Context ctx, Context::Open("rxe0"));
//   ASSIGN_OR_RETURN(ProtectionDomain pd, ProtectionDomain::Alloc(ctx));
//   ASSIGN_OR_RETURN(CompletionQueue cq, CompletionQueue::Create(ctx, 256));
//   ibv_qp_cap want{.max_send_wr = 128, .max_recv_wr = 128, .max_send_sge = 1,
//                   .max_recv_sge = 1, .max_inline_data = 0};
//   ASSIGN_OR_RETURN(QueuePair qp, QueuePair::Create(pd, cq, cq, IBV_QPT_RC, want));
//   qp.granted();  // what ibv_create_qp wrote back (rxe: 128 -> 255)
//
// Ownership: every object shares ownership of what it was made from (a QP
// holds its PD, CQs, SRQ and so the context; a CQ its channel and context).
// Destroying the wrappers in any order is therefore safe: the verbs objects
// go away in the order QP -> SRQ/CQ -> MR -> PD -> channel -> context.
// Teardown failures are printed to stderr, never abort.
#ifndef RDMACHECK_VERBS_RESOURCES_H_
#define RDMACHECK_VERBS_RESOURCES_H_

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "verbs/context.h"

namespace rdmacheck::verbs {

#define RDMACHECK_VERBS_MOVE_ONLY(T)    \
  T(T&&) = default;                     \
  T& operator=(T&&) = default;          \
  T(const T&) = delete;                 \
  T& operator=(const T&) = delete

class ProtectionDomain {
 public:
  static absl::StatusOr<ProtectionDomain> Alloc(const Context& ctx);
  RDMACHECK_VERBS_MOVE_ONLY(ProtectionDomain);

  ibv_pd* get() const { return pd_.get(); }
  const std::string& device() const { return dev_; }
  const std::shared_ptr<ibv_pd>& shared() const { return pd_; }

 private:
  ProtectionDomain(std::string dev, std::shared_ptr<ibv_pd> pd)
      : dev_(std::move(dev)), pd_(std::move(pd)) {}
  std::string dev_;
  std::shared_ptr<ibv_pd> pd_;
};

class CompletionChannel {
 public:
  static absl::StatusOr<CompletionChannel> Create(const Context& ctx);
  RDMACHECK_VERBS_MOVE_ONLY(CompletionChannel);

  ibv_comp_channel* get() const { return ch_.get(); }
  const std::shared_ptr<ibv_comp_channel>& shared() const { return ch_; }

 private:
  explicit CompletionChannel(std::shared_ptr<ibv_comp_channel> ch) : ch_(std::move(ch)) {}
  std::shared_ptr<ibv_comp_channel> ch_;
};

class CompletionQueue {
 public:
  // channel may be null (polling only).
  static absl::StatusOr<CompletionQueue> Create(const Context& ctx, int cqe,
                                                const CompletionChannel* channel = nullptr,
                                                int comp_vector = 0);
  RDMACHECK_VERBS_MOVE_ONLY(CompletionQueue);

  ibv_cq* get() const { return cq_.get(); }
  // The depth the driver granted (ibv_cq.cqe), >= the request.
  int cqe() const { return cq_ ? cq_->cqe : 0; }
  const std::shared_ptr<ibv_cq>& shared() const { return cq_; }

 private:
  explicit CompletionQueue(std::shared_ptr<ibv_cq> cq) : cq_(std::move(cq)) {}
  std::shared_ptr<ibv_cq> cq_;
};

class SharedReceiveQueue {
 public:
  static absl::StatusOr<SharedReceiveQueue> Create(const ProtectionDomain& pd,
                                                   uint32_t max_wr, uint32_t max_sge);
  RDMACHECK_VERBS_MOVE_ONLY(SharedReceiveQueue);

  ibv_srq* get() const { return srq_.get(); }
  // What ibv_create_srq wrote back into srq_init_attr.attr.
  const ibv_srq_attr& granted() const { return granted_; }
  const std::shared_ptr<ibv_srq>& shared() const { return srq_; }

 private:
  SharedReceiveQueue(std::shared_ptr<ibv_srq> srq, ibv_srq_attr granted)
      : srq_(std::move(srq)), granted_(granted) {}
  std::shared_ptr<ibv_srq> srq_;
  ibv_srq_attr granted_{};
};

class QueuePair {
 public:
  // ibv_create_qp with the given type and caps; srq may be null. The
  // requested caps are not changed; granted() holds what the driver wrote
  // back into ibv_qp_init_attr.cap.
  static absl::StatusOr<QueuePair> Create(const ProtectionDomain& pd,
                                          const CompletionQueue& send_cq,
                                          const CompletionQueue& recv_cq,
                                          ibv_qp_type type, const ibv_qp_cap& caps,
                                          const SharedReceiveQueue* srq = nullptr,
                                          bool sq_sig_all = false);
  RDMACHECK_VERBS_MOVE_ONLY(QueuePair);

  ibv_qp* get() const { return qp_.get(); }
  uint32_t qp_num() const { return qp_ ? qp_->qp_num : 0; }
  const ibv_qp_cap& granted() const { return granted_; }
  // The caps as ibv_query_qp(IBV_QP_CAP) reports them now.
  absl::StatusOr<ibv_qp_cap> QueryCaps() const;

 private:
  QueuePair(std::string dev, std::shared_ptr<ibv_qp> qp, ibv_qp_cap granted)
      : dev_(std::move(dev)), qp_(std::move(qp)), granted_(granted) {}
  std::string dev_;
  std::shared_ptr<ibv_qp> qp_;
  ibv_qp_cap granted_{};
};

class MemoryRegion {
 public:
  // ibv_reg_mr over caller-owned memory [addr, addr + length), which must
  // outlive the region.
  static absl::StatusOr<MemoryRegion> Register(const ProtectionDomain& pd, void* addr,
                                               size_t length, int access);
  RDMACHECK_VERBS_MOVE_ONLY(MemoryRegion);

  ibv_mr* get() const { return mr_.get(); }
  uint32_t lkey() const { return mr_ ? mr_->lkey : 0; }
  uint32_t rkey() const { return mr_ ? mr_->rkey : 0; }

 private:
  explicit MemoryRegion(std::shared_ptr<ibv_mr> mr) : mr_(std::move(mr)) {}
  std::shared_ptr<ibv_mr> mr_;
};

#undef RDMACHECK_VERBS_MOVE_ONLY

}  // namespace rdmacheck::verbs

#endif  // RDMACHECK_VERBS_RESOURCES_H_
