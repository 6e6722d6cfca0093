// FakeDevice: one Device for tests, answering each method with what the
// test set and recording every request it got.
//
// Each method has a FakeAnswers member. A call takes, in order: the next of
// the answers queued with Next(), else the one given by Always() or
// computed by With(), else the fallback Device's answer (FallBackTo), else a
// default: the probes say what Device says (needs a live device), CreateQp
// and CreateCq are Unimplemented, the sizes are 0.
//
//   FakeDevice fake;
//   fake.traffic_probe.Always(healthy);
//   CheckContext ctx{view, plan, opts, fake.Factory()};
//   Result r = HungQpCheck().Run(ctx);
//   EXPECT_EQ(fake.traffic_probe.requests().back().peer_device, "rxe1");
#ifndef RDMACHECK_ACTS_TESTING_FAKE_DEVICE_H_
#define RDMACHECK_ACTS_TESTING_FAKE_DEVICE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/device.h"
#include "facts/device_view.h"

namespace rdmacheck::testing {

// The answers to one method, and the requests it was called with.
template <typename Result, typename Request>
class FakeAnswers {
 public:
  // Every call not answered by Next() gets `r`.
  void Always(Result r) {
    with_ = [r = std::move(r)](const Request&) { return r; };
  }
  // Every call not answered by Next() gets what `fn` makes of its request.
  void With(std::function<Result(const Request&)> fn) { with_ = std::move(fn); }
  // The next call gets `r`; queued answers are given in order, before any
  // Always() or With().
  void Next(Result r) { queued_.push_back(std::move(r)); }

  const std::vector<Request>& requests() const { return requests_; }
  int calls() const { return static_cast<int>(requests_.size()); }
  // *out = the last request, if there was one and `out` is not null.
  void CopyLastRequest(Request* out) const {
    if (out != nullptr && !requests_.empty()) *out = requests_.back();
  }

  // Records `req` and gives the answer set for it; nullopt when none is.
  // Thread-safe, and With()'s function runs outside the lock: a check may
  // probe several devices side by side.
  std::optional<Result> Answer(const Request& req) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req);
      if (!queued_.empty()) {
        Result r = std::move(queued_.front());
        queued_.pop_front();
        return r;
      }
    }
    if (with_) return with_(req);
    return std::nullopt;
  }

 private:
  std::deque<Result> queued_;
  std::function<Result(const Request&)> with_;
  std::vector<Request> requests_;
  std::mutex mu_;
};

// A RunBench call: the ends and the settings.
struct BenchCall {
  BenchEnds ends;
  BenchSettings settings;
};

// A QpMemory call: the request and the caps granted for it.
struct QpMemoryQuery {
  QpRequest request;
  QpCaps granted;
};

class FakeDevice : public Device {
 public:
  // `description` is what Describe() says (evidence text).
  explicit FakeDevice(std::string description = "fake") : description_(std::move(description)) {}
  // Handles point at this fake: it stays where it is.
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;

  // Answers the calls that have no answer set: e.g. a driver model, for a
  // fake that changes only some of its answers.
  void FallBackTo(std::unique_ptr<Device> fallback) { fallback_ = std::move(fallback); }
  Device* fallback() const { return fallback_.get(); }

  // A Device that forwards every call to this fake, for code that takes
  // ownership of its Device; the fake must outlive it.
  std::unique_ptr<Device> Handle();
  // A CheckContext::device_for that hands out Handle()s, so the test reads
  // the requests after the check has dropped its Devices.
  std::function<std::unique_ptr<Device>(const DeviceInfo&)> Factory();

  FakeAnswers<absl::StatusOr<QpCaps>, QpRequest> create_qp;
  FakeAnswers<absl::StatusOr<uint32_t>, uint32_t> create_cq;
  // mutable: QpMemory and CqMemory are const, and still recorded.
  mutable FakeAnswers<QueueMemory, QpMemoryQuery> qp_memory;
  mutable FakeAnswers<uint64_t, uint32_t> cq_memory;
  FakeAnswers<absl::StatusOr<ProbeResult>, ProbeRequest> traffic_probe;
  FakeAnswers<absl::StatusOr<CqOverrunResult>, CqOverrunRequest> cq_overrun_probe;
  FakeAnswers<absl::StatusOr<QpMemoryMeasurement>, QpMemoryRequest> measure_qp_memory;
  FakeAnswers<absl::StatusOr<BenchResult>, BenchCall> bench;

  std::string Describe() const override { return description_; }
  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override;
  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override;
  QueueMemory QpMemory(const QpRequest& req, const QpCaps& granted) const override;
  uint64_t CqMemory(uint32_t granted_cqe) const override;
  absl::StatusOr<ProbeResult> RunTrafficProbe(const ProbeRequest& req) override;
  absl::StatusOr<CqOverrunResult> RunCqOverrunProbe(const CqOverrunRequest& req) override;
  absl::StatusOr<QpMemoryMeasurement> MeasureQpMemory(const QpMemoryRequest& req) override;
  absl::StatusOr<BenchResult> RunBench(const BenchEnds& ends, const BenchSettings& s) override;

 private:
  std::string description_;
  std::unique_ptr<Device> fallback_;
};

}  // namespace rdmacheck::testing

#endif  // RDMACHECK_ACTS_TESTING_FAKE_DEVICE_H_
