// Device: what a check asks when it must act rather than read. "What would
// creating this QP grant, or would it fail?", "what CQ depth is granted?",
// "how many bytes do these queues take?". On a profile a driver model answers
// (acts/driver_model.h); live, the real device does (acts/live_device.h).
// Checks hold a Device and never call libibverbs themselves.
//
//   std::unique_ptr<Device> dev = MakeDriverModel(view.devices[0]);
//   absl::StatusOr<QpCaps> granted = dev->CreateQp({QpType::kRc, want});
//   if (absl::IsInvalidArgument(granted.status())) ...  // EINVAL
#ifndef RDMACHECK_ACTS_DEVICE_H_
#define RDMACHECK_ACTS_DEVICE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "facts/rdma_types.h"
#include "acts/bench_types.h"
#include "acts/cq_overrun_types.h"
#include "acts/probe_types.h"
#include "acts/qp_memory_types.h"

namespace rdmacheck {

struct QpRequest {
  QpType type = QpType::kRc;
  QpCaps caps;
  bool with_srq = false;  // receive side comes from an SRQ: max_recv_* unused
};

// Queue memory of one QP, as its driver sizes it.
struct QueueMemory {
  uint64_t sq_bytes = 0;
  uint64_t rq_bytes = 0;
  uint64_t context_bytes = 0;  // driver/kernel bookkeeping, an estimate
  std::string basis;           // how it was computed, for evidence text
  uint64_t total() const { return sq_bytes + rq_bytes + context_bytes; }
};

class Device {
 public:
  virtual ~Device() = default;
  // "rxe model (kernel rxe_qp.c)" or "live rxe0": said in evidence.
  virtual std::string Describe() const = 0;
  // The caps the driver grants, or the status ibv_create_qp would give:
  // InvalidArgument for EINVAL, ResourceExhausted for ENOMEM, with the call
  // and its arguments in the message.
  virtual absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) = 0;
  // The granted CQ depth (ibv_cq.cqe after ibv_create_cq), or the error.
  virtual absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) = 0;
  // Bytes one QP's queues take given its granted caps.
  virtual QueueMemory QpMemory(const QpRequest& req, const QpCaps& granted) const = 0;
  // Bytes a CQ of the granted depth takes.
  virtual uint64_t CqMemory(uint32_t granted_cqe) const = 0;
  // Live traffic between this device and req.peer_device (acts/probe/probe.h).
  // Only a real device can: models and profiles say Unimplemented.
  virtual absl::StatusOr<ProbeResult> RunTrafficProbe(const ProbeRequest& req) {
    return absl::UnimplementedError("traffic probe needs a live device");
  }
  // A deliberately small CQ overrun by a burst of signaled WRs on this
  // device (acts/probe/cq_overrun.h). Live only.
  virtual absl::StatusOr<CqOverrunResult> RunCqOverrunProbe(const CqOverrunRequest& req) {
    return absl::UnimplementedError("CQ overrun probe needs a live device");
  }
  // A bandwidth or latency run between this device and req.ends.peer_device
  // (acts/bench/bench_session.h). Live only.
  virtual absl::StatusOr<BenchResult> RunBench(const BenchEnds& ends, const BenchSettings& s) {
    return absl::UnimplementedError("bandwidth and latency runs need a live device");
  }
  // Creates req.count QPs of a class and measures the process's memory
  // before and after (acts/probe/qp_memory.h). Live only.
  virtual absl::StatusOr<QpMemoryMeasurement> MeasureQpMemory(const QpMemoryRequest& req) {
    return absl::UnimplementedError("measured QP memory needs a live device");
  }
};

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_DEVICE_H_
