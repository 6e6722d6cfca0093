// Whole-process wall time of one rdmacheck run: fork+exec the real binary N
// times and print min / median / p90 / max in milliseconds.
//
//   bazel run -c opt //bench:wall_time -- [N] [rdmacheck args...]
// Defaults: N = 50, args = --profile fixtures/profiles/rxe_mtu9000.profile
//   --plan fixtures/plans/config_a.plan --format=json
// The target is under 50 ms (README, Benchmarks); the exit status is 1 when
// the median is over.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

int main(int argc, char** argv) {
  // Under `bazel run` the cwd is the runfiles tree's workspace folder.
  int n = argc > 1 ? std::atoi(argv[1]) : 50;
  if (n < 1 || n > 10000) {
    std::fprintf(stderr, "wall_time: N must be 1..10000\n");
    return 2;
  }
  std::vector<std::string> args = {"./rdmacheck"};
  if (argc > 2) {
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  } else {
    args.insert(args.end(), {"--profile", "fixtures/profiles/rxe_mtu9000.profile", "--plan",
                             "fixtures/plans/config_a.plan", "--format=json"});
  }
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    if (posix_spawn(&pid, cargs[0], &fa, nullptr, cargs.data(), environ) != 0) {
      std::perror("wall_time: posix_spawn ./rdmacheck");
      return 2;
    }
    int st;
    waitpid(pid, &st, 0);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!WIFEXITED(st) || WEXITSTATUS(st) >= 2) {
      std::fprintf(stderr, "wall_time: rdmacheck exited with %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      return 2;
    }
  }
  std::sort(ms.begin(), ms.end());
  double med = ms[ms.size() / 2];
  std::printf("rdmacheck wall time over %d runs: min %.1f ms, median %.1f ms, p90 %.1f ms, max %.1f ms\n",
              n, ms.front(), med, ms[ms.size() * 9 / 10], ms.back());
  std::printf("args:");
  for (size_t i = 1; i < args.size(); ++i) std::printf(" %s", args[i].c_str());
  std::printf("\n");
  return med < 50 ? 0 : 1;
}
