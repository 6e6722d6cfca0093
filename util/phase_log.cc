#include "util/phase_log.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rdmacheck {
namespace {

std::optional<std::string> Slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

std::optional<double> ProcessAgeFrom(const std::string& self_stat, const std::string& uptime, long ticks_per_s) {
  if (ticks_per_s <= 0) return std::nullopt;
  // proc(5): "pid (comm) state ppid ... starttime" with starttime field 22;
  // comm may hold spaces and parentheses, so count from the last ')'.
  const size_t paren = self_stat.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(self_stat.substr(paren + 1));
  std::string f;
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> f)) return std::nullopt;
  }
  char* end = nullptr;
  const unsigned long long start_ticks = std::strtoull(f.c_str(), &end, 10);
  if (end == f.c_str() || *end != '\0') return std::nullopt;
  const char* u = uptime.c_str();
  const double up = std::strtod(u, &end);
  if (end == u) return std::nullopt;
  const double age = up - static_cast<double>(start_ticks) / static_cast<double>(ticks_per_s);
  // A tick's rounding can make a fresh process look a little younger than 0.
  return age < 0 ? 0 : std::round(age * 1000) / 1000;
}

std::optional<double> ProcessAgeSeconds(const std::string& proc_root) {
  std::optional<std::string> stat = Slurp(proc_root + "/self/stat");
  std::optional<std::string> up = Slurp(proc_root + "/uptime");
  if (!stat || !up) return std::nullopt;
  return ProcessAgeFrom(*stat, *up, sysconf(_SC_CLK_TCK));
}

}  // namespace rdmacheck
