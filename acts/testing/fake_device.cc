#include "acts/testing/fake_device.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck::testing {
namespace {

absl::Status NoAnswer(absl::string_view method) {
  return absl::UnimplementedError(absl::StrCat("FakeDevice: no answer set for ", method));
}

// What Factory() and Handle() hand out: the fake stays with the test.
class ForwardingDevice : public Device {
 public:
  explicit ForwardingDevice(FakeDevice* fake) : fake_(fake) {}
  std::string Describe() const override { return fake_->Describe(); }
  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override { return fake_->CreateQp(req); }
  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override { return fake_->CreateCq(cqe); }
  QueueMemory QpMemory(const QpRequest& req, const QpCaps& granted) const override {
    return fake_->QpMemory(req, granted);
  }
  uint64_t CqMemory(uint32_t granted_cqe) const override { return fake_->CqMemory(granted_cqe); }
  absl::StatusOr<ProbeResult> RunTrafficProbe(const ProbeRequest& req) override {
    return fake_->RunTrafficProbe(req);
  }
  absl::StatusOr<CqOverrunResult> RunCqOverrunProbe(const CqOverrunRequest& req) override {
    return fake_->RunCqOverrunProbe(req);
  }
  absl::StatusOr<QpMemoryMeasurement> MeasureQpMemory(const QpMemoryRequest& req) override {
    return fake_->MeasureQpMemory(req);
  }
  absl::StatusOr<BenchResult> RunBench(const BenchEnds& ends, const BenchSettings& s) override {
    return fake_->RunBench(ends, s);
  }

 private:
  FakeDevice* fake_;
};

}  // namespace

std::unique_ptr<Device> FakeDevice::Handle() {
  return std::make_unique<ForwardingDevice>(this);
}

std::function<std::unique_ptr<Device>(const DeviceInfo&)> FakeDevice::Factory() {
  return [this](const DeviceInfo&) { return Handle(); };
}

absl::StatusOr<QpCaps> FakeDevice::CreateQp(const QpRequest& req) {
  if (auto a = create_qp.Answer(req)) return *std::move(a);
  if (fallback_) return fallback_->CreateQp(req);
  return NoAnswer("CreateQp");
}

absl::StatusOr<uint32_t> FakeDevice::CreateCq(uint32_t cqe) {
  if (auto a = create_cq.Answer(cqe)) return *std::move(a);
  if (fallback_) return fallback_->CreateCq(cqe);
  return NoAnswer("CreateCq");
}

QueueMemory FakeDevice::QpMemory(const QpRequest& req, const QpCaps& granted) const {
  if (auto a = qp_memory.Answer({req, granted})) return *std::move(a);
  if (fallback_) return fallback_->QpMemory(req, granted);
  return {};
}

uint64_t FakeDevice::CqMemory(uint32_t granted_cqe) const {
  if (auto a = cq_memory.Answer(granted_cqe)) return *a;
  if (fallback_) return fallback_->CqMemory(granted_cqe);
  return 0;
}

absl::StatusOr<ProbeResult> FakeDevice::RunTrafficProbe(const ProbeRequest& req) {
  if (auto a = traffic_probe.Answer(req)) return *std::move(a);
  if (fallback_) return fallback_->RunTrafficProbe(req);
  return Device::RunTrafficProbe(req);
}

absl::StatusOr<BenchResult> FakeDevice::RunBench(const BenchEnds& ends, const BenchSettings& s) {
  if (auto a = bench.Answer({ends, s})) return *std::move(a);
  if (fallback_) return fallback_->RunBench(ends, s);
  return Device::RunBench(ends, s);
}

absl::StatusOr<CqOverrunResult> FakeDevice::RunCqOverrunProbe(const CqOverrunRequest& req) {
  if (auto a = cq_overrun_probe.Answer(req)) return *std::move(a);
  if (fallback_) return fallback_->RunCqOverrunProbe(req);
  return Device::RunCqOverrunProbe(req);
}

absl::StatusOr<QpMemoryMeasurement> FakeDevice::MeasureQpMemory(const QpMemoryRequest& req) {
  if (auto a = measure_qp_memory.Answer(req)) return *std::move(a);
  if (fallback_) return fallback_->MeasureQpMemory(req);
  return Device::MeasureQpMemory(req);
}

}  // namespace rdmacheck::testing
