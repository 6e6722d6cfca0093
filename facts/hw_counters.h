// ReadHwCounters: a port's hw_counters directory
// (<sysfs>/class/infiniband/<dev>/ports/<port>/hw_counters/*) as name ->
// value. rxe has sent_pkts, rcvd_pkts, send_err, retry_exceeded_err, ...
//
//   absl::StatusOr<Counters> c = ReadHwCounters("/sys", "rxe0", 1);
//   (*c)["sent_pkts"]
#ifndef RDMACHECK_FACTS_HW_COUNTERS_H_
#define RDMACHECK_FACTS_HW_COUNTERS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

// A counter name -> value map of ports/N/hw_counters.
using Counters = std::map<std::string, uint64_t>;
// after - before, per counter present in both (counters never go down; a
// reset shows as 0).
Counters CounterDelta(const Counters& before, const Counters& after);

// NotFound when the directory is absent (a driver without hw_counters);
// files that do not hold a number are left out.
absl::StatusOr<Counters> ReadHwCounters(absl::string_view sysfs_root, absl::string_view dev, int port);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_HW_COUNTERS_H_
