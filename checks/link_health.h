// link-health: over a window (--window, default 2 s) no port in use takes
// physical-layer errors, discards, congestion or transport retries, and no
// device raises a link flap or a fatal error. Counters are judged by class
// (kCounterTable in link_health.cc); the plan's [counter NAME] max_per_s
// tolerates a rate. Runs on a profile recorded with `capture --window`.
// Doc: docs/checks/link-health.md
#ifndef RDMACHECK_CHECKS_LINK_HEALTH_H_
#define RDMACHECK_CHECKS_LINK_HEALTH_H_

#include <optional>
#include <string>
#include <vector>

#include "checks/check.h"

namespace rdmacheck {

class LinkHealthCheck : public Check {
 public:
  absl::string_view id() const override { return "link-health"; }
  absl::string_view summary() const override {
    return "Over a window, ports take no link errors or retries and do not flap";
  }
  unsigned needs() const override { return kNeedsWindow; }
  Result Run(const CheckContext& ctx) const override;
};

// What link-health knows of a counter: how it is judged, what it counts and
// what usually makes it move. nullptr for a counter it does not judge
// (data and packet counts, and names it has no entry for).
enum class CounterClass { kPhysical, kDiscard, kTransport };
struct CounterKind {
  const char* name;
  CounterClass cls;
  const char* meaning;
};
const CounterKind* FindCounterKind(absl::string_view name);

// What moved over view.window that link-health or pcie would judge: a port
// counter FindCounterKind knows ("rxe0 port 1 completer_retry_err +3") or an
// AER total ("mlx5_0 aer_dev_correctable +1"), went back included. Empty
// when nothing did, or there is no window. Only port `port` when set (-i:
// the one link-health judges). The session uses it to tell whether a window
// that overlapped its own probes can stand (checks/session.h).
std::vector<std::string> JudgedMoves(const DeviceView& view, std::optional<int> port = std::nullopt);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_LINK_HEALTH_H_
