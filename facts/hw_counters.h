// The one reader of a port's counter directories in sysfs: hw_counters
// (<sysfs>/class/infiniband/<dev>/ports/<port>/hw_counters/*, the driver's:
// rxe has sent_pkts, rcvd_pkts, send_err, retry_exceeded_err, ...) and
// counters (the IB PMA's: port_xmit_data, symbol_error, ...), as
// name -> value. The gather reads both with ReadCounterDir; the probe
// snapshots hw_counters with ReadHwCounters.
//
//   absl::StatusOr<Counters> c = ReadHwCounters("/sys", "rxe0", 1);
//   (*c)["sent_pkts"]
#ifndef RDMACHECK_FACTS_HW_COUNTERS_H_
#define RDMACHECK_FACTS_HW_COUNTERS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/sysfs.h"

namespace rdmacheck {

// A counter name -> value map of ports/N/hw_counters.
using Counters = std::map<std::string, uint64_t>;

// One counter read twice (a probe's before and after, a window's start and
// end).
struct CounterMove {
  std::string name;
  uint64_t before = 0;
  uint64_t after = 0;
  // Counters only grow: lower at the end is a reset or a wrap, not a move.
  bool went_back() const { return after < before; }
  uint64_t delta() const { return went_back() ? 0 : after - before; }
};
// The counters present in both samples, by name.
std::vector<CounterMove> CounterMoves(const Counters& before, const Counters& after);
// Their delta() by name (a reset shows as 0).
Counters CounterDelta(const Counters& before, const Counters& after);

// The numeric files of `dir` (relative to fs's root); "N/A (no PMA)" and the
// "lifespan" setting (drivers/infiniband/core/sysfs.c) are not counters and
// are left out. nullopt when `dir` is not a readable directory. A file that
// gives neither a number nor "N/A" (a read error, garbage) is named in
// `unreadable` when given, as "<last component of dir>/<name>".
std::optional<Counters> ReadCounterDir(const SysfsReader& fs, absl::string_view dir,
                                       std::vector<std::string>* unreadable = nullptr);

// Both counter directories of one port, as gathering and the window read them.
struct PortCounterSample {
  Counters counters;     // ports/N/counters (the PMA's)
  Counters hw_counters;  // ports/N/hw_counters (the driver's)
  std::vector<std::string> unreadable;
};
PortCounterSample ReadPortCounters(const SysfsReader& fs, absl::string_view dev, int port);

// NotFound when the directory is absent (a driver without hw_counters).
absl::StatusOr<Counters> ReadHwCounters(absl::string_view sysfs_root, absl::string_view dev, int port);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_HW_COUNTERS_H_
