// Helpers shared by the driver models (device/model_*.cc). Not part of the
// public surface: include acts/driver_model.h instead.
#ifndef RDMACHECK_ACTS_DRIVER_MODEL_INTERNAL_H_
#define RDMACHECK_ACTS_DRIVER_MODEL_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "acts/device.h"
#include "facts/device_view.h"

namespace rdmacheck::model_internal {

// Smallest power of two >= n (the kernel's roundup_pow_of_two); 1 for n <= 1.
uint64_t RoundUpPow2(uint64_t n);
// n rounded up to a multiple of `to` (> 0).
uint64_t AlignUp(uint64_t n, uint64_t to);

// The page size the models assume for vmalloc/buffer rounding (x86_64).
inline constexpr uint64_t kPageSize = 4096;

// "ibv_create_qp(dev=rxe0 type=RC max_send_wr=... srq=no)".
std::string CreateQpCall(absl::string_view dev, const QpRequest& req);
// "ibv_create_cq(dev=rxe0 cqe=0)".
std::string CreateCqCall(absl::string_view dev, uint32_t cqe);

// InvalidArgument "<call>: Invalid argument (<why>)".
absl::Status Einval(const std::string& call, absl::string_view why);
// ResourceExhausted "<call>: Cannot allocate memory (<why>)".
absl::Status Enomem(const std::string& call, absl::string_view why);

// One device limit as read from the profile, with where it came from.
struct Limit {
  std::optional<uint64_t> value;
  std::string source;  // "profile", "rxe_param.h default", ...
};
// dev.attrs[name] if present.
Limit ProfileLimit(const DeviceInfo& dev, absl::string_view name);
// dev.attrs[name] if present, else `fallback` with `fallback_source`.
Limit LimitOr(const DeviceInfo& dev, absl::string_view name, uint64_t fallback,
              absl::string_view fallback_source);
// "max_qp_wr=16384 (profile)" or "max_qp_wr not in profile: not checked".
std::string DescribeLimit(absl::string_view name, const Limit& limit);

// True (and sets *why) when `value` > limit; never when the limit is unknown.
bool Exceeds(uint64_t value, absl::string_view field, const Limit& limit,
             absl::string_view limit_name, std::string* why);

// The device name for messages ("rxe0"; "?" when the profile has none).
std::string DevName(const DeviceInfo& dev);

}  // namespace rdmacheck::model_internal

#endif  // RDMACHECK_ACTS_DRIVER_MODEL_INTERNAL_H_
