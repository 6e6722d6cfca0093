// The Soft-RoCE (rxe) model: Linux drivers/infiniband/sw/rxe, kernel 6.1
// (Debian 12) with the reporting change of v6.5 selectable by kernel release.
// The userspace provider (rdma-core providers/rxe/rxe.c, rxe_create_qp)
// passes the caps to the kernel and back unchanged, so the kernel decides.
//
// Facts used (file: function), paraphrased, not copied:
//  - rxe_qp.c rxe_qp_chk_cap: EINVAL when max_send_wr > attr.max_qp_wr,
//    max_send_sge > attr.max_send_sge, (no SRQ) max_recv_wr > max_qp_wr,
//    max_recv_sge > attr.max_recv_sge, max_inline_data > rxe->max_inline_data;
//    checked in that order.
//  - rxe_qp.c rxe_qp_init_req (6.1) / rxe_init_sq (>= 6.5): send payload =
//    max(max_send_sge * sizeof(struct ib_sge) = 16, max_inline_data); the
//    granted max_send_sge = payload / 16 and max_inline_data = payload;
//    element = sizeof(struct rxe_send_wqe) + payload.
//  - rxe_qp.c rxe_qp_init_resp / rxe_init_rq: element =
//    sizeof(struct rxe_recv_wqe) + max_recv_sge * 16; max_recv_sge unchanged.
//  - rxe_queue.c rxe_queue_init: element padded to >= cache_line_size() (64 on
//    x86_64) and to a power of two; slots = roundup_pow_of_two(n + 1); the
//    depth written back is slots - 1; buffer = sizeof(struct rxe_queue_buf)
//    + slots * element, from vmalloc_user (whole pages).
//  - include/uapi/rdma/rdma_user_rxe.h (6.1): sizeof(struct rxe_send_wqe) =
//    208, sizeof(struct rxe_recv_wqe) = 40, sizeof(struct rxe_queue_buf) =
//    384 (three 128-byte index cache lines); measured with the 6.1 uapi header.
//  - rxe_param.h (6.1): RXE_MAX_INLINE_DATA = RXE_MAX_WQE_SIZE -
//    sizeof(rxe_send_wqe) = 32 SGEs x 16 = 512 (older kernels: 400).
//  - rxe_cq.c rxe_cq_chk_attr: EINVAL when cqe <= 0 or cqe > max_cqe;
//    rxe_cq_from_init: queue of sizeof(struct rxe_cqe) elements (a union of
//    struct ib_wc, 72 B on 64-bit, and ib_uverbs_wc: padded to 128),
//    ibcq.cqe = slots - 1.
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
using model_internal::Enomem;
using model_internal::Exceeds;
using model_internal::kPageSize;
using model_internal::Limit;
using model_internal::LimitOr;
using model_internal::ProfileLimit;
using model_internal::RoundUpPow2;

constexpr uint64_t kIbSge = 16;          // sizeof(struct ib_sge)
constexpr uint64_t kSendWqe = 208;       // sizeof(struct rxe_send_wqe), 6.1
constexpr uint64_t kRecvWqe = 40;        // sizeof(struct rxe_recv_wqe), 6.1
constexpr uint64_t kQueueHeader = 384;   // sizeof(struct rxe_queue_buf)
constexpr uint64_t kCacheLine = 64;      // cache_line_size(), x86_64
constexpr uint64_t kCqe = 128;           // sizeof(struct rxe_cqe) padded
constexpr uint64_t kMaxInline61 = 512;   // RXE_MAX_INLINE_DATA, rxe_param.h 6.1
// rxe_queue_init takes the depth as int and refuses a negative one.
constexpr uint64_t kMaxQueueInt = 0x7fffffff;

uint64_t ElementSize(uint64_t raw) {
  return RoundUpPow2(raw < kCacheLine ? kCacheLine : raw);
}

struct QueueShape {
  uint64_t slots = 0;
  uint64_t elem = 0;
  uint64_t buf = 0;    // header + slots * elem, as rxe_queue_init sizes it
  uint64_t pages = 0;  // buf rounded up to whole pages (vmalloc_user)
};

QueueShape Shape(uint64_t depth, uint64_t raw_elem) {
  QueueShape s;
  s.slots = RoundUpPow2(depth + 1);
  s.elem = ElementSize(raw_elem);
  s.buf = kQueueHeader + s.slots * s.elem;
  s.pages = AlignUp(s.buf, kPageSize);
  return s;
}

class RxeModel : public Device {
 public:
  RxeModel(const DeviceInfo& dev, const DriverModelOptions& options)
      : name_(DevName(dev)),
        max_qp_wr_(ProfileLimit(dev, "max_qp_wr")),
        max_sge_(ProfileLimit(dev, "max_sge")),
        max_cqe_(ProfileLimit(dev, "max_cqe")),
        max_inline_(LimitOr(dev, "max_inline_data", kMaxInline61,
                            "rxe_param.h 6.1 default, not in profile")),
        kernel_(options.kernel_release),
        rounded_(!options.kernel_release ||
                 RxeCreateReportsRoundedDepth(*options.kernel_release)) {}

  std::string Describe() const override {
    return absl::StrCat(
        "rxe model for ", name_,
        " (kernel rxe_qp.c, rxe_queue.c, rxe_cq.c; limits: ",
        DescribeLimit("max_qp_wr", max_qp_wr_), ", ",
        DescribeLimit("max_sge", max_sge_), ", ",
        DescribeLimit("max_cqe", max_cqe_), ", ",
        DescribeLimit("max_inline_data", max_inline_), "; ibv_create_qp reports ",
        rounded_ ? "the rounded queue depth (kernel >= 6.5)"
                 : "max_send_wr/max_recv_wr as requested (kernel < 6.5)",
        kernel_ ? absl::StrCat(", kernel ", *kernel_) : std::string(), ")");
  }

  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override {
    const QpCaps& c = req.caps;
    const std::string call = model_internal::CreateQpCall(name_, req);
    std::string why;
    // rxe_qp_chk_cap, in its order.
    if (Exceeds(c.max_send_wr, "max_send_wr", max_qp_wr_, "max_qp_wr", &why) ||
        Exceeds(c.max_send_sge, "max_send_sge", max_sge_, "max_sge", &why) ||
        (!req.with_srq &&
         (Exceeds(c.max_recv_wr, "max_recv_wr", max_qp_wr_, "max_qp_wr", &why) ||
          Exceeds(c.max_recv_sge, "max_recv_sge", max_sge_, "max_sge", &why))) ||
        Exceeds(c.max_inline_data, "max_inline_data", max_inline_,
                "rxe max_inline_data", &why)) {
      return Einval(call + " [rxe_qp_chk_cap]", why);
    }
    // Without limits in the profile, rxe_queue_init's int depth is the bound.
    if (c.max_send_wr >= kMaxQueueInt ||
        (!req.with_srq && c.max_recv_wr >= kMaxQueueInt)) {
      return Enomem(call, "rxe_queue_init: queue depth does not fit an int");
    }
    QpCaps g = c;
    const uint64_t payload =
        std::max<uint64_t>(uint64_t{c.max_send_sge} * kIbSge, c.max_inline_data);
    g.max_send_sge = static_cast<uint32_t>(payload / kIbSge);
    g.max_inline_data = static_cast<uint32_t>(payload);
    if (rounded_) {
      g.max_send_wr = static_cast<uint32_t>(RoundUpPow2(uint64_t{c.max_send_wr} + 1) - 1);
      if (!req.with_srq) {
        g.max_recv_wr = static_cast<uint32_t>(RoundUpPow2(uint64_t{c.max_recv_wr} + 1) - 1);
      }
    }
    if (req.with_srq) {
      // On an SRQ the QP has no receive queue of its own (rxe_qp_init_resp
      // skips it): measured on rxe, kernel 6.1, it reports 0 and 0.
      g.max_recv_wr = 0;
      g.max_recv_sge = 0;
    }
    return g;
  }

  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override {
    const std::string call = model_internal::CreateCqCall(name_, cqe);
    // rxe_cq_chk_attr takes an int: 0 and anything above INT_MAX are <= 0.
    if (cqe == 0 || cqe > kMaxQueueInt) {
      return Einval(call + " [rxe_cq_chk_attr]",
                    absl::StrCat("cqe ", static_cast<int32_t>(cqe), " <= 0"));
    }
    std::string why;
    if (Exceeds(cqe, "cqe", max_cqe_, "max_cqe", &why)) {
      return Einval(call + " [rxe_cq_chk_attr]", why);
    }
    return static_cast<uint32_t>(RoundUpPow2(uint64_t{cqe} + 1) - 1);
  }

  QueueMemory QpMemory(const QpRequest& req, const QpCaps& g) const override {
    QueueMemory m;
    // The granted caps give back the same slots and payload as the request:
    // roundup_pow_of_two(slots - 1 + 1) == slots.
    const uint64_t payload =
        std::max<uint64_t>(uint64_t{g.max_send_sge} * kIbSge, g.max_inline_data);
    const QueueShape sq = Shape(g.max_send_wr, kSendWqe + payload);
    m.sq_bytes = sq.pages;
    std::string rq_text = "none (SRQ)";
    if (!req.with_srq) {
      const QueueShape rq = Shape(g.max_recv_wr, kRecvWqe + kIbSge * g.max_recv_sge);
      m.rq_bytes = rq.pages;
      rq_text = absl::StrFormat(
          "%u slots x %u B (rxe_recv_wqe 40 + %u x 16, padded to a power of "
          "two >= 64) + 384 B header = %u B, %u B in whole pages",
          rq.slots, rq.elem, g.max_recv_sge, rq.buf, rq.pages);
    }
    // Not measured: struct rxe_qp, its kernel UDP socket and the responder's
    // rd_atomic array; one page is a placeholder the real-device probe should
    // replace.
    m.context_bytes = kPageSize;
    m.basis = absl::StrFormat(
        "rxe model (rxe_queue.c rxe_queue_init): send queue %u slots x %u B "
        "(rxe_send_wqe 208 + payload %u, padded to a power of two >= 64) + "
        "384 B header = %u B, %u B in whole pages; receive queue %s; kernel "
        "QP object and socket estimated at one page (not measured)",
        sq.slots, sq.elem, payload, sq.buf, sq.pages, rq_text);
    return m;
  }

  uint64_t CqMemory(uint32_t granted_cqe) const override {
    return Shape(granted_cqe, kCqe).pages;
  }

 private:
  std::string name_;
  Limit max_qp_wr_, max_sge_, max_cqe_, max_inline_;
  std::optional<std::string> kernel_;
  bool rounded_;
};

}  // namespace

std::unique_ptr<Device> MakeRxeModel(const DeviceInfo& dev,
                                     const DriverModelOptions& options) {
  return std::make_unique<RxeModel>(dev, options);
}

}  // namespace rdmacheck
