// The create-QP EINVAL bisector: for the field engineer whose ibv_create_qp
// returned EINVAL, which never says which attribute was wrong (perftest issue
// 139). DiagnoseCreateQp tries the create on a Device (a driver model over a
// profile, or the real device), and when it fails finds the culprit:
//   - each field over its own device limit (max_qp_wr, max_sge, max inline);
//   - for joint failures (each field fine alone, refused together), the
//     largest accepted value of each field with the others fixed, by a
//     bounded binary search: O(log n) creates per field;
//   - the CQ and SRQ relations (a CQ smaller than send + recv is not an
//     EINVAL cause on rxe/mlx5/mlx4, but it is said).
// Every create is side-effect free on a model and released on a live device.
//
//   std::unique_ptr<Device> dev = MakeDriverModel(info);
//   QpRequest req{QpType::kRc, {.max_send_wr = 65536, .max_send_sge = 16}};
//   absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(*dev, info, req);
//   // d->Verdict(): "max_send_wr=65536 is over this device's max_qp_wr 16384;
//   //   with max_send_sge=16 the largest accepted max_send_wr is 16384"
#ifndef RDMACHECK_ACTS_CREATE_QP_H_
#define RDMACHECK_ACTS_CREATE_QP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "facts/rdma_types.h"
#include "acts/device.h"
#include "facts/device_view.h"

namespace rdmacheck {

// The five fields of struct ibv_qp_cap, in the order drivers check them.
enum class QpField { kMaxSendWr, kMaxSendSge, kMaxRecvWr, kMaxRecvSge, kMaxInlineData };
inline constexpr QpField kAllQpFields[] = {QpField::kMaxSendWr, QpField::kMaxSendSge, QpField::kMaxRecvWr,
                                          QpField::kMaxRecvSge, QpField::kMaxInlineData};
absl::string_view QpFieldName(QpField f);  // "max_send_wr", ...
uint32_t GetField(const QpCaps& c, QpField f);
void SetField(QpCaps& c, QpField f, uint32_t v);

// What one field of the request does to the create.
struct CreateQpFinding {
  QpField field = QpField::kMaxSendWr;
  uint32_t requested = 0;
  // The device's own limit for this field alone, when known.
  std::optional<uint64_t> limit;
  std::string limit_name;    // "max_qp_wr", "max_sge", "max_inline_data"
  std::string limit_source;  // "profile", "rxe_param.h (6.1) default", "live ibv_query_device"
  bool over_limit = false;   // requested > limit
  // The search: the largest value of this field the device accepts with the
  // other fields at `others` (over-limit fields at their limits, the rest as
  // asked). nullopt when searched and not even the smallest value is
  // accepted, or when not searched.
  bool searched = false;
  std::optional<uint32_t> largest_accepted;
  // False when the create budget or deadline ran out: largest_accepted is
  // then only a lower bound and `first_refused` the upper one.
  bool search_complete = true;
  std::optional<uint32_t> first_refused;
  QpCaps others;
};

struct CreateQpDiagnosis {
  std::string device;         // Device::Describe()
  std::string device_name;    // "rxe0"
  QpRequest request;
  absl::Status create_status;    // of the request as given
  std::optional<QpCaps> granted; // when it succeeded
  // One entry per field over its limit or searched; in QpField order.
  std::vector<CreateQpFinding> findings;
  // Set when some field was over its own limit: the request with those
  // fields at their limits, and whether the device accepts that.
  std::optional<QpCaps> clamped;
  bool clamped_accepted = false;
  // No field over its own limit and still refused, or still refused with
  // the over-limit fields at their limits: the fields fail together.
  bool joint = false;
  std::vector<std::string> relations;  // CQ and SRQ relations, plain words
  int creates = 0;                     // ibv_create_qp calls made
  double seconds = 0;

  bool ok() const { return create_status.ok(); }
  // The verdict in plain words, one sentence per line.
  std::vector<std::string> Verdict() const;
};

struct DiagnoseOptions {
  // The CQ the QP completes into (send and receive), when known.
  std::optional<uint32_t> cqe;
  // The SRQ the QP takes receives from, when req.with_srq.
  std::optional<uint32_t> srq_max_wr;
  std::optional<uint32_t> srq_max_sge;
  // Bounds on the search: creates in all and wall time. When either runs
  // out, the findings say what is known so far.
  int max_creates = 200;
  absl::Duration deadline = absl::Seconds(5);
};

// Tries `req` on `dev`; on failure finds the culprit (see the file comment).
// Errors: a failure that is not about the caps (anything but
// InvalidArgument, ResourceExhausted or OutOfRange from the first create)
// is returned as is, since no smaller value can explain it.
absl::StatusOr<CreateQpDiagnosis> DiagnoseCreateQp(Device& dev, const DeviceInfo& info,
                                                   const QpRequest& req,
                                                   const DiagnoseOptions& options = {});

// The request that gets exactly what it asks, or the nearest below: for
// `field`, the largest value v <= asked whose granted value is <= asked
// (rxe: 1024 -> 1023, granted 1023). nullopt when no value >= 1 is granted
// within `asked`. O(log asked) creates.
std::optional<uint32_t> LargestExactRequest(Device& dev, const QpRequest& req, QpField field);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_CREATE_QP_H_
