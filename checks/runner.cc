#include "checks/runner.h"

#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <thread>

#include "absl/strings/str_format.h"

namespace rdmacheck {

Result RunOneCheck(const Check& check, const CheckContext& ctx) {
  auto start = std::chrono::steady_clock::now();
  // The promise lives in a shared_ptr: an overrunning check's thread keeps
  // it alive after we stop waiting.
  auto promise = std::make_shared<std::promise<Result>>();
  std::future<Result> fut = promise->get_future();
  std::thread worker([promise, &check, &ctx] {
    try {
      promise->set_value(check.Run(ctx));
    } catch (const std::exception& e) {
      promise->set_value(ResultBuilder::CouldNotRun(check, std::string(check.summary()),
                                                    absl::StrFormat("internal error: %s", e.what())));
    } catch (...) {
      promise->set_value(ResultBuilder::CouldNotRun(check, std::string(check.summary()),
                                                    "internal error: unknown exception"));
    }
  });
  auto deadline = std::chrono::duration<double>(ctx.options.check_deadline_s);
  Result r;
  if (fut.wait_for(deadline) == std::future_status::ready) {
    worker.join();
    r = fut.get();
  } else {
    worker.detach();
    r = ResultBuilder::CouldNotRun(
        check, std::string(check.summary()),
        absl::StrFormat("no answer within its deadline of %g s (--check-deadline)",
                        ctx.options.check_deadline_s));
  }
  if (r.id.empty()) r.id = std::string(check.id());
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<Result> RunChecks(const std::vector<const Check*>& checks, const CheckContext& ctx) {
  std::vector<Result> out;
  out.reserve(checks.size());
  for (const Check* c : checks) out.push_back(RunOneCheck(*c, ctx));
  return out;
}

}  // namespace rdmacheck
