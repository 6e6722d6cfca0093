// `rdmacheck bench`: one bandwidth or latency run with perftest's flags, or
// a sweep of the tuning dimensions with advice drawn from what this node
// measured (docs/bench.md). The far end is another local device
// (--peer-dev), the same device (loopback QPs), or a device of another host
// through its `rdmacheck serve` (--peer, tools/peer/remote_bench.h).
//
//   BenchOptions o;
//   o.ends.device = "rxe0";
//   o.ends.peer_device = "rxe1";
//   o.sweep = "qp,post_list";
//   int code = RunBenchCommand(o, std::cout, std::cerr);
#ifndef RDMACHECK_TOOLS_BENCH_BENCH_COMMAND_H_
#define RDMACHECK_TOOLS_BENCH_BENCH_COMMAND_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/bench_types.h"
#include "facts/device_view.h"

namespace rdmacheck {

struct BenchOptions {
  BenchEnds ends;  // ends.device empty: the first device libibverbs lists
  BenchSettings settings;
  bool latency = false;             // --lat
  std::optional<std::string> sweep;  // --sweep DIMS
  bool advise = false;              // --advise
  std::string format = "text";      // text | json | csv
  bool report_gbits = false;        // --report_gbits
  std::optional<std::string> plot;  // --plot FILE (SVG)
  std::optional<std::string> pin;   // --pin CPUS
  std::optional<std::string> peer;  // --peer HOST[:PORT]: the far end is that host's `rdmacheck serve`
  bool progress = true;             // the sweep's progress line on stderr
  // -s / -n given: else --lat takes ib_write_lat's defaults (2 bytes, 1000).
  bool size_given = false, iters_given = false;
  std::optional<int> tx_depth;  // -t; unset: 128, or ib_write_lat's 1 with --lat
};

// What a qdisc on the sending netdev means for a run (`view`: this host's,
// with the netdevs' qdiscs read). A token bucket smaller than a RoCE frame
// drops every full-size packet, and rxe retries each without end: the run
// would leave its QP stuck in the kernel (docs/checks/bandwidth.md). Then
// the run moves to the largest path MTU whose frames pass (s->mtu, and
// *warning says why and how to fix the qdisc), or, when -m asked for more
// or the sweep covers the MTU, FailedPrecondition naming the qdisc. OK and
// nothing changed otherwise.
absl::Status FitUnderQdiscs(const DeviceView& view, const BenchOptions& o, BenchSettings* s, std::string* warning);

// "0", "0,2", "1-3", "0,4-5": the CPUs; InvalidArgument naming the word.
absl::StatusOr<std::vector<int>> ParseCpuList(const std::string& text);

// Exit status: 0 every run completed, 1 a run ended early (stalled, an error
// completion, interrupted: the output says which and why), 2 bad usage, 3
// nothing could run (no device, a port not ACTIVE, RLIMIT_MEMLOCK, the
// --peer host unreachable or refusing).
// The run's settings from the flags: under --lat, ib_write_lat's defaults
// for what -s, -n and -t left unset.
BenchSettings SettingsOf(const BenchOptions& o);

int RunBenchCommand(const BenchOptions& o, std::ostream& out, std::ostream& err);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_BENCH_BENCH_COMMAND_H_
