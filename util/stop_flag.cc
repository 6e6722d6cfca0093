#include "util/stop_flag.h"

namespace rdmacheck {
namespace {

// A SIGINT also marks itself, so the guard knows to pass it on.
std::atomic<bool> g_sigint{false};

extern "C" void OnSigint(int) {
  g_sigint.store(true);
  StopFlag().store(true);
}

}  // namespace

std::atomic<bool>& StopFlag() {
  // Lock-free, so a signal handler may store to it.
  static std::atomic<bool> flag{false};
  static_assert(std::atomic<bool>::is_always_lock_free);
  return flag;
}

SigintGuard::SigintGuard() {
  StopFlag();  // constructed before a handler can touch it
  struct sigaction cur {};
  if (sigaction(SIGINT, nullptr, &cur) != 0 || cur.sa_handler == SIG_IGN) return;
  g_sigint.store(false);
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  installed_ = sigaction(SIGINT, &sa, &old_) == 0;
}

SigintGuard::~SigintGuard() {
  if (!installed_) return;
  sigaction(SIGINT, &old_, nullptr);
  if (g_sigint.load()) raise(SIGINT);  // default action: exit status 130
}

}  // namespace rdmacheck
