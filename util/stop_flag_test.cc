#include "util/stop_flag.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "util/clock.h"
#include "util/subprocess.h"

namespace rdmacheck {
namespace {

std::string TempPath(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + std::to_string(::getpid());
}

// Dead, or a zombie waiting for its new parent to reap it.
bool Gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string skip, comm, state;
  stat >> skip >> comm >> state;
  return state == "Z";
}

pid_t ReadPid(const std::string& path, double within_s) {
  const double end = MonotonicSeconds() + within_s;
  while (MonotonicSeconds() < end) {
    std::ifstream in(path);
    pid_t p = 0;
    if (in >> p && p > 0) return p;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// SIGTERM outside any guard ends the process as by default (WTERMSIG is
// SIGTERM), and the program RunSubprocess was waiting for dies with it.
TEST(StopSignals, TermOutsideAGuardKillsTheChildAndEndsTheProcess) {
  const std::string pidfile = TempPath("child_pid");
  std::remove(pidfile.c_str());
  pid_t p = ::fork();
  ASSERT_GE(p, 0);
  if (p == 0) {
    InstallStopSignals();
    std::thread t([&] { (void)RunSubprocess({"sh", "-c", "echo $$ > " + pidfile + "; exec sleep 30"}, 60); });
    if (ReadPid(pidfile, 10) == 0) ::_exit(3);
    ::kill(::getpid(), SIGTERM);
    std::this_thread::sleep_for(std::chrono::seconds(5));
    ::_exit(4);  // not reached: the signal ended the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(p, &status, 0), p);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  pid_t child = ReadPid(pidfile, 1);
  ASSERT_GT(child, 0);
  const double end = MonotonicSeconds() + 2;
  while (!Gone(child) && MonotonicSeconds() < end) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(Gone(child)) << "sleep " << child << " outlived its parent";
}

// Inside nested guards SIGTERM raises the stop flag and waits; the end of
// the outermost guard passes it on.
TEST(StopSignals, TermInsideGuardsWaitsForTheOutermostToEnd) {
  pid_t p = ::fork();
  ASSERT_GE(p, 0);
  if (p == 0) {
    {
      SigintGuard outer;
      {
        SigintGuard inner;
        ::kill(::getpid(), SIGTERM);
        if (!StopFlag().load() || PendingStopSignal() != SIGTERM) ::_exit(5);
      }
      // The inner guard ended: still here, the signal still pending.
      if (PendingStopSignal() != SIGTERM) ::_exit(6);
      if (::write(STDOUT_FILENO, "", 0) != 0) ::_exit(7);
    }
    ::_exit(8);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(p, &status, 0), p);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

// A guard with no signal ends quietly, and SIGINT inside one is SIGINT
// (exit status 130 from a shell) when it is passed on.
TEST(StopSignals, IntInsideAGuardIsPassedOnAsInt) {
  pid_t p = ::fork();
  ASSERT_GE(p, 0);
  if (p == 0) {
    { SigintGuard quiet; }
    if (PendingStopSignal() != 0) ::_exit(5);
    {
      SigintGuard g;
      ::kill(::getpid(), SIGINT);
    }
    ::_exit(8);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(p, &status, 0), p);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

}  // namespace
}  // namespace rdmacheck
