// Check: one named condition of a healthy node, evaluated as a pure function
// of a DeviceView and a Plan (and, where it must act, a Device). A check
// returns one Result: a verdict, a title that states the healthy condition,
// evidence (expected against actual, with names and units) and remediation
// (literal commands).
//
//   class PortActiveCheck : public Check {
//    public:
//     absl::string_view id() const override { return "port-active"; }
//     ...
//     Result Run(const CheckContext& ctx) const override {
//       ResultBuilder r(*this, "Port 1 of rxe0 is ACTIVE");
//       r.Expect("rxe0 port 1 state", "ACTIVE", "DOWN", Verdict::kFail);
//       r.Remedy("ip link set dev va up");
//       return r.Build();
//     }
//   };
#ifndef RDMACHECK_CHECKS_CHECK_H_
#define RDMACHECK_CHECKS_CHECK_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "acts/device.h"
#include "facts/device_view.h"
#include "plan/plan.h"

namespace rdmacheck {

// Ordered by severity: the worst verdict of a run is the max.
enum class Verdict { kPass = 0, kSkip = 1, kWarn = 2, kFail = 3 };
absl::string_view VerdictName(Verdict v);  // "PASS", "SKIP", "WARN", "FAIL"

struct Evidence {
  std::string subject;   // "rxe0 port 1 state", "QP class core max_send_wr"
  std::string expected;  // "ACTIVE", "<= 16384 (max_qp_wr)"
  std::string actual;    // "DOWN", "65536"
  Verdict verdict = Verdict::kPass;
};

struct Result {
  std::string id;
  Verdict verdict = Verdict::kPass;
  std::string title;
  std::vector<Evidence> evidence;
  std::vector<std::string> notes;        // free-form lines beside the evidence
  std::vector<std::string> remediation;  // literal commands / steps
  std::string skip_reason;               // set when verdict == kSkip
  double seconds = 0;                    // wall time, filled by the runner
};

// What the user asked for on the command line, shared by every check.
struct Options {
  std::optional<std::string> device;  // -d/--ib-dev
  std::optional<int> port;            // -i/--ib-port
  std::optional<int> gid_index;       // -x/--gid-index
  double check_deadline_s = 10;       // per check
  // After a check's deadline, how long it has to stop (its probes poll the
  // stop flag) and release what it holds before the next check starts.
  double stop_grace_s = 3;
  // Traffic probes (hung-qp, sge-page-crossing): how long each work request
  // may go without a completion before it counts as hung.
  double probe_deadline_s = 2;
  // sge-page-crossing: also WARN for drivers in its table of suspected (and
  // unverified) legacy SGE page-crossing deviations.
  bool suspect_legacy_sge = false;
  // link-health, pcie: how long a live run watches counters and async events
  // (at most check_deadline_s; facts/link_window.h).
  double window_s = 2;
};

// Returns the Device to act on for a device of the view: the real one when
// live, its driver model on a profile; the reason when it cannot
// ("ibv_open_device(dev=rxe0): Permission denied").
using DeviceFactory = std::function<absl::StatusOr<std::unique_ptr<Device>>(const DeviceInfo&)>;

struct CheckContext {
  const DeviceView& view;
  const Plan& plan;
  const Options& options;
  DeviceFactory device_for;

  // device_for's answer, with an error (never a null Device) when there is
  // no factory or it had nothing for this device.
  absl::StatusOr<std::unique_ptr<Device>> OpenDevice(const DeviceInfo& dev) const;

  // The devices the run is about: the one named with -d, else all.
  std::vector<const DeviceInfo*> SelectedDevices() const;
  // The ports to look at on a device: -i, else the plan's port, else all.
  std::vector<const PortInfo*> SelectedPorts(const DeviceInfo& dev) const;
};

// What a check needs besides the devices, ports, GIDs and host facts that
// every gather reads.
enum CheckNeeds : unsigned {
  kNeedsRulesets = 1u << 0,  // the firewall rulesets (nft, iptables-save)
  kNeedsDevice = 1u << 1,    // it acts through a Device (creates, probes)
  kNeedsWindow = 1u << 2,    // counters sampled twice over Options::window_s, async events
  kNeedsQdiscs = 1u << 3,    // the netdevs' qdiscs (tc -j qdisc show)
  // It loads the link to its limit (bandwidth), which on its own makes
  // congestion and retry counters move: it runs after the counter window,
  // never beside it (checks/session.h).
  kLoadsLink = 1u << 4,
};

class Check {
 public:
  virtual ~Check() = default;
  virtual absl::string_view id() const = 0;         // "device-limits"
  virtual absl::string_view summary() const = 0;    // one line, for `list`
  // Needs a live device to be meaningful (SKIPs on a profile).
  virtual bool live_only() const { return false; }
  // The facts beyond the basic view that it reads, so that gathering reads
  // only what the selected checks need (a bit set of CheckNeeds).
  virtual unsigned needs() const { return 0; }
  virtual Result Run(const CheckContext& ctx) const = 0;
};

// Builds a Result: the verdict is the worst of the evidence rows unless set.
class ResultBuilder {
 public:
  ResultBuilder(const Check& check, std::string title);
  ResultBuilder& Title(std::string title);
  ResultBuilder& Expect(std::string subject, std::string expected, std::string actual,
                        Verdict v = Verdict::kPass);
  ResultBuilder& Note(std::string line);
  ResultBuilder& Remedy(std::string line);
  ResultBuilder& Raise(Verdict v);  // at least this verdict
  Verdict verdict() const { return r_.verdict; }
  Result Build() const { return r_; }
  // A SKIP with its reason ("no RDMA device", "needs a live device", ...).
  static Result Skip(const Check& check, std::string title, std::string reason);
  // WARN "could not carry out": an error inside a check, never a crash.
  static Result CouldNotRun(const Check& check, std::string title, std::string why);

 private:
  Result r_;
};

// ctx.OpenDevice(dev) for a probe; when it cannot be had, null after a WARN
// row "<dev> <what>: expected device opened, actual could not open it: <why>".
std::unique_ptr<Device> OpenOrWarn(const CheckContext& ctx, const DeviceInfo& dev, absl::string_view what,
                                   ResultBuilder& b);

// A duration as evidence and notes print it: "12.30 ms" under a second,
// "1.25 s" from there.
std::string Ms(double seconds);

// The remedy line that recreates soft-RoCE device `device` on `netdev`
// (iproute2's rdma tool; a link cannot be moved to another netdev in place).
std::string RxeRelink(absl::string_view device, absl::string_view netdev);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_CHECK_H_
