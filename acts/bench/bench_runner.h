// LiveRunner: the sweep's PointRunner (acts/bench/sweep.h) on real devices.
// It keeps one BenchSession while the points fit it, and before each
// dimension makes one that fits all of that dimension's points when the
// memory for it is within RLIMIT_MEMLOCK (else one per point), so a sweep
// pays for connection setup once per dimension, not once per point (the MTU
// points each need their own: the path MTU is set when a QP connects).
//
//   LiveRunner runner(ends);
//   SweepResult sw = RunSweep(runner, base, dims, 0, nullptr);
//   runner.sessions_opened()
#ifndef RDMACHECK_ACTS_BENCH_BENCH_RUNNER_H_
#define RDMACHECK_ACTS_BENCH_BENCH_RUNNER_H_

#include <memory>
#include <optional>
#include <vector>

#include "acts/bench/bench_session.h"
#include "acts/bench/sweep.h"

namespace rdmacheck {

class LiveRunner : public PointRunner {
 public:
  explicit LiveRunner(BenchEnds ends) : ends_(std::move(ends)) {}
  absl::StatusOr<BenchResult> Run(const BenchSettings& s) override;
  void Prepare(const std::vector<BenchSettings>& upcoming) override;
  absl::StatusOr<int> ActiveMtu() override;
  int sessions_opened() const { return opened_; }

 private:
  BenchEnds ends_;
  std::unique_ptr<BenchSession> session_;
  std::optional<SessionShape> next_;  // what Prepare asked for
  int opened_ = 0;
};

// The smallest shape that fits every one of `all` (same mode, op, MTU);
// nullopt when they differ in those.
std::optional<SessionShape> CoveringShape(const std::vector<BenchSettings>& all);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_BENCH_BENCH_RUNNER_H_
