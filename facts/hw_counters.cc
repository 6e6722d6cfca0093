#include "facts/hw_counters.h"

#include <dirent.h>

#include <fstream>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {

absl::StatusOr<Counters> ReadHwCounters(absl::string_view sysfs_root, absl::string_view dev, int port) {
  const std::string dir =
      absl::StrCat(sysfs_root, "/class/infiniband/", dev, "/ports/", port, "/hw_counters");
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) return absl::NotFoundError(absl::StrCat("opendir(", dir, "): no hw_counters"));
  Counters out;
  while (dirent* e = readdir(d.get())) {
    std::string name = e->d_name;
    if (name.empty() || name[0] == '.' || name == "lifespan") continue;
    std::ifstream f(absl::StrCat(dir, "/", name));
    std::string text;
    uint64_t v;
    if (f && std::getline(f, text) && absl::SimpleAtoi(text, &v)) out[name] = v;
  }
  return out;
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
