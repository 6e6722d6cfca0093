// PhaseLog: where a run's wall time went, one line per phase, in the order
// the phases ended ("gather.sysfs 0.41 s", "gather.verbs 0.12 s", ...). The
// JSON report carries it (docs/output-formats.md#timing) so that a slow run
// says which part was slow.
//
//   PhaseLog log;
//   {
//     PhaseTimer t(&log, "gather.rulesets");   // a null log times nothing
//     ReadRulesets(...);
//   }
//   log.Add("gather.verbs", 0.12);             // time summed by the caller
#ifndef RDMACHECK_UTIL_PHASE_LOG_H_
#define RDMACHECK_UTIL_PHASE_LOG_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/clock.h"

namespace rdmacheck {

struct Phase {
  std::string name;
  double seconds = 0;
};

class PhaseLog {
 public:
  void Add(std::string name, double seconds) { phases_.push_back({std::move(name), seconds}); }
  void Append(const PhaseLog& other) {
    phases_.insert(phases_.end(), other.phases_.begin(), other.phases_.end());
  }
  const std::vector<Phase>& phases() const { return phases_; }

 private:
  std::vector<Phase> phases_;
};

// Adds the time from its construction to its destruction to `log` as `name`.
class PhaseTimer {
 public:
  PhaseTimer(PhaseLog* log, std::string name)
      : log_(log), name_(std::move(name)), start_(MonotonicSeconds()) {}
  ~PhaseTimer() {
    if (log_ != nullptr) log_->Add(std::move(name_), MonotonicSeconds() - start_);
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  PhaseLog* log_;
  std::string name_;
  double start_;
};

// How long ago this process started, from /proc/self/stat's starttime and
// /proc/uptime (the kernel's clock ticks: 10 ms steps). At the top of main
// it is the startup cost: exec, the dynamic loader, static constructors.
// nullopt when either file cannot be read or parsed.
std::optional<double> ProcessAgeSeconds(const std::string& proc_root = "/proc");

// The same from the two files' contents (for its test).
std::optional<double> ProcessAgeFrom(const std::string& self_stat, const std::string& uptime, long ticks_per_s);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_PHASE_LOG_H_
