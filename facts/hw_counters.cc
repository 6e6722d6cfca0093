#include "facts/hw_counters.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace rdmacheck {

std::optional<Counters> ReadCounterDir(const SysfsReader& fs, absl::string_view dir) {
  std::optional<std::vector<std::string>> names = fs.ListDir(dir);
  if (!names) return std::nullopt;
  Counters out;
  for (const std::string& n : *names) {
    if (n == "lifespan") continue;
    if (std::optional<uint64_t> v = fs.ReadNumber(absl::StrCat(dir, "/", n))) out[n] = *v;
  }
  return out;
}

absl::StatusOr<Counters> ReadHwCounters(absl::string_view sysfs_root, absl::string_view dev, int port) {
  const SysfsReader fs(sysfs_root);
  const std::string dir = absl::StrCat("class/infiniband/", dev, "/ports/", port, "/hw_counters");
  std::optional<Counters> c = ReadCounterDir(fs, dir);
  if (!c) return absl::NotFoundError(absl::StrCat("opendir(", fs.Path(dir), "): no hw_counters"));
  return *std::move(c);
}

Counters CounterDelta(const Counters& before, const Counters& after) {
  Counters d;
  for (const auto& [name, v] : after) {
    auto it = before.find(name);
    if (it == before.end()) continue;
    d[name] = v >= it->second ? v - it->second : 0;
  }
  return d;
}

}  // namespace rdmacheck
