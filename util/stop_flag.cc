#include "util/stop_flag.h"

namespace rdmacheck {

std::atomic<bool>& StopFlag() {
  // Lock-free, so a signal handler may store to it.
  static std::atomic<bool> flag{false};
  static_assert(std::atomic<bool>::is_always_lock_free);
  return flag;
}

}  // namespace rdmacheck
