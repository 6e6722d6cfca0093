// MeasureQpMemory: create N QPs of one class on a live device and read the
// process's memory before and after, so memory-budget can show measured
// bytes per QP beside its driver model. The PD, the CQ the QPs share (and
// the SRQ, if the class uses one) are made before the first snapshot, so
// the difference is the QPs' own: their queues and driver context.
//
//   QpMemoryRequest req;
//   req.device = "rxe0"; req.caps = {.max_send_wr = 255, ...}; req.count = 2;
//   ASSIGN_OR_RETURN(QpMemoryMeasurement m, MeasureQpMemory(req));
//   m.PerQp(m.before.vm_rss, m.after.vm_rss);   // rxe: the mmap'ed queues
//
// Bounded: at most QpMemoryRequest::kMaxQps QPs, creation stops at the
// deadline or on SIGINT (SigintGuard), and everything is released before it
// returns, on every path.
#ifndef RDMACHECK_ACTS_PROBE_QP_MEMORY_H_
#define RDMACHECK_ACTS_PROBE_QP_MEMORY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "acts/qp_memory_types.h"

namespace rdmacheck {

// Reads "VmRSS:  1234 kB"-style lines of /proc/self/status (VmRSS, VmPin,
// VmLck) and /proc/meminfo (VmallocUsed) text into `out`; fields absent stay
// unset. InvalidArgument "<what>:<line>: ..." for a known field whose value
// is not "<number> kB".
absl::Status ParseMemoryFields(absl::string_view text, absl::string_view what, MemorySnapshot* out);

// The bytes mapped from /dev/infiniband/uverbs* in /proc/self/maps text.
uint64_t UverbsMappedBytes(absl::string_view maps);

// The three files, read now.
absl::StatusOr<MemorySnapshot> ReadMemorySnapshot(const std::string& status_path = "/proc/self/status",
                                                  const std::string& meminfo_path = "/proc/meminfo",
                                                  const std::string& maps_path = "/proc/self/maps");

// InvalidArgument for count 0 or > kMaxQps, deadline outside (0, 60], no
// device. NotFound for a missing device; a failed PD/CQ/SRQ is that verbs
// error. A QP create that fails ends the series (stopped says why); when
// not even the first succeeds, that error is returned.
absl::StatusOr<QpMemoryMeasurement> MeasureQpMemory(const QpMemoryRequest& req);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_QP_MEMORY_H_
