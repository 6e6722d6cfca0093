// Driver models: a Device that answers from a recorded profile the way the
// real driver would. "What would ibv_create_qp grant, or would it fail with
// EINVAL?", "what CQ depth does ibv_create_cq grant?", "how many bytes do
// these queues take?". Each model follows the sizing code of one driver
// (Linux rxe, rdma-core's mlx5 and mlx4 providers) and takes the device
// limits from DeviceInfo::attrs; docs/driver-models.md lists the source
// lines each rule comes from and what is not modeled.
//
//   std::unique_ptr<Device> dev = MakeDriverModel(view.devices[0]);
//   absl::StatusOr<QpCaps> got = dev->CreateQp({QpType::kRc, {.max_send_wr = 100}});
//   // rxe: got->max_send_wr == 127 (128 slots, one kept empty)
//   QueueMemory mem = dev->QpMemory({QpType::kRc, want}, *got);
//
// A limit missing from the profile is not checked; Describe() and the
// QueueMemory basis say so.
#ifndef RDMACHECK_ACTS_DRIVER_MODEL_H_
#define RDMACHECK_ACTS_DRIVER_MODEL_H_

#include <memory>
#include <optional>
#include <string>

#include "acts/device.h"
#include "facts/device_view.h"

namespace rdmacheck {

struct DriverModelOptions {
  // By default CreateQp answers the effective depth: what ibv_query_qp
  // reports and what LiveDevice answers (the larger of create's write-back
  // and the query). Set this to `uname -r` of the kernel running the driver
  // to model ibv_create_qp's literal write-back instead. rxe only: before
  // upstream commit e0ba8ff46704 ("RDMA/rxe: Move work queue code to
  // subroutines", v6.5, backported to 6.4.16) rxe left max_send_wr /
  // max_recv_wr as requested in the write-back although the queues are
  // rounded up (Debian 12's 6.1 included, as far as the stable history
  // shows); from then on it writes back the rounded depth.
  std::optional<std::string> kernel_release;
};

// The model for dev's driver: "rxe", "mlx5", "mlx4"; anything else (or no
// driver named) gets MakeGenericModel.
std::unique_ptr<Device> MakeDriverModel(const DeviceInfo& dev,
                                        const DriverModelOptions& options = {});

// The generic model (docs/driver-models.md): grants exactly what is asked
// within the profile's limits; WQE = 64 B + 16 B per SGE with no rounding,
// CQE = 64 B, driver context = the queue buffers again (the low end of the
// rule of thumb that a QP's total is two to three times its queues).
// All of it stated as an assumption in Describe() and the basis.
std::unique_ptr<Device> MakeGenericModel(const DeviceInfo& dev);

// The three driver models by name, for tests and for profiles whose driver
// field is missing but known otherwise.
std::unique_ptr<Device> MakeRxeModel(const DeviceInfo& dev,
                                     const DriverModelOptions& options = {});
std::unique_ptr<Device> MakeMlx5Model(const DeviceInfo& dev);
std::unique_ptr<Device> MakeMlx4Model(const DeviceInfo& dev);

// True when `kernel_release` ("6.1.0-18-amd64", "6.5.3") names a kernel whose
// rxe reports rounded max_send_wr / max_recv_wr from ibv_create_qp (see
// DriverModelOptions). Unparsable text: true.
bool RxeCreateReportsRoundedDepth(const std::string& kernel_release);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_DRIVER_MODEL_H_
