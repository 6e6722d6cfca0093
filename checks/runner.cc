#include "checks/runner.h"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_format.h"
#include "util/clock.h"
#include "util/stop_flag.h"

namespace rdmacheck {
namespace {

// What a check's thread reads, owned jointly by the runner and the thread:
// a check that overruns keeps its copy alive instead of reading the caller's
// stack after RunChecks has returned.
struct SharedInputs {
  explicit SharedInputs(const CheckContext& ctx)
      : view(ctx.view), plan(ctx.plan), options(ctx.options), device_for(ctx.device_for) {}
  const DeviceView view;
  const Plan plan;
  const Options options;
  const DeviceFactory device_for;
};

// One check's run on its thread.
struct Job {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Result> result;
};

Result RunGuarded(const Check& check, const CheckContext& ctx) {
  try {
    return check.Run(ctx);
  } catch (const std::exception& e) {
    return ResultBuilder::CouldNotRun(check, std::string(check.summary()),
                                      absl::StrFormat("internal error: %s", e.what()));
  } catch (...) {
    return ResultBuilder::CouldNotRun(check, std::string(check.summary()), "internal error: unknown exception");
  }
}

// Waits until the job has a result or `seconds` pass.
bool WaitFor(Job& job, double seconds) {
  std::unique_lock<std::mutex> lock(job.mu);
  return job.cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return job.result.has_value(); });
}

// Runs `check` on its own thread; *stuck is set when it did not return even
// after the stop flag was raised and the grace period ran out.
Result RunWithDeadline(const Check& check, std::shared_ptr<const SharedInputs> in, bool* stuck) {
  const double start = MonotonicSeconds();
  auto job = std::make_shared<Job>();
  std::thread worker([job, in, &check] {
    CheckContext ctx{in->view, in->plan, in->options, in->device_for};
    Result r = RunGuarded(check, ctx);
    std::lock_guard<std::mutex> lock(job->mu);
    job->result = std::move(r);
    job->cv.notify_all();
  });
  const Options& o = in->options;
  Result r;
  if (WaitFor(*job, o.check_deadline_s)) {
    worker.join();
    r = *std::move(job->result);
  } else {
    // Ask every probe wait to stop; a probe then tears down its QPs, CQs,
    // MRs and PDs (RAII) and returns.
    StopFlag().store(true);
    const bool stopped = WaitFor(*job, o.stop_grace_s);
    std::string why = absl::StrFormat("no answer within its deadline of %g s (--check-deadline)", o.check_deadline_s);
    if (stopped) {
      worker.join();
      // A SIGINT or SIGTERM that came meanwhile keeps it raised.
      if (PendingStopSignal() == 0) StopFlag().store(false);
      why += "; stopped, and everything it held on the device released before the next check";
    } else {
      // Its thread owns its inputs (SharedInputs), so it may finish later.
      worker.detach();
      *stuck = true;
      why += absl::StrFormat("; still running %g s after it was told to stop", o.stop_grace_s);
    }
    r = ResultBuilder::CouldNotRun(check, std::string(check.summary()), why);
  }
  if (r.id.empty()) r.id = std::string(check.id());
  r.seconds = MonotonicSeconds() - start;
  return r;
}

}  // namespace

Result RunOneCheck(const Check& check, const CheckContext& ctx) {
  bool stuck = false;
  return RunWithDeadline(check, std::make_shared<const SharedInputs>(ctx), &stuck);
}

std::vector<Result> RunChecks(const std::vector<const Check*>& checks, const CheckContext& ctx,
                              std::string* stuck_before) {
  auto in = std::make_shared<const SharedInputs>(ctx);
  std::vector<Result> out;
  out.reserve(checks.size());
  std::string own;
  std::string& stuck_id = stuck_before ? *stuck_before : own;  // a check still running past its deadline
  for (const Check* c : checks) {
    if (!stuck_id.empty() && (c->needs() & kNeedsDevice)) {
      Result r = ResultBuilder::CouldNotRun(
          *c, std::string(c->summary()),
          absl::StrFormat("not started: %s is still running past its deadline and may hold the device", stuck_id));
      r.id = std::string(c->id());
      out.push_back(std::move(r));
      continue;
    }
    bool stuck = false;
    out.push_back(RunWithDeadline(*c, in, &stuck));
    if (stuck) stuck_id = std::string(c->id());
  }
  return out;
}

}  // namespace rdmacheck
