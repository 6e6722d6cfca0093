// QpRecord: one QP as the kernel's RDMA netlink resource dump reports it
// (what `rdma -j -d res show qp` prints, iproute2 rdma/res-qp.c), and the
// code to get and parse that dump.
//
//   absl::StatusOr<std::string> text = RunRdmaQpDump(/*deadline_s=*/5);
//   absl::StatusOr<std::vector<QpRecord>> qps = ParseRdmaQpJson(*text, "rdma");
//   for (const QpRecord& q : *qps) ... q.ifname, q.lqpn, q.state, q.sq_psn
#ifndef RDMACHECK_TOOLS_WATCH_QP_DUMP_H_
#define RDMACHECK_TOOLS_WATCH_QP_DUMP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

struct QpRecord {
  std::string ifname;                 // RDMA device, "rxe0"
  int port = 0;                       // 0: no port assigned yet (RESET/INIT)
  uint32_t lqpn = 0;
  std::optional<uint32_t> rqpn;       // connected types only
  std::string type;                   // "RC", "UD", "GSI", ...
  std::string state;                  // "RTS", "ERR", ...
  std::optional<uint32_t> sq_psn;     // 24-bit
  std::optional<uint32_t> rq_psn;     // connected types only
  std::string path_mig_state;         // "MIGRATED", "ARMED", "REARM" or ""
  std::optional<int64_t> pid;         // absent for kernel-owned QPs
  std::string comm;                   // "ib_write_bw", "[ib_core]" for kernel QPs
  std::optional<uint32_t> pdn;

  // "rxe0/1 qp 17": how evidence names it.
  std::string Name() const;
};

// Parses the JSON array `rdma -j [-d] res show qp` prints. Unknown keys are
// ignored; a record without ifname or lqpn, or a value of the wrong type, is
// InvalidArgument naming `source`, the record index and the key.
absl::StatusOr<std::vector<QpRecord>> ParseRdmaQpJson(absl::string_view text,
                                                      absl::string_view source);

// Runs `rdma -j -d res show qp` through RunSubprocess (util/subprocess.h),
// killing it after `deadline_s`: DeadlineExceeded then; NotFound saying to
// install iproute2 when the tool is missing; Internal with its stderr when
// it exits non-zero. `argv0` overrides the program (tests).
absl::StatusOr<std::string> RunRdmaQpDump(double deadline_s, const std::string& argv0 = "rdma");

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_WATCH_QP_DUMP_H_
