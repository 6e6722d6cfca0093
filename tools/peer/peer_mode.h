// Peer mode, both roles (docs/peer-mode.md).
//
// Client (`rdmacheck --peer HOST[:PORT] -d DEV`): RunPeerChecks, made of the
// pieces below. PeerClient connects, checks versions and exchanges
// profiles; MergePeerView puts the far end's devices into this host's view
// as "<dev>@<host>", so hung-qp and sge-page-crossing pick them as their
// peer; PeerDevice runs those probes across the link
// (tools/peer/remote_probe.h); PeerMatchCheck compares the ends.
//
//   Session session;
//   ASSIGN_OR_RETURN(RunReport rep, RunPeerChecks(session, inputs, checks, "198.18.0.2", kToolVersion));
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
#include "checks/session.h"
#include "facts/device_view.h"
#include "tools/peer/channel.h"

namespace rdmacheck {

// `view` restricted to one device (facts' OnlyDevice: its netdevs and the
// host kept); the first device whose port 1 is ACTIVE when `device` is "".
// NotFound when there is none.
absl::StatusOr<DeviceView> PeerDeviceView(const DeviceView& view, const std::string& device);

class PeerClient {
 public:
  // Connects (deadline connect_s), hands over `local` (already restricted
  // with PeerDeviceView) and reads the far end's view.
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

// A Device that sends traffic probes and bench runs whose peer_device is
// "<dev>@<host>" across the link; everything else goes to `inner`.
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
  // A peer_device "<dev>@<host>" runs with the far end's half on the host's
  // `rdmacheck serve` (tools/peer/remote_bench.h).
  absl::StatusOr<BenchResult> RunBench(const BenchEnds& ends, const BenchSettings& s) override;

 private:
  // The name without "@<host>" when `name` is one of the far end's.
  std::optional<std::string> FarName(const std::string& name) const;
  std::unique_ptr<Device> inner_;
  PeerClient* client_;
};

// A whole `rdmacheck --peer HOST[:PORT]` run: connects to the far end and
// exchanges views, runs peer-match and `checks` on the merged view through
// `session` (the probes go across the link), sends the verdicts and notes the
// far end's on the peer-match result. in.options.device picks the local
// device (else the first ACTIVE one). An error is the run not happening at
// all: no such local device, the far end unreachable or refusing ("--peer
// HOST: ...", the code of the cause). A far end that does not answer with
// its verdicts is a note, not an error.
absl::StatusOr<RunReport> RunPeerChecks(const Session& session, RunInputs& in,
                                        const std::vector<const Check*>& checks, const std::string& peer,
                                        const std::string& tool_version);

// The far end's half of a peer run on one accepted channel: handshake,
// profiles, probes, verdicts; bounded by deadline_s in all. `log` gets one
// line per step.
absl::Status ServeClient(PeerChannel& ch, const DeviceView& served, const std::string& tool_version,
                         double deadline_s, std::ostream& log);

// ServeClient after the hello: profiles, probes, bench sessions, verdicts,
// until the client's BYE or `end` (MonotonicSeconds).
absl::Status ServeSession(PeerChannel& ch, const DeviceView& served, double end, std::ostream& log);

// How many clients `serve` holds at once (docs/peer-mode.md, "Many
// clients"). A connection that has not sent its hello costs a thread and a
// socket, nothing of the device; when max_connections are held, the oldest
// such connection is closed to make room, so that idle or slow connections
// cannot keep a client out. Sessions past max_sessions are refused with an
// ERROR frame ("busy").
struct ServeLimits {
  int max_sessions = 8;
  int max_connections = 256;
  double hello_deadline_s = 5;
};

struct ServeStats {
  int sessions = 0;          // served to their BYE
  int failed = 0;            // sessions that ended in an error
  int bad_hello = 0;         // no hello, a wrong one, or the connection closed first
  int evicted = 0;           // closed before their hello to make room
  int refused_busy = 0;      // refused: max_sessions being served
  int peak_connections = 0;  // held at once (one thread each)
};

// Accepts and serves clients at once, each on a thread of its own, until
// `stop`; then closes every connection and joins every thread. Each client's
// lines reach `out` whole (one lock), one line per refusal and none of a
// client's payload.
ServeStats ServeClients(PeerListener& listener, const DeviceView& served, const std::string& tool_version,
                        double client_deadline_s, const ServeLimits& limits, const std::atomic<bool>& stop,
                        std::ostream& out);

// What `rdmacheck serve` is asked to do (its flags: cli/serve_flags.h).
struct ServeOptions {
  std::string device;                  // "": the first device with an ACTIVE port
  std::string bind;                    // "": every address
  int port = kDefaultPeerPort;
  bool once = false;                   // one client, then exit
  double wait_s = 0;                   // for a client; 0: 300 s with once, else forever
  double client_deadline_s = 120;      // each client's whole session
  std::optional<std::string> profile;  // serve this profile's view (peer-match only)
  ServeLimits limits;                  // without once
};

// `rdmacheck serve`. `gather` reads this host's view, or the profile given
// (peer-match then works; the probes need the device). Exit 0 when every
// client was served, 1 when one failed, 2 bad input (no device, cannot
// listen), 3 no client came within the wait (with once).
int RunServeCommand(const ServeOptions& options, std::ostream& out, std::ostream& err,
                    const std::function<absl::StatusOr<DeviceView>(const std::optional<std::string>& profile)>& gather,
                    const std::string& tool_version);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_PEER_PEER_MODE_H_
