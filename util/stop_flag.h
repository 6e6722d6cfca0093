// StopFlag: the one flag that every bounded wait of a probe polls. SIGINT
// and SIGTERM raise it inside a SigintGuard's scope, and so does the check
// runner when a check overruns its deadline (checks/runner.h): the probe
// then releases everything it holds and returns at once, so the next check
// never shares a device with it.
//
//   while (!StopFlag().load() && MonotonicSeconds() < end) { ...poll... }
//
// Outside every guard's scope a SIGINT, SIGTERM or SIGHUP ends the process
// at once, as by default, but first kills the programs RunSubprocess is
// waiting for (RegisterChild), so none is left running without its parent.
#ifndef RDMACHECK_UTIL_STOP_FLAG_H_
#define RDMACHECK_UTIL_STOP_FLAG_H_

#include <signal.h>
#include <sys/types.h>

#include <atomic>

namespace rdmacheck {

std::atomic<bool>& StopFlag();

// Installs the handler for SIGINT, SIGTERM and SIGHUP (each unless it is
// ignored, as under nohup). Idempotent; main calls it first, a guard calls
// it too.
void InstallStopSignals();

// The signal that arrived inside a guard's scope and is not yet passed on;
// 0 when none. The runner keeps StopFlag raised while one is pending.
int PendingStopSignal();

// While a guard lives, SIGINT, SIGTERM and SIGHUP raise StopFlag() instead of ending
// the process; when the outermost guard ends, a signal that arrived is
// raised again (exit status 130 for SIGINT, 143 for SIGTERM) once
// everything is released. Declared first in a scope, so it is destroyed
// last. Guards nest.
class SigintGuard {
 public:
  SigintGuard();
  ~SigintGuard();
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;
};

// The children a process-ending signal kills first (RunSubprocess's).
// Slots are lock-free, so the handler may read them; a child past the last
// slot is not tracked.
void RegisterChild(pid_t pid);
void UnregisterChild(pid_t pid);

// Around a spawn and its RegisterChild: a process-ending signal that arrives
// in between (the child running, not yet registered, so not killed) waits
// for EndSpawn, which then acts on it.
//   BeginSpawn(); rc = posix_spawnp(&pid, ...); if (rc == 0) RegisterChild(pid); EndSpawn();
void BeginSpawn();
void EndSpawn();

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_STOP_FLAG_H_
