#include "util/stop_flag.h"

#include <mutex>

namespace rdmacheck {
namespace {

constexpr int kChildSlots = 32;
std::atomic<pid_t> g_children[kChildSlots];
std::atomic<int> g_guards{0};
std::atomic<int> g_pending{0};
std::atomic<int> g_spawning{0};  // BeginSpawn .. EndSpawn, across threads
std::atomic<int> g_deferred{0};  // a signal that arrived while spawning
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void KillChildren() {
  for (std::atomic<pid_t>& c : g_children) {
    pid_t p = c.load();
    if (p > 0) ::kill(p, SIGKILL);
  }
}

// Async-signal-safe: atomics, kill, signal, raise.
void Act(int sig) {
  if (g_guards.load() > 0) {
    g_pending.store(sig);
    StopFlag().store(true);
    return;
  }
  KillChildren();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

extern "C" void OnStopSignal(int sig) {
  // A child spawned but not yet registered would be left running: the
  // spawner acts on the signal once it is registered (EndSpawn).
  if (g_guards.load() == 0 && g_spawning.load() > 0) {
    g_deferred.store(sig);
    return;
  }
  Act(sig);
}

}  // namespace

std::atomic<bool>& StopFlag() {
  // Lock-free, so a signal handler may store to it.
  static std::atomic<bool> flag{false};
  static_assert(std::atomic<bool>::is_always_lock_free);
  return flag;
}

void InstallStopSignals() {
  static std::once_flag once;
  std::call_once(once, [] {
    StopFlag();  // constructed before a handler can touch it
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction cur {};
      if (sigaction(sig, nullptr, &cur) != 0 || cur.sa_handler == SIG_IGN) continue;
      struct sigaction sa {};
      sa.sa_handler = OnStopSignal;
      sigemptyset(&sa.sa_mask);
      sigaction(sig, &sa, nullptr);
    }
  });
}

int PendingStopSignal() { return g_pending.load(); }

SigintGuard::SigintGuard() {
  InstallStopSignals();
  g_guards.fetch_add(1);
}

SigintGuard::~SigintGuard() {
  if (g_guards.fetch_sub(1) != 1) return;
  if (int sig = g_pending.exchange(0); sig != 0) ::raise(sig);  // no guard now: ends the process
}

void RegisterChild(pid_t pid) {
  for (std::atomic<pid_t>& c : g_children) {
    pid_t free_slot = 0;
    if (c.compare_exchange_strong(free_slot, pid)) return;
  }
}

void BeginSpawn() { g_spawning.fetch_add(1); }

void EndSpawn() {
  if (g_spawning.fetch_sub(1) != 1) return;
  if (int sig = g_deferred.exchange(0); sig != 0) Act(sig);
}

void UnregisterChild(pid_t pid) {
  for (std::atomic<pid_t>& c : g_children) {
    pid_t mine = pid;
    if (c.compare_exchange_strong(mine, 0)) return;
  }
}

}  // namespace rdmacheck
