// A run where every read of the wall clock is slow, as under `strace -f` in
// an emulated guest (each system call a ptrace stop of a millisecond or
// more): the run must still end. absl::Now() retried its clock read until one
// took under about 1.3 million TSC cycles, so such a run hung at its first
// timestamp (util/clock.h WallNow).
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <memory>

#include "checks/registry.h"
#include "checks/session.h"
#include "gtest/gtest.h"

// Interposes the C library's clock_gettime for this test binary (and the
// abseil archive linked into it): CLOCK_REALTIME reads take 4 million TSC
// cycles, over abseil's bound; the other clocks are left fast.
extern "C" int clock_gettime(clockid_t clock, struct timespec* ts) {
  if (clock == CLOCK_REALTIME) {
    const unsigned long long start = __rdtsc();
    while (__rdtsc() - start < 4000000ULL) {
    }
  }
  return static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
}

namespace rdmacheck {
namespace {

TEST(SessionWithSlowWallClock, RunEnds) {
  auto run = std::make_shared<std::packaged_task<RunReport()>>([] {
    InputSources src;
    src.profile = "fixtures/profiles/rxe_mtu9000.profile";
    src.plan = "fixtures/plans/config_a.plan";
    absl::StatusOr<RunInputs> in = LoadRunInputs(src, 0);
    if (!in.ok()) return RunReport{};
    return Session().Run(*in, {FindCheck("device-present")});
  });
  std::future<RunReport> done = run->get_future();
  std::thread([run] { (*run)(); }).detach();
  if (done.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    // The run's thread cannot be joined: end the test binary failed.
    std::fprintf(stderr, "FAIL: a run with a slow wall clock did not end within 30 s\n");
    std::fflush(stderr);
    _exit(1);
  }
  RunReport rep = done.get();
  ASSERT_EQ(rep.results.size(), 1u);
  EXPECT_EQ(rep.results[0].verdict, Verdict::kPass);
  EXPECT_FALSE(rep.started_at.empty());
}

}  // namespace
}  // namespace rdmacheck
