#include "tools/peer/peer_mode.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/profile.h"
#include "tools/peer/messages.h"
#include "tools/peer/peer_match.h"
#include "tools/peer/remote_bench.h"
#include "tools/peer/remote_probe.h"
#include "acts/probe/probe.h"
#include "plan/plan.h"
#include "util/clock.h"

namespace rdmacheck {
namespace {

std::atomic<bool> g_serve_stop{false};
extern "C" void OnServeSigint(int) { g_serve_stop.store(true); }

}  // namespace

absl::StatusOr<DeviceView> PeerDeviceView(const DeviceView& view, const std::string& device) {
  for (const DeviceInfo& d : view.devices) {
    if (!device.empty() ? d.name == device : (!d.ports.empty() && d.ports[0].state == "ACTIVE"))
      return OnlyDevice(view, d.name);
  }
  std::vector<std::string> names;
  for (const DeviceInfo& d : view.devices) names.push_back(d.name);
  return absl::NotFoundError(absl::StrCat(device.empty() ? "no RDMA device with an ACTIVE port" : absl::StrCat("no RDMA device ", device),
                                          " on this host (devices: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<PeerClient> PeerClient::Open(const std::string& host_port, const DeviceView& local,
                                            const std::string& tool_version, double connect_s) {
  absl::StatusOr<std::pair<std::string, int>> hp = ParseHostPort(host_port);
  if (!hp.ok()) return hp.status();
  absl::StatusOr<PeerChannel> ch = PeerChannel::Connect(hp->first, hp->second, connect_s);
  if (!ch.ok()) return ch.status();
  auto owned = std::make_unique<PeerChannel>(*std::move(ch));
  absl::Status st = owned->Handshake(tool_version);
  if (!st.ok()) return st;
  st = SendMsg(*owned, ProfileMsg{WriteProfile(local)});
  if (!st.ok()) return st;
  absl::StatusOr<ProfileMsg> f = ReceiveMsg<ProfileMsg>(*owned);
  if (!f.ok()) return f.status();
  absl::StatusOr<DeviceView> remote = ParseProfile(f->text, absl::StrCat("peer ", owned->peer_name()));
  if (!remote.ok()) return remote.status();
  return PeerClient(std::move(owned), hp->first, *std::move(remote));
}

PeerClient::~PeerClient() {
  if (!ch_) return;
  std::lock_guard<std::mutex> lock(*mu_);
  (void)SendMsg(*ch_, ByeMsg{});
}

absl::StatusOr<std::vector<std::string>> PeerClient::ExchangeVerdicts(const std::vector<std::string>& ours) {
  std::lock_guard<std::mutex> lock(*mu_);
  absl::StatusOr<VerdictsMsg> theirs = AskMsg<VerdictsMsg>(*ch_, VerdictsMsg{ours});
  if (!theirs.ok()) return theirs.status();
  return std::move(theirs->lines);
}

DeviceView MergePeerView(const DeviceView& local, const DeviceView& remote, const std::string& host,
                         const std::string& local_device) {
  DeviceView v = local;
  v.devices.clear();
  for (const DeviceInfo& d : local.devices)
    if (d.name == local_device) v.devices.push_back(d);
  const std::string at = absl::StrCat("@", host);
  for (DeviceInfo d : remote.devices) {
    d.name += at;
    if (d.netdev) *d.netdev += at;
    for (PortInfo& p : d.ports)
      for (GidEntry& g : p.gids)
        if (!g.netdev.empty()) g.netdev += at;
    v.devices.push_back(std::move(d));
  }
  for (NetdevInfo n : remote.netdevs) {
    n.name += at;
    v.netdevs.push_back(std::move(n));
  }
  v.provenance.push_back(absl::StrCat("peer mode: devices and netdevs named *", at, " are ", host,
                                      "'s, from its rdmacheck serve"));
  return v;
}

std::string PeerDevice::Describe() const { return absl::StrCat(inner_->Describe(), " (peer ", client_->host(), ")"); }

std::optional<std::string> PeerDevice::FarName(const std::string& name) const {
  const std::string at = absl::StrCat("@", client_->host());
  if (name.size() <= at.size() || name.compare(name.size() - at.size(), at.size(), at) != 0) return std::nullopt;
  return name.substr(0, name.size() - at.size());
}

absl::StatusOr<BenchResult> PeerDevice::RunBench(const BenchEnds& ends, const BenchSettings& s) {
  std::optional<std::string> far_dev = FarName(ends.peer_device);
  if (!far_dev) return inner_->RunBench(ends, s);
  BenchEnds e = ends;
  e.peer_device = *far_dev;
  std::lock_guard<std::mutex> lock(client_->mu());
  ChannelBenchPeer far(client_->channel(), client_->host());
  e.far = &far;
  return inner_->RunBench(e, s);
}

absl::StatusOr<ProbeResult> PeerDevice::RunTrafficProbe(const ProbeRequest& req) {
  std::optional<std::string> far_dev = FarName(req.peer_device);
  if (!far_dev) return inner_->RunTrafficProbe(req);
  ProbeRequest r = req;
  r.peer_device = *far_dev;
  std::lock_guard<std::mutex> lock(client_->mu());
  // Ctrl-C: the probe stops at the next WR, ends the far end's half and
  // releases its QP; then the guard passes SIGINT on (exit 130).
  SigintGuard sigint;
  return RunPeerProbe(client_->channel(), r, &ProbeInterruptFlag());
}

namespace {

// Our verdict lines to the far end; its lines as notes of `peer_match`'s result.
void ExchangeVerdicts(PeerClient& peer, const Check& peer_match, RunReport* rep) {
  std::vector<std::string> ours;
  for (const Result& r : rep->results) ours.push_back(absl::StrCat(VerdictName(r.verdict), " ", r.id, " ", r.title));
  absl::StatusOr<std::vector<std::string>> theirs = peer.ExchangeVerdicts(ours);
  for (Result& r : rep->results) {
    if (r.id != peer_match.id()) continue;
    if (!theirs.ok()) r.notes.push_back(absl::StrCat("far end's verdicts not received: ", theirs.status().message()));
    if (theirs.ok())
      for (const std::string& l : *theirs) r.notes.push_back(absl::StrCat("far end ", peer.host(), ": ", l));
  }
}

}  // namespace

absl::StatusOr<RunReport> RunPeerChecks(const Session& session, const RunInputs& in,
                                        const std::vector<const Check*>& checks, const std::string& peer_addr,
                                        const std::string& tool_version) {
  auto refused = [&peer_addr](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("--peer ", peer_addr, ": ", s.message()));
  };
  absl::StatusOr<DeviceView> mine = PeerDeviceView(in.view, in.options.device.value_or(""));
  if (!mine.ok()) return refused(mine.status());
  absl::StatusOr<PeerClient> opened = PeerClient::Open(peer_addr, *mine, tool_version);
  if (!opened.ok()) return refused(opened.status());
  // Shared with the Device factory, which a check's thread may hold.
  auto peer = std::make_shared<PeerClient>(*std::move(opened));
  const std::string local_dev = mine->devices[0].name;
  RunInputs merged{MergePeerView(in.view, peer->remote_view(), peer->host(), local_dev), in.plan, in.options};
  merged.options.device = local_dev;
  PeerMatchCheck peer_match(peer->remote_view(), "", 0, peer->host());
  std::vector<const Check*> run = {&peer_match};
  run.insert(run.end(), checks.begin(), checks.end());
  RunReport rep = session.Run(
      merged, run, [local = DevicesOf(merged.view), peer](const DeviceInfo& d) -> absl::StatusOr<std::unique_ptr<Device>> {
        absl::StatusOr<std::unique_ptr<Device>> inner = local(d);
        if (!inner.ok()) return inner.status();
        return std::unique_ptr<Device>(std::make_unique<PeerDevice>(*std::move(inner), peer.get()));
      });
  ExchangeVerdicts(*peer, peer_match, &rep);
  return rep;
}

absl::Status ServeClient(PeerChannel& ch, const DeviceView& served, const std::string& tool_version,
                         double deadline_s, std::ostream& log) {
  const double end = MonotonicSeconds() + deadline_s;
  const std::string who = ch.peer_name();
  const std::string device = served.devices.empty() ? "" : served.devices[0].name;
  ch.set_io_deadline(std::min(10.0, deadline_s));
  absl::Status st = ch.Handshake(tool_version);
  if (!st.ok()) {
    log << "client " << who << ": " << st.message() << "\n";
    return st;
  }
  absl::StatusOr<ProfileMsg> pf = ReceiveMsg<ProfileMsg>(ch);
  if (!pf.ok()) return pf.status();
  absl::StatusOr<DeviceView> client_view = ParseProfile(pf->text, absl::StrCat("client ", who));
  if (!client_view.ok()) {
    ch.SendError(client_view.status().message());
    return client_view.status();
  }
  if (st = SendMsg(ch, ProfileMsg{WriteProfile(served)}); !st.ok()) return st;
  const std::string client_dev = client_view->devices.empty() ? "" : client_view->devices[0].name;
  log << "client " << who << ": rdmacheck " << ch.peer_version() << ", device " << client_dev << "\n";
  int probes = 0, benches = 0;
  for (;;) {
    const double left = end - MonotonicSeconds();
    if (left <= 0) {
      ch.SendError(absl::StrCat("the server's per-client deadline (", deadline_s, " s) passed"));
      return absl::DeadlineExceededError(absl::StrCat("client ", who, ": per-client deadline of ", deadline_s, " s passed"));
    }
    ch.set_io_deadline(left);
    absl::StatusOr<PeerFrame> f = ch.Receive();
    if (!f.ok()) {
      log << "client " << who << ": " << f.status().message() << "\n";
      return f.status();
    }
    if (f->type == ByeMsg::kType) {
      log << "client " << who << ": done, " << probes << " probes and " << benches << " bench sessions served\n";
      return absl::OkStatus();
    }
    if (f->type == ProbeSetupMsg::kType) {
      ++probes;
      st = ServePeerProbe(ch, *f, device);
      log << "client " << who << ": probe " << probes << " " << (st.ok() ? "served" : std::string(st.message()))
          << "\n";
      if (!st.ok() && (absl::IsDeadlineExceeded(st) || absl::IsUnavailable(st) || absl::IsDataLoss(st))) return st;
      continue;  // the client got an ERROR frame and may go on
    }
    if (f->type == BenchSetupMsg::kType) {
      ++benches;
      st = ServePeerBench(ch, *f, device);
      log << "client " << who << ": bench session " << benches << " "
          << (st.ok() ? "served" : std::string(st.message())) << "\n";
      if (!st.ok() && (absl::IsDeadlineExceeded(st) || absl::IsUnavailable(st) || absl::IsDataLoss(st))) return st;
      continue;
    }
    if (f->type == VerdictsMsg::kType) {
      absl::StatusOr<VerdictsMsg> theirs = VerdictsMsg::Decode(f->payload);
      if (!theirs.ok()) return theirs.status();
      for (const std::string& l : theirs->lines) log << "client " << who << " verdict: " << l << "\n";
      // Our own side of the comparison, from this end.
      Plan plan;
      Options opts;
      opts.device = device;
      CheckContext ctx{served, plan, opts, nullptr};
      PeerMatchCheck pm(*client_view, client_dev, 0, who.substr(0, who.rfind(':')));
      Result r = pm.Run(ctx);
      std::string line = absl::StrCat(VerdictName(r.verdict), " peer-match ", r.title);
      log << "this end verdict: " << line << "\n";
      for (const Evidence& e : r.evidence)
        if (e.verdict != Verdict::kPass) log << "  " << e.subject << ": " << e.actual << "\n";
      if (st = SendMsg(ch, VerdictsMsg{{line}}); !st.ok()) return st;
      continue;
    }
    ch.SendError(absl::StrCat("unexpected ", f->type, " frame"));
    return absl::InvalidArgumentError(absl::StrCat("client ", who, ": unexpected ", f->type, " frame"));
  }
}

int RunServeCommand(const ServeOptions& options, std::ostream& out, std::ostream& err,
                    const std::function<absl::StatusOr<DeviceView>(const std::optional<std::string>& profile)>& gather,
                    const std::string& tool_version) {
  const std::string& bind = options.bind;
  const bool once = options.once;
  const double client_s = options.client_deadline_s;
  double wait_s = options.wait_s;
  if (once && wait_s == 0) wait_s = 300;
  absl::StatusOr<DeviceView> view = gather(options.profile);
  if (!view.ok()) {
    err << "rdmacheck serve: " << view.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<DeviceView> served = PeerDeviceView(*view, options.device);
  if (!served.ok()) {
    err << "rdmacheck serve: " << served.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<PeerListener> l = PeerListener::Listen(bind, options.port);
  if (!l.ok()) {
    err << "rdmacheck serve: " << l.status().message() << "\n";
    return 2;
  }
  g_serve_stop.store(false);
  struct sigaction sa {}, old {};
  sa.sa_handler = OnServeSigint;
  sigemptyset(&sa.sa_mask);
  const bool installed = sigaction(SIGINT, &sa, &old) == 0;
  out << "rdmacheck serve: " << served->devices[0].name << " on " << (bind.empty() ? "0.0.0.0" : bind) << ":"
      << l->port() << (once ? ", one client" : ", until Ctrl-C") << "\n";
  out.flush();
  int code = 0;
  for (;;) {
    absl::StatusOr<PeerChannel> ch = l->Accept(once ? wait_s : (wait_s > 0 ? wait_s : 86400), &g_serve_stop);
    if (!ch.ok()) {
      if (absl::IsCancelled(ch.status())) break;
      if (once || wait_s > 0) {
        err << "rdmacheck serve: " << ch.status().message() << "\n";
        code = 3;
        break;
      }
      continue;
    }
    absl::Status st = ServeClient(*ch, *served, tool_version, client_s, out);
    out.flush();
    if (!st.ok()) code = 1;
    if (once || g_serve_stop.load()) break;
  }
  if (installed) sigaction(SIGINT, &old, nullptr);
  return code;
}

}  // namespace rdmacheck
