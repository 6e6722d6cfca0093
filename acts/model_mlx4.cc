// The mlx4 model: rdma-core v44 providers/mlx4 (verbs.c create_qp_ex,
// qp.c mlx4_calc_sq_wqe_size / mlx4_alloc_qp_buf / mlx4_set_sq_sizes) and
// the kernel's user-QP checks (drivers/infiniband/hw/mlx4/qp.c set_rq_size,
// set_user_sq_size).
//
// Facts used, paraphrased, not copied:
//  - create_qp_ex: EINVAL when max_send_wr or max_recv_wr > max_qp_wr, or
//    max_send_sge or max_recv_sge > max_sge (65536 / 64 when the device
//    query failed), or max_inline_data > 1024.
//  - mlx4_calc_sq_wqe_size: inline needs ceil-ish segments of 60 B (64-byte
//    MLX4_INLINE_ALIGN less the 4-byte inline header, first segment offset by
//    32 B for RC/UC, 0 for UD); SGEs = max(that in 16 B units, max_send_sge);
//    size = SGEs x 16 + transport (UD datagram 48, RC/UC raddr 16; RC at
//    least atomic 16 + raddr 16 + one SGE 16), at least a 32-byte bind
//    segment, + 16 ctrl; WQE stride = power of two >= 64.
//  - create_qp_ex: spare WQEs = (2048 >> log stride) + 1; SQ count =
//    roundup_pow_of_two(max_send_wr + spare).
//  - mlx4_set_sq_sizes: reported max_send_wr = count - spare; max_send_sge =
//    (stride - 16 - transport) / 16; max_inline_data = that space less 4 B per
//    64-byte chunk.
//  - kernel set_rq_size (user QP): RQ count = roundup_pow_of_two(max(1, wr)),
//    SGEs = roundup_pow_of_two(max(1, sge)), both reported back; none with an
//    SRQ. set_user_sq_size: EINVAL when the SQ count > max_wqes (= max_qp_wr +
//    33, MLX4_IB_SQ_MAX_SPARE) or the stride > roundup_pow_of_two(
//    max_sq_desc_sz) (profile attr, else 1008 as ConnectX-3 reports: an
//    assumption).
//  - create_cq: EINVAL above 0x3fffff; the kernel refuses 0; ibv_cq.cqe =
//    roundup_pow_of_two(cqe + 1) - 1; 32-byte CQEs unless the profile says
//    cqe_size.
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
using model_internal::Exceeds;
using model_internal::kPageSize;
using model_internal::Limit;
using model_internal::LimitOr;
using model_internal::ProfileLimit;
using model_internal::RoundUpPow2;

constexpr uint64_t kCtrl = 16, kRaddr = 16, kAtomic = 16, kData = 16;
constexpr uint64_t kDatagram = 48, kInlineHdr = 4, kBind = 32;
constexpr uint64_t kInlineAlign = 64;
constexpr uint64_t kSqMaxSpare = 33;  // MLX4_IB_SQ_MAX_SPARE

uint64_t Transport(QpType t) { return t == QpType::kUd ? kDatagram : kRaddr; }

uint64_t InlineSegs(uint64_t data, QpType t) {
  data += t == QpType::kUd ? (kCtrl + kDatagram) % kInlineAlign
                           : (kCtrl + kRaddr) % kInlineAlign;
  return (data + kInlineAlign - kInlineHdr - 1) / (kInlineAlign - kInlineHdr);
}

int Log2(uint64_t pow2) {
  int s = 0;
  while ((uint64_t{1} << s) < pow2) ++s;
  return s;
}

struct Mlx4Sizing {
  int sq_shift = 6;
  uint64_t sq_spare = 0, sq_count = 0;
  int rq_shift = 4;
  uint64_t rq_count = 0;
  QpCaps granted;
};

class Mlx4Model : public Device {
 public:
  explicit Mlx4Model(const DeviceInfo& dev)
      : name_(DevName(dev)),
        max_qp_wr_(LimitOr(dev, "max_qp_wr", 65536,
                           "provider fallback, not in profile")),
        max_sge_(LimitOr(dev, "max_sge", 64, "provider fallback, not in profile")),
        max_cqe_(ProfileLimit(dev, "max_cqe")),
        sq_desc_(LimitOr(dev, "max_sq_desc_sz", 1008,
                         "assumed: ConnectX-3, not in profile")),
        cqe_size_(LimitOr(dev, "cqe_size", 32, "assumed: 32-byte CQEs")) {}

  std::string Describe() const override {
    return absl::StrCat(
        "mlx4 model for ", name_,
        " (rdma-core providers/mlx4 v44 and kernel mlx4 qp.c user-QP checks; "
        "limits: ", DescribeLimit("max_qp_wr", max_qp_wr_), ", ",
        DescribeLimit("max_sge", max_sge_), ", ",
        DescribeLimit("max_cqe", max_cqe_), ", ",
        DescribeLimit("max_sq_desc_sz", sq_desc_), ", ",
        DescribeLimit("cqe_size", cqe_size_), ")");
  }

  absl::StatusOr<Mlx4Sizing> Size(const QpRequest& req) const {
    const QpCaps& c = req.caps;
    const std::string call = model_internal::CreateQpCall(name_, req);
    std::string why;
    if (Exceeds(c.max_send_wr, "max_send_wr", max_qp_wr_, "max_qp_wr", &why) ||
        Exceeds(c.max_recv_wr, "max_recv_wr", max_qp_wr_, "max_qp_wr", &why) ||
        Exceeds(c.max_send_sge, "max_send_sge", max_sge_, "max_sge", &why) ||
        Exceeds(c.max_recv_sge, "max_recv_sge", max_sge_, "max_sge", &why)) {
      return Einval(call + " [create_qp_ex]", why);
    }
    if (c.max_inline_data > 1024) {
      return Einval(call + " [create_qp_ex]",
                    absl::StrCat("max_inline_data ", c.max_inline_data, " > 1024"));
    }
    Mlx4Sizing s;
    // mlx4_calc_sq_wqe_size
    uint64_t sges =
        AlignUp(c.max_inline_data + InlineSegs(c.max_inline_data, req.type) * kInlineHdr,
                kData) / kData;
    sges = std::max<uint64_t>(sges, c.max_send_sge);
    uint64_t size = sges * kData + Transport(req.type);
    if (req.type == QpType::kRc) size = std::max(size, kAtomic + kRaddr + kData);
    size = std::max(size, kBind) + kCtrl;
    s.sq_shift = std::max(6, Log2(size));
    s.sq_spare = (2048 >> s.sq_shift) + 1;
    s.sq_count = RoundUpPow2(uint64_t{c.max_send_wr} + s.sq_spare);
    // kernel set_user_sq_size
    if (s.sq_count > *max_qp_wr_.value + kSqMaxSpare) {
      return Einval(call + " [mlx4_ib set_user_sq_size]",
                    absl::StrFormat("max_send_wr %u + %u spare needs %u WQEs > "
                                    "max_wqes %u (max_qp_wr + 33)",
                                    c.max_send_wr, s.sq_spare, s.sq_count,
                                    *max_qp_wr_.value + kSqMaxSpare));
    }
    if (s.sq_shift > Log2(RoundUpPow2(*sq_desc_.value))) {
      return Einval(call + " [mlx4_ib set_user_sq_size]",
                    absl::StrFormat("%u-byte send WQE stride > max_sq_desc_sz %u",
                                    uint64_t{1} << s.sq_shift, *sq_desc_.value));
    }
    // Receive queue: the provider asks for at least 1 x 1, the kernel rounds.
    if (!req.with_srq) {
      const uint64_t wr = std::max<uint64_t>(c.max_recv_wr, 1);
      const uint64_t sge = std::max<uint64_t>(c.max_recv_sge, 1);
      s.rq_count = RoundUpPow2(wr);
      s.rq_shift = std::max(4, Log2(sge * kData));
      s.granted.max_recv_wr = static_cast<uint32_t>(s.rq_count);
      s.granted.max_recv_sge = static_cast<uint32_t>(RoundUpPow2(sge));
    } else {
      // create_qp_ex zeroes the receive caps of a QP on an SRQ.
      s.granted.max_recv_wr = 0;
      s.granted.max_recv_sge = 0;
    }
    // mlx4_set_sq_sizes
    const uint64_t space = (uint64_t{1} << s.sq_shift) - kCtrl - Transport(req.type);
    s.granted.max_send_sge = static_cast<uint32_t>(space / kData);
    s.granted.max_send_wr = static_cast<uint32_t>(s.sq_count - s.sq_spare);
    s.granted.max_inline_data = static_cast<uint32_t>(
        space - kInlineHdr * (AlignUp(space, kInlineAlign) / kInlineAlign));
    return s;
  }

  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override {
    absl::StatusOr<Mlx4Sizing> s = Size(req);
    if (!s.ok()) return s.status();
    return s->granted;
  }

  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override {
    const std::string call = model_internal::CreateCqCall(name_, cqe);
    if (cqe > 0x3fffff) {
      return Einval(call + " [create_cq]", absl::StrCat("cqe ", cqe, " > 0x3fffff"));
    }
    if (cqe == 0) return Einval(call + " [mlx4_ib_create_cq]", "cqe 0 < 1");
    std::string why;
    if (Exceeds(cqe, "cqe", max_cqe_, "max_cqe", &why)) {
      return Einval(call + " [mlx4_ib_create_cq]", why);
    }
    return static_cast<uint32_t>(RoundUpPow2(uint64_t{cqe} + 1) - 1);
  }

  QueueMemory QpMemory(const QpRequest& req, const QpCaps& granted) const override {
    QueueMemory m;
    absl::StatusOr<Mlx4Sizing> s = Size(req);
    if (!s.ok()) {
      m.basis = absl::StrCat("mlx4 model: the request would fail: ",
                             s.status().message());
      return m;
    }
    m.sq_bytes = s->sq_count << s->sq_shift;
    m.rq_bytes = s->rq_count << s->rq_shift;
    m.context_bytes = (s->sq_count + s->rq_count) * 8;
    m.basis = absl::StrFormat(
        "mlx4 model (providers/mlx4 qp.c mlx4_alloc_qp_buf): send queue %u "
        "WQEs (max_send_wr %u + %u spare, power of two) x %u B = %u B; "
        "receive queue %u x %u B = %u B; one page-aligned buffer of %u B; "
        "wrid arrays %u B; the firmware QP context is not counted",
        s->sq_count, req.caps.max_send_wr, s->sq_spare, uint64_t{1} << s->sq_shift,
        m.sq_bytes, s->rq_count, uint64_t{1} << s->rq_shift, m.rq_bytes,
        AlignUp(m.sq_bytes + m.rq_bytes, kPageSize), m.context_bytes);
    return m;
  }

  uint64_t CqMemory(uint32_t granted_cqe) const override {
    return (uint64_t{granted_cqe} + 1) * *cqe_size_.value;
  }

 private:
  std::string name_;
  Limit max_qp_wr_, max_sge_, max_cqe_, sq_desc_, cqe_size_;
};

}  // namespace

std::unique_ptr<Device> MakeMlx4Model(const DeviceInfo& dev) {
  return std::make_unique<Mlx4Model>(dev);
}

}  // namespace rdmacheck
