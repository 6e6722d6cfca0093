#include "util/side_by_side.h"

#include <exception>
#include <thread>

namespace rdmacheck {

std::vector<std::string> SideBySide(size_t n, const std::function<void(size_t)>& fn) {
  std::vector<std::string> thrown(n);
  auto run = [&](size_t i) {
    try {
      fn(i);
    } catch (const std::exception& e) {
      thrown[i] = e.what()[0] != '\0' ? e.what() : "exception";
    } catch (...) {
      thrown[i] = "unknown exception";
    }
  };
  std::vector<std::thread> others;
  for (size_t i = 1; i < n; ++i) others.emplace_back(run, i);
  if (n > 0) run(0);
  for (std::thread& t : others) t.join();
  return thrown;
}

}  // namespace rdmacheck
