// Plan: what a deployment intends to create on a node. QP classes (how many
// QPs of which caps, completing into which CQs), CQs, SRQs, and what the
// fabric is expected to look like (path MTU, GID type and index, link layer,
// rate) plus memory budgets. Parsed from the INI-like file documented in
// docs/plan-format.md (plan/plan_parser.h); errors name file:line and field.
//
//   absl::StatusOr<Plan> plan = ReadPlanFile("fixtures/plans/config_a.plan");
//   for (const QpClass& qc : plan->qp_classes) ...
#ifndef RDMACHECK_PLAN_PLAN_H_
#define RDMACHECK_PLAN_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts/rdma_types.h"

namespace rdmacheck {

struct CqSpec {
  std::string name;
  int line = 0;          // where it was declared, for messages
  uint32_t cqe = 0;      // requested depth
  // How many CQs of this spec exist. The QPs completing into the spec are
  // spread evenly over them: count 1 = one shared CQ; count equal to a QP
  // class's count = one CQ per QP.
  uint32_t count = 1;
};

struct SrqSpec {
  std::string name;
  int line = 0;
  uint32_t max_wr = 0;
  uint32_t max_sge = 1;
  uint32_t count = 1;
  std::string cq;        // the CQ its receive completions go to (informational)
};

struct QpClass {
  std::string name;
  int line = 0;
  uint32_t count = 1;
  QpType type = QpType::kRc;
  QpCaps caps;           // as requested; max_recv_wr/sge ignored with an SRQ
  std::string send_cq;   // CqSpec name; empty: none planned
  std::string recv_cq;   // CqSpec name; empty: none planned
  std::string srq;       // SrqSpec name; empty: no SRQ
  uint64_t mr_bytes = 0; // memory each QP registers (buffers), for memlock
};

// [part ID]: what the deployment requires of every adapter of one part
// (vendor_part_id, as sysfs and ibv_devinfo print it in decimal).
struct PartSpec {
  uint32_t vendor_part_id = 0;
  int line = 0;
  std::optional<std::string> min_fw_ver;  // dotted, e.g. "16.35.2000"
};

// [counter NAME]: a port counter the deployment tolerates moving up to a
// rate (per second over link-health's window) instead of not at all.
struct CounterLimit {
  std::string name;                       // sysfs file name, e.g. "symbol_error"
  int line = 0;
  double max_per_s = 0;
};

// [perf]: what the node must measure (the bandwidth and latency checks).
struct PerfSpec {
  int line = 0;
  std::optional<double> min_write_bw_gbps;  // RDMA WRITE bandwidth, Gb/s
  int min_write_bw_line = 0;
  std::optional<double> max_write_lat_us;   // WRITE latency (median), us
  int max_write_lat_line = 0;
  std::optional<uint32_t> message_size;     // bytes of the bandwidth run (default 65536)
};

struct Plan {
  std::string path;      // file it came from; "<default>" for DefaultPlan()
  bool is_default = false;
  std::string name;
  std::string description;
  std::optional<std::string> device;     // the device it is for, e.g. "rxe0"
  int device_line = 0;                   // the line that names it, for messages
  std::optional<int> port;
  std::optional<int> path_mtu;           // bytes: 256..4096
  std::optional<GidType> gid_type;
  std::optional<int> gid_index;
  // The IP version of the RoCE v2 addresses the deployment uses (4: the
  // ::ffff:a.b.c.d GIDs; 6: global IPv6 GIDs; perftest --ipv6, rdma_cm's
  // address family). Unset: IPv4, as perftest and rdma_cm default.
  std::optional<int> ip_version;
  std::optional<std::string> link_layer; // "Ethernet" | "InfiniBand"
  std::optional<std::string> min_rate;   // as written, e.g. "100 Gb/sec"
  std::optional<double> min_rate_gbps;   // min_rate in Gb/s (port-rate judges it)
  int min_rate_line = 0;
  // Lanes the ports are expected to train at ("4X"); 2X for split cables.
  std::optional<std::string> link_width;
  int link_width_line = 0;
  std::optional<uint64_t> memory_budget; // bytes for all queue memory
  std::optional<uint64_t> mr_bytes;      // registered memory beyond per-QP mr_bytes
  std::vector<CqSpec> cqs;
  std::vector<SrqSpec> srqs;
  std::vector<QpClass> qp_classes;
  std::vector<PartSpec> parts;
  std::vector<CounterLimit> counter_limits;
  std::optional<PerfSpec> perf;

  const PartSpec* Part(uint32_t vendor_part_id) const;
  const CounterLimit* CounterLimitFor(const std::string& name) const;
  const CqSpec* Cq(const std::string& name) const;
  const SrqSpec* Srq(const std::string& name) const;
  // Sum of count over all QP classes.
  uint64_t TotalQps() const;
};

// The plan used when none is given: one RC QP class "default" of
// max_send_wr=max_recv_wr=128, max_send_sge=max_recv_sge=1, sharing one CQ
// "default_cq" of 256; path MTU, GID type and budgets unset (checks that need
// them say so). Documented in docs/plan-format.md.
Plan DefaultPlan();

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_PLAN_H_
