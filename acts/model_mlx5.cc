// The mlx5 model: rdma-core v44 (Debian 12) providers/mlx5/verbs.c, which
// sizes user QPs and CQs before the kernel sees them.
//
// Facts used (function: rule), paraphrased, not copied:
//  - _sq_overhead / sq_overhead: without IBV_QP_INIT_ATTR_SEND_OPS_FLAGS an
//    RC/UC QP is sized for every opcode, the largest being a memory-window
//    bind: ctrl 16 + umr_ctrl 48 + mkey_context 64 + max(klm 16, 64) = 192 B;
//    UD: ctrl 16 + datagram 48 = 64 B. (Sizes of struct mlx5_wqe_*_seg from
//    infiniband/mlx5dv.h.)
//  - mlx5_calc_send_wqe: inline size = overhead + align(4 + max_inline_data,
//    16) when inline is asked; EINVAL when max_send_sge > (max_sq_desc_sz -
//    overhead) / 16 or the larger of the two sizes > max_sq_desc_sz; the WQE
//    is that size aligned to 64 (MLX5_SEND_WQE_BB).
//  - mlx5_calc_sq_size: max_send_wr 0 means no SQ (caps left as asked);
//    max_inline_data = wqe - overhead - 4; EINVAL when max_send_wr >
//    0x7fffffff / max_sq_desc_sz or when roundup_pow_of_two(wr * wqe) / 64
//    basic blocks > max_send_wqebb; reported max_send_wr = SQ bytes / wqe.
//  - mlx5_calc_rcv_wqe / mlx5_calc_rq_size: no RQ for max_recv_wr 0 or with
//    an SRQ; EINVAL when max_recv_wr > max_recv_wr of the context or 16 x
//    max(sge, 1) > max_rq_desc_sz; wqe = roundup_pow_of_two(16 x sge); RQ
//    bytes = max(64, roundup_pow_of_two(wr) x wqe); reported max_recv_wr =
//    RQ bytes / wqe and max_recv_sge = wqe / 16 (create_qp writes them back).
//  - create_cq: cqe 0 is EINVAL; ncqe = roundup_pow_of_two(cqe + 1), EINVAL
//    above 1 << 24; the kernel refuses ncqe > 1 << log_max_cq_sz, i.e.
//    cqe > max_cqe; ibv_cq.cqe = ncqe - 1; 64-byte CQEs (MLX5_CQE_SIZE unset).
//  - mlx5_alloc_qp_buf: host arrays of 8 + 4 + 4 B per SQ basic block and 8 B
//    per RQ entry; queue buffer page aligned.
// Context values the kernel hands the provider (mlx5_ib alloc_ucontext):
// max_send_wqebb = max_recv_wr = 1 << log_max_qp_sz = max_qp_wr;
// max_sq_desc_sz / max_rq_desc_sz from firmware caps (profile attrs of those
// names, else 1024 / 512, an assumption).
#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "acts/driver_model.h"
#include "acts/driver_model_internal.h"

namespace rdmacheck {
namespace {

using model_internal::AlignUp;
using model_internal::DescribeLimit;
using model_internal::DevName;
using model_internal::Einval;
using model_internal::kPageSize;
using model_internal::Limit;
using model_internal::LimitOr;
using model_internal::ProfileLimit;
using model_internal::RoundUpPow2;

constexpr uint64_t kBasicBlock = 64;  // MLX5_SEND_WQE_BB
constexpr uint64_t kDataSeg = 16;     // struct mlx5_wqe_data_seg
constexpr uint64_t kInlineSeg = 4;    // struct mlx5_wqe_inl_data_seg
constexpr uint64_t kCqeSize = 64;

uint64_t SqOverhead(QpType t) { return t == QpType::kUd ? 64 : 192; }

struct Mlx5Sizing {
  uint64_t sq_wqe = 0, sq_bytes = 0, sq_blocks = 0;
  uint64_t rq_wqe = 0, rq_bytes = 0, rq_count = 0;
  QpCaps granted;
};

class Mlx5Model : public Device {
 public:
  explicit Mlx5Model(const DeviceInfo& dev)
      : name_(DevName(dev)),
        max_qp_wr_(ProfileLimit(dev, "max_qp_wr")),
        max_cqe_(ProfileLimit(dev, "max_cqe")),
        sq_desc_(LimitOr(dev, "max_sq_desc_sz", 1024,
                         "assumed: ConnectX-4 and later, not in profile")),
        rq_desc_(LimitOr(dev, "max_rq_desc_sz", 512,
                         "assumed: ConnectX-4 and later, not in profile")) {}

  std::string Describe() const override {
    return absl::StrCat(
        "mlx5 model for ", name_,
        " (rdma-core providers/mlx5/verbs.c v44; limits: ",
        DescribeLimit("max_qp_wr", max_qp_wr_), " (also max_send_wqebb and "
        "max_recv_wr), ", DescribeLimit("max_cqe", max_cqe_), ", ",
        DescribeLimit("max_sq_desc_sz", sq_desc_), ", ",
        DescribeLimit("max_rq_desc_sz", rq_desc_),
        "; kernel-side checks and the device max_sge are not modeled)");
  }

  absl::StatusOr<Mlx5Sizing> Size(const QpRequest& req) const {
    const QpCaps& c = req.caps;
    const std::string call = model_internal::CreateQpCall(name_, req);
    const uint64_t desc = *sq_desc_.value;
    Mlx5Sizing s;
    s.granted = c;
    if (c.max_send_wr > 0) {
      const uint64_t overhead = SqOverhead(req.type);
      uint64_t inl = 0;
      if (c.max_inline_data > 0) {
        inl = overhead + AlignUp(kInlineSeg + c.max_inline_data, 16);
      }
      const uint64_t max_gather = desc > overhead ? (desc - overhead) / kDataSeg : 0;
      if (c.max_send_sge > max_gather) {
        return Einval(call + " [mlx5_calc_send_wqe]",
                      absl::StrFormat("max_send_sge %u > %u gather entries "
                                      "that fit max_sq_desc_sz %u after the "
                                      "%u-byte %s overhead",
                                      c.max_send_sge, max_gather, desc, overhead,
                                      QpTypeName(req.type)));
      }
      const uint64_t plain = overhead + kDataSeg * c.max_send_sge;
      const uint64_t total = std::max(plain, inl);
      if (total > desc) {
        return Einval(call + " [mlx5_calc_send_wqe]",
                      absl::StrFormat("max_inline_data %u needs a %u-byte WQE "
                                      "> max_sq_desc_sz %u",
                                      c.max_inline_data, total, desc));
      }
      s.sq_wqe = AlignUp(total, kBasicBlock);
      s.granted.max_inline_data =
          static_cast<uint32_t>(s.sq_wqe - overhead - kInlineSeg);
      if (c.max_send_wr > 0x7fffffffULL / desc) {
        return Einval(call + " [mlx5_calc_sq_size]",
                      absl::StrFormat("max_send_wr %u > %u (0x7fffffff / "
                                      "max_sq_desc_sz %u)",
                                      c.max_send_wr, 0x7fffffffULL / desc, desc));
      }
      s.sq_bytes = RoundUpPow2(uint64_t{c.max_send_wr} * s.sq_wqe);
      s.sq_blocks = s.sq_bytes / kBasicBlock;
      if (max_qp_wr_.value && s.sq_blocks > *max_qp_wr_.value) {
        return Einval(call + " [mlx5_calc_sq_size]",
                      absl::StrFormat("max_send_wr %u needs %u 64-byte basic "
                                      "blocks (%u-byte WQEs) > max_qp_wr %u",
                                      c.max_send_wr, s.sq_blocks, s.sq_wqe,
                                      *max_qp_wr_.value));
      }
      s.granted.max_send_wr = static_cast<uint32_t>(s.sq_bytes / s.sq_wqe);
    }
    if (c.max_recv_wr > 0) {
      if (max_qp_wr_.value && c.max_recv_wr > *max_qp_wr_.value) {
        return Einval(call + " [mlx5_calc_rq_size]",
                      absl::StrFormat("max_recv_wr %u > max_qp_wr %u",
                                      c.max_recv_wr, *max_qp_wr_.value));
      }
      if (!req.with_srq) {
        const uint64_t raw = kDataSeg * std::max<uint64_t>(c.max_recv_sge, 1);
        if (raw > *rq_desc_.value) {
          return Einval(call + " [mlx5_calc_rcv_wqe]",
                        absl::StrFormat("max_recv_sge %u needs %u B > "
                                        "max_rq_desc_sz %u",
                                        c.max_recv_sge, raw, *rq_desc_.value));
        }
        s.rq_wqe = RoundUpPow2(raw);
        s.rq_bytes = std::max(RoundUpPow2(c.max_recv_wr) * s.rq_wqe, kBasicBlock);
        s.rq_count = s.rq_bytes / s.rq_wqe;
      }
    }
    // create_qp writes the RQ values back whether or not there is an RQ.
    s.granted.max_recv_wr = static_cast<uint32_t>(s.rq_count);
    s.granted.max_recv_sge = static_cast<uint32_t>(s.rq_wqe / kDataSeg);
    return s;
  }

  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override {
    absl::StatusOr<Mlx5Sizing> s = Size(req);
    if (!s.ok()) return s.status();
    return s->granted;
  }

  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override {
    const std::string call = model_internal::CreateCqCall(name_, cqe);
    if (cqe == 0) return Einval(call + " [create_cq]", "cqe 0");
    const uint64_t ncqe = RoundUpPow2(uint64_t{cqe} + 1);
    if (ncqe > (uint64_t{1} << 24)) {
      return Einval(call + " [create_cq]",
                    absl::StrFormat("%u entries > 1 << 24", ncqe));
    }
    if (max_cqe_.value && ncqe > *max_cqe_.value + 1) {
      return Einval(call + " [mlx5_ib_create_cq]",
                    absl::StrFormat("cqe %u > max_cqe %u", cqe, *max_cqe_.value));
    }
    return static_cast<uint32_t>(ncqe - 1);
  }

  QueueMemory QpMemory(const QpRequest& req, const QpCaps& granted) const override {
    QueueMemory m;
    absl::StatusOr<Mlx5Sizing> s = Size(req);
    if (!s.ok()) {
      m.basis = absl::StrCat("mlx5 model: the request would fail: ",
                             s.status().message());
      return m;
    }
    m.sq_bytes = s->sq_bytes;
    m.rq_bytes = s->rq_bytes;
    m.context_bytes = s->sq_blocks * (8 + 4 + 4) + s->rq_count * 8;
    m.basis = absl::StrFormat(
        "mlx5 model (providers/mlx5/verbs.c mlx5_calc_sq_size, "
        "mlx5_calc_rq_size): send queue roundup_pow_of_two(%u x %u-byte WQE) "
        "= %u B; receive queue %u x %u B = %u B; one page-aligned buffer of "
        "%u B; host bookkeeping arrays %u B (mlx5_alloc_qp_buf); the "
        "firmware QP context lives on the adapter and is not counted",
        req.caps.max_send_wr, s->sq_wqe, s->sq_bytes, s->rq_count, s->rq_wqe,
        s->rq_bytes, AlignUp(s->sq_bytes + s->rq_bytes, kPageSize),
        m.context_bytes);
    return m;
  }

  uint64_t CqMemory(uint32_t granted_cqe) const override {
    return (uint64_t{granted_cqe} + 1) * kCqeSize;
  }

 private:
  std::string name_;
  Limit max_qp_wr_, max_cqe_, sq_desc_, rq_desc_;
};

}  // namespace

std::unique_ptr<Device> MakeMlx5Model(const DeviceInfo& dev) {
  return std::make_unique<Mlx5Model>(dev);
}

}  // namespace rdmacheck
