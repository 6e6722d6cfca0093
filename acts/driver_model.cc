// Dispatch by driver name, the shared helpers, and the generic model.
#include "acts/driver_model.h"

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "acts/driver_model_internal.h"

namespace rdmacheck {
namespace model_internal {

uint64_t RoundUpPow2(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

uint64_t AlignUp(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

std::string CreateQpCall(absl::string_view dev, const QpRequest& req) {
  return absl::StrCat("ibv_create_qp(dev=", dev, " type=", QpTypeName(req.type),
                      " ", FormatCaps(req.caps),
                      " srq=", req.with_srq ? "yes" : "no", ")");
}

std::string CreateCqCall(absl::string_view dev, uint32_t cqe) {
  return absl::StrCat("ibv_create_cq(dev=", dev, " cqe=", cqe, ")");
}

absl::Status Einval(const std::string& call, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(call, ": Invalid argument (", why, ")"));
}

absl::Status Enomem(const std::string& call, absl::string_view why) {
  return absl::ResourceExhaustedError(
      absl::StrCat(call, ": Cannot allocate memory (", why, ")"));
}

Limit ProfileLimit(const DeviceInfo& dev, absl::string_view name) {
  Limit l;
  if (std::optional<uint64_t> v = dev.Attr(name)) {
    l.value = *v;
    l.source = "profile";
  }
  return l;
}

Limit LimitOr(const DeviceInfo& dev, absl::string_view name, uint64_t fallback,
              absl::string_view fallback_source) {
  Limit l = ProfileLimit(dev, name);
  if (!l.value) {
    l.value = fallback;
    l.source = std::string(fallback_source);
  }
  return l;
}

std::string DescribeLimit(absl::string_view name, const Limit& limit) {
  if (!limit.value) return absl::StrCat(name, " not in profile: not checked");
  return absl::StrCat(name, "=", *limit.value, " (", limit.source, ")");
}

bool Exceeds(uint64_t value, absl::string_view field, const Limit& limit,
             absl::string_view limit_name, std::string* why) {
  if (!limit.value || value <= *limit.value) return false;
  *why = absl::StrCat(field, " ", value, " > ", limit_name, " ", *limit.value);
  return true;
}

std::string DevName(const DeviceInfo& dev) {
  return dev.name.empty() ? std::string("?") : dev.name;
}

}  // namespace model_internal

namespace {

using model_internal::DescribeLimit;
using model_internal::DevName;
using model_internal::Einval;
using model_internal::Exceeds;
using model_internal::Limit;
using model_internal::ProfileLimit;

// The rule of thumb of docs/plan-format.md ("The resource model"): WQE = base
// + SGEs x 16 B data segment, base at the top of the usual 32-64 B.
constexpr uint64_t kGenericWqeBase = 64;
constexpr uint64_t kGenericSgeBytes = 16;
constexpr uint64_t kGenericCqeBytes = 64;

class GenericModel : public Device {
 public:
  explicit GenericModel(const DeviceInfo& dev)
      : name_(DevName(dev)),
        max_qp_wr_(ProfileLimit(dev, "max_qp_wr")),
        max_sge_(ProfileLimit(dev, "max_sge")),
        max_cqe_(ProfileLimit(dev, "max_cqe")),
        max_inline_(ProfileLimit(dev, "max_inline_data")) {}

  std::string Describe() const override {
    return absl::StrCat(
        "generic model for ", name_,
        " (assumptions, see docs/driver-models.md: grants exactly what is "
        "asked; WQE = 64 B + 16 B per SGE, no rounding; CQE 64 B; driver "
        "context = queue buffers again; limits: ",
        DescribeLimit("max_qp_wr", max_qp_wr_), ", ",
        DescribeLimit("max_sge", max_sge_), ", ",
        DescribeLimit("max_cqe", max_cqe_), ", ",
        DescribeLimit("max_inline_data", max_inline_), ")");
  }

  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override {
    const QpCaps& c = req.caps;
    std::string why;
    if (Exceeds(c.max_send_wr, "max_send_wr", max_qp_wr_, "max_qp_wr", &why) ||
        Exceeds(c.max_send_sge, "max_send_sge", max_sge_, "max_sge", &why) ||
        (!req.with_srq &&
         (Exceeds(c.max_recv_wr, "max_recv_wr", max_qp_wr_, "max_qp_wr", &why) ||
          Exceeds(c.max_recv_sge, "max_recv_sge", max_sge_, "max_sge", &why))) ||
        Exceeds(c.max_inline_data, "max_inline_data", max_inline_,
                "max_inline_data", &why)) {
      return Einval(model_internal::CreateQpCall(name_, req), why);
    }
    return c;
  }

  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override {
    std::string why;
    if (cqe == 0) {
      return Einval(model_internal::CreateCqCall(name_, cqe), "cqe 0 <= 0");
    }
    if (Exceeds(cqe, "cqe", max_cqe_, "max_cqe", &why)) {
      return Einval(model_internal::CreateCqCall(name_, cqe), why);
    }
    return cqe;
  }

  QueueMemory QpMemory(const QpRequest& req, const QpCaps& g) const override {
    QueueMemory m;
    const uint64_t swqe = kGenericWqeBase + kGenericSgeBytes * g.max_send_sge;
    m.sq_bytes = uint64_t{g.max_send_wr} * swqe;
    uint64_t rwqe = 0;
    if (!req.with_srq) {
      rwqe = kGenericWqeBase + kGenericSgeBytes * g.max_recv_sge;
      m.rq_bytes = uint64_t{g.max_recv_wr} * rwqe;
    }
    m.context_bytes = m.sq_bytes + m.rq_bytes;
    m.basis = absl::StrFormat(
        "generic model (assumption, not a driver fact: docs/driver-models.md): "
        "send queue %u x (64 + 16 x %u) = %u B; receive queue %s; driver "
        "context estimated as the queue buffers again (rule of thumb: total "
        "2-3x the queues)",
        g.max_send_wr, g.max_send_sge, m.sq_bytes,
        req.with_srq ? std::string("none (SRQ)")
                     : absl::StrFormat("%u x (64 + 16 x %u) = %u B",
                                       g.max_recv_wr, g.max_recv_sge,
                                       m.rq_bytes));
    return m;
  }

  uint64_t CqMemory(uint32_t granted_cqe) const override {
    return uint64_t{granted_cqe} * kGenericCqeBytes;
  }

 private:
  std::string name_;
  Limit max_qp_wr_, max_sge_, max_cqe_, max_inline_;
};

}  // namespace

std::unique_ptr<Device> MakeGenericModel(const DeviceInfo& dev) {
  return std::make_unique<GenericModel>(dev);
}

std::unique_ptr<Device> MakeDriverModel(const DeviceInfo& dev,
                                        const DriverModelOptions& options) {
  const std::string driver = dev.driver.value_or("");
  if (driver == "rxe") return MakeRxeModel(dev, options);
  if (driver == "mlx5") return MakeMlx5Model(dev);
  if (driver == "mlx4") return MakeMlx4Model(dev);
  return MakeGenericModel(dev);
}

bool RxeCreateReportsRoundedDepth(const std::string& kernel_release) {
  int major = 0, minor = 0, patch = 0;
  const int n = std::sscanf(kernel_release.c_str(), "%d.%d.%d", &major, &minor,
                            &patch);
  if (n < 2) return true;
  if (n < 3) patch = 0;
  if (major != 6) return major > 6;
  if (minor != 4) return minor > 4;
  // 6.4.y got the fix in 6.4.16 (stable review series of 2023-09-11).
  return patch >= 16;
}

}  // namespace rdmacheck
