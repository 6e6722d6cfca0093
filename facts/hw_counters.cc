#include "facts/hw_counters.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "util/numbers.h"

namespace rdmacheck {

std::optional<Counters> ReadCounterDir(const SysfsReader& fs, absl::string_view dir,
                                       std::vector<std::string>* unreadable) {
  std::optional<std::vector<std::string>> names = fs.ListDir(dir);
  if (!names) return std::nullopt;
  const absl::string_view last = dir.substr(dir.rfind('/') + 1);
  Counters out;
  for (const std::string& n : *names) {
    if (n == "lifespan") continue;
    std::optional<std::string> text = fs.ReadValue(absl::StrCat(dir, "/", n));
    std::optional<uint64_t> v = text ? ParseUnsigned(*text) : std::nullopt;
    if (v) {
      out[n] = *v;
    } else if (unreadable != nullptr && !(text && absl::StartsWith(*text, "N/A"))) {
      unreadable->push_back(absl::StrCat(last, "/", n));
    }
  }
  return out;
}

PortCounterSample ReadPortCounters(const SysfsReader& fs, absl::string_view dev, int port) {
  const std::string pdir = absl::StrCat("class/infiniband/", dev, "/ports/", port);
  PortCounterSample s;
  s.counters = ReadCounterDir(fs, JoinPath(pdir, "counters"), &s.unreadable).value_or(Counters{});
  s.hw_counters = ReadCounterDir(fs, JoinPath(pdir, "hw_counters"), &s.unreadable).value_or(Counters{});
  return s;
}

absl::StatusOr<Counters> ReadHwCounters(absl::string_view sysfs_root, absl::string_view dev, int port) {
  const SysfsReader fs(sysfs_root);
  const std::string dir = absl::StrCat("class/infiniband/", dev, "/ports/", port, "/hw_counters");
  std::optional<Counters> c = ReadCounterDir(fs, dir);
  if (!c) return absl::NotFoundError(absl::StrCat("opendir(", fs.Path(dir), "): no hw_counters"));
  return *std::move(c);
}

std::vector<CounterMove> CounterMoves(const Counters& before, const Counters& after) {
  std::vector<CounterMove> out;
  for (const auto& [name, v] : after) {
    auto it = before.find(name);
    if (it != before.end()) out.push_back({name, it->second, v});
  }
  return out;
}

Counters CounterDelta(const Counters& before, const Counters& after) {
  Counters d;
  for (const CounterMove& m : CounterMoves(before, after)) d[m.name] = m.delta();
  return d;
}

}  // namespace rdmacheck
