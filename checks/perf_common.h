// What the bandwidth and latency checks share: the pair they measure (the
// probes' peer choice), the run's settings, a run that could not be made or
// ended early reported through the hung-qp probe's classification, and the
// likely causes of a slow figure with the commands to check each.
#ifndef RDMACHECK_CHECKS_PERF_COMMON_H_
#define RDMACHECK_CHECKS_PERF_COMMON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/bench_types.h"
#include "checks/check.h"
#include "checks/hung_qp.h"
#include "checks/qdisc_path.h"

namespace rdmacheck {

struct PerfTarget {
  const DeviceInfo* dev = nullptr;
  int port = 1;
  PeerChoice peer;
  BenchEnds ends;
  std::string pair;  // "rxe0 -> rxe1"
};
PerfTarget PerfTargetFor(const CheckContext& ctx, const DeviceInfo& dev);

// The selected devices' pairs, each measured once: rxe1 -> rxe0 is left out
// when rxe0 -> rxe1 is measured (the same QPs, the same path); a note says so.
std::vector<PerfTarget> PerfTargets(const CheckContext& ctx, ResultBuilder& b);

// The bench run of a check: short enough for the checklist (the bandwidth
// run stops once stable, within about a second), with the probes' deadline.
BenchSettings BandwidthCheckSettings(const Plan& plan);
BenchSettings LatencyCheckSettings();

// "-s 65536 -q 1 -l 1 --cq-mod 1 -t 128 -m 4096, 1.02 s, 340 messages"
std::string RunSettingsText(const BenchResult& r);

// A run that could not be set up (WARN with the remedy: port-active,
// memlock), or that ended early (FAIL): the figures so far, the QP state
// and, for a stall or an error completion, the cause as hung-qp classifies
// it from a short exchange over the same pair (so the remedy is the one
// hung-qp would give). `what`: "bandwidth" or "latency".
void ReportRunProblem(const CheckContext& ctx, Device& d, const PerfTarget& t,
                      const absl::StatusOr<BenchResult>& got, absl::string_view what, ResultBuilder& b);

// The qdiscs on the pair's path (checks/qdisc_path.h).
QdiscPath QdiscPathOf(const CheckContext& ctx, const PerfTarget& t);

// Before a run: when a qdisc on the sending netdev passes no RoCE frame of
// the active MTU, a FAIL naming it with the remedy (rxe retries a packet its
// qdisc refused without end, so a run at that MTU would leave the QP stuck
// in the kernel), and the settings moved to the largest MTU that fits
// (a note says so). False when nothing fits: no run is made.
bool AvoidDroppingQdisc(const CheckContext& ctx, const PerfTarget& t, BenchSettings* s, ResultBuilder& b);

// The likely causes of a figure short of its threshold, most likely first,
// each with the command that checks it (the path MTU against the netdevs',
// pinning, NUMA locality on hardware, the firewall, the netdev's qdisc).
std::vector<std::string> SlowCauses(const CheckContext& ctx, const PerfTarget& t, const BenchResult& r);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_PERF_COMMON_H_
