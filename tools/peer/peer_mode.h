// Peer mode, both roles (docs/peer-mode.md).
//
// Client (`rdmacheck --peer HOST[:PORT] -d DEV`): RunPeerChecks, made of the
// pieces below. PeerClient connects, checks versions and exchanges
// profiles; MergePeerView puts the far end's devices into this host's view
// as "<dev>@<host>", so hung-qp and sge-page-crossing pick them as their
// peer; PeerDevice runs those probes across the link
// (tools/peer/remote_probe.h); PeerMatchCheck compares the ends.
//
//   PeerRunRequest req{"198.18.0.2", view, options, checks, kToolVersion, DeviceFor, run};
//   ASSIGN_OR_RETURN(RunReport rep, RunPeerChecks(req));
//
// Server (`rdmacheck serve`): RunServeCommand.
#ifndef RDMACHECK_TOOLS_PEER_PEER_MODE_H_
#define RDMACHECK_TOOLS_PEER_PEER_MODE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/device.h"
#include "checks/check.h"
#include "checks/run_report.h"
#include "facts/device_view.h"
#include "tools/peer/channel.h"

namespace rdmacheck {

// `view` restricted to one device (its netdevs and host facts kept); the
// first device whose port 1 is ACTIVE when `device` is "". NotFound when
// there is none.
absl::StatusOr<DeviceView> OnlyDevice(const DeviceView& view, const std::string& device);

class PeerClient {
 public:
  // Connects (deadline connect_s), hands over `local` (already restricted
  // with OnlyDevice) and reads the far end's view.
  static absl::StatusOr<PeerClient> Open(const std::string& host_port, const DeviceView& local,
                                         const std::string& tool_version, double connect_s = 5);
  PeerClient(PeerClient&&) = default;
  ~PeerClient();

  const DeviceView& remote_view() const { return remote_; }
  const std::string& host() const { return host_; }
  PeerChannel& channel() { return *ch_; }
  // Held for each use of the channel: the runner abandons a check that
  // overruns its deadline, and its probe must not interleave with the next.
  std::mutex& mu() { return *mu_; }
  // Sends our verdict lines ("FAIL peer-match ..."), returns the far end's.
  absl::StatusOr<std::vector<std::string>> ExchangeVerdicts(const std::vector<std::string>& ours);

 private:
  PeerClient(std::unique_ptr<PeerChannel> ch, std::string host, DeviceView remote)
      : ch_(std::move(ch)), host_(std::move(host)), remote_(std::move(remote)) {}
  std::unique_ptr<PeerChannel> ch_;
  std::unique_ptr<std::mutex> mu_ = std::make_unique<std::mutex>();
  std::string host_;
  DeviceView remote_;
};

// `local` with its devices limited to `local_device` and the far end's
// devices and netdevs added as "<name>@<host>".
DeviceView MergePeerView(const DeviceView& local, const DeviceView& remote, const std::string& host,
                         const std::string& local_device);

// A Device that sends traffic probes whose peer_device is "<dev>@<host>"
// across the link; everything else goes to `inner`.
class PeerDevice : public Device {
 public:
  PeerDevice(std::unique_ptr<Device> inner, PeerClient* client) : inner_(std::move(inner)), client_(client) {}
  std::string Describe() const override;
  absl::StatusOr<QpCaps> CreateQp(const QpRequest& req) override { return inner_->CreateQp(req); }
  absl::StatusOr<uint32_t> CreateCq(uint32_t cqe) override { return inner_->CreateCq(cqe); }
  QueueMemory QpMemory(const QpRequest& req, const QpCaps& granted) const override {
    return inner_->QpMemory(req, granted);
  }
  uint64_t CqMemory(uint32_t granted_cqe) const override { return inner_->CqMemory(granted_cqe); }
  absl::StatusOr<ProbeResult> RunTrafficProbe(const ProbeRequest& req) override;

 private:
  std::unique_ptr<Device> inner_;
  PeerClient* client_;
};

// The Device a check acts through, for a device of the run's view.
using DeviceMaker = std::function<std::unique_ptr<Device>(const DeviceInfo&)>;

// What a `--peer` run is made of.
struct PeerRunRequest {
  std::string peer;                  // HOST[:PORT] of `rdmacheck serve`
  DeviceView view;                   // this host's, all its devices
  Options options;                   // -d picks the local device (else the first ACTIVE one)
  std::vector<const Check*> checks;  // the selected ones; peer-match runs before them
  std::string tool_version;          // must be the far end's
  // This host's Device for a device of `view` (the real one when live, its
  // driver model on a profile); null when nothing can act.
  std::function<std::unique_ptr<Device>(const DeviceView& view, const DeviceInfo& dev)> local_device;
  // Runs `checks` on `view` with `options`, each Device from `device_for`,
  // and reports them (the caller's runner and report header).
  std::function<RunReport(const DeviceView& view, const Options& options, const std::vector<const Check*>& checks,
                          const DeviceMaker& device_for)>
      run;
};

// A whole `rdmacheck --peer` run: connects to the far end and exchanges
// views, runs peer-match and the checks on the merged view (the probes
// across the link), sends the verdicts and notes the far end's on the
// peer-match result. An error is the run not happening at all: no such
// local device, the far end unreachable or refusing ("--peer HOST: ...",
// the code of the cause). A far end that does not answer with its verdicts
// is a note, not an error.
absl::StatusOr<RunReport> RunPeerChecks(const PeerRunRequest& req);

// The far end's half of a peer run on one accepted channel: handshake,
// profiles, probes, verdicts; bounded by deadline_s in all. `log` gets one
// line per step.
absl::Status ServeClient(PeerChannel& ch, const DeviceView& served, const std::string& tool_version,
                         double deadline_s, std::ostream& log);

// `rdmacheck serve [-d DEV] [--port P] [--bind ADDR] [--once] [--wait S]
// [--client-deadline S] [--profile FILE]`. `gather` reads this host's view,
// or the profile given (peer-match then works; the probes need the device).
// Exit 0 when every client was served, 1 when one failed, 2 bad usage,
// 3 no client came within --wait (with --once).
int RunServeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                    const std::function<absl::StatusOr<DeviceView>(const std::optional<std::string>& profile)>& gather,
                    const std::string& tool_version);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_PEER_PEER_MODE_H_
