#include "util/phase_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "util/input_file.h"

namespace rdmacheck {
namespace {

// A /proc file of one line (stat, uptime), through the one bounded reader.
std::optional<std::string> ReadProcLine(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  bool over = false;
  const int err = ReadFdBounded(fd, 4096, &text, &over);
  close(fd);
  if (err != 0) return std::nullopt;
  return text;
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
  std::optional<std::string> stat = ReadProcLine(proc_root + "/self/stat");
  std::optional<std::string> up = ReadProcLine(proc_root + "/uptime");
  if (!stat || !up) return std::nullopt;
  return ProcessAgeFrom(*stat, *up, sysconf(_SC_CLK_TCK));
}

}  // namespace rdmacheck
