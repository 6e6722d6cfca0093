// LiveDevice: the Device (acts/device.h) answered by a real RDMA device.
// CreateQp really creates the QP (with a PD and a CQ of its own) and reads
// the granted caps back; CreateCq really creates the CQ. Everything is
// released before the call returns. Queue memory is not measurable per QP, so
// QpMemory/CqMemory ask the driver model given at Open (or say "no model").
//
//   ASSIGN_OR_RETURN(std::unique_ptr<LiveDevice> dev,
//                    LiveDevice::Open("rxe0", MakeDriverModel(info)));
//   absl::StatusOr<QpCaps> got = dev->CreateQp({QpType::kRc, {.max_send_wr = 100}});
//   // rxe: got->max_send_wr == 127; EINVAL over a limit is InvalidArgument
//   // "ibv_create_qp(dev=rxe0 type=RC max_send_wr=...): Invalid argument".
#ifndef RDMACHECK_ACTS_LIVE_DEVICE_H_
#define RDMACHECK_ACTS_LIVE_DEVICE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/device.h"
#include "verbs/context.h"

namespace rdmacheck {

class LiveDevice : public Device {
 public:
  // Opens the device (NotFound "no RDMA device named X (found: ...)" when
  // absent). memory_model may be null.
  static absl::StatusOr<std::unique_ptr<LiveDevice>> Open(const std::string& name,
                                                          std::unique_ptr<Device> memory_model);

  std::string Describe() const override;  // "live rxe0"
  // ibv_create_qp with req.type and req.caps on a fresh PD and a CQ of
  // max_send_wr + max_recv_wr entries (capped at the device's max_cqe), plus
  // an SRQ when req.with_srq. Returns the caps written back into
  // ibv_qp_init_attr.cap, cross-checked with ibv_query_qp: where the two
  // disagree each field takes the larger and last_note() says so.
  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override;
  // ibv_create_cq(cqe) then destroy; the granted ibv_cq.cqe.
  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override;
  QueueMemory QpMemory(const QpRequest& req, const QpCaps& granted) const override;
  uint64_t CqMemory(uint32_t granted_cqe) const override;
  // acts/probe/probe.h's RunTrafficProbe with req.device set to this device.
  absl::StatusOr<ProbeResult> RunTrafficProbe(const ProbeRequest& req) override;
  // acts/probe/cq_overrun.h's RunCqOverrunProbe on this device.
  absl::StatusOr<CqOverrunResult> RunCqOverrunProbe(const CqOverrunRequest& req) override;
  // acts/bench/bench_session.h's RunBench with ends.device set to this device.
  absl::StatusOr<BenchResult> RunBench(const BenchEnds& ends, const BenchSettings& s) override;
  // acts/probe/qp_memory.h's MeasureQpMemory on this device.
  absl::StatusOr<QpMemoryMeasurement> MeasureQpMemory(const QpMemoryRequest& req) override;

  // What the last CreateQp noticed (create vs query disagreement, a CQ
  // capped at max_cqe); empty when nothing.
  const std::string& last_note() const { return last_note_; }
  const std::string& name() const { return ctx_.name(); }

 private:
  LiveDevice(verbs::Context ctx, std::unique_ptr<Device> model, std::optional<int> max_cqe)
      : ctx_(std::move(ctx)), model_(std::move(model)), max_cqe_(max_cqe) {}

  verbs::Context ctx_;
  std::unique_ptr<Device> model_;
  std::optional<int> max_cqe_;  // ibv_device_attr.max_cqe, when the query worked
  std::string last_note_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_LIVE_DEVICE_H_
