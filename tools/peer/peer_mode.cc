#include "tools/peer/peer_mode.h"

#include <signal.h>

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <streambuf>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
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

absl::StatusOr<RunReport> RunPeerChecks(const Session& session, RunInputs& in,
                                        const std::vector<const Check*>& checks, const std::string& peer_addr,
                                        const std::string& tool_version) {
  // This host's window, before its view is merged with the far end's (the
  // merged view names devices that are not this host's to watch).
  WatchWindowNow(&in);
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

namespace {

// The client's verdicts in serve's log: how many, and the first few that did
// not pass (a client may send thousands of lines; the log stays readable).
void LogVerdicts(const std::string& who, const std::vector<std::string>& lines, std::ostream& log) {
  constexpr int kShown = 5;
  std::vector<const std::string*> bad;
  for (const std::string& l : lines)
    if (!absl::StartsWith(l, "PASS ") && !absl::StartsWith(l, "SKIP ")) bad.push_back(&l);
  log << "client " << who << ": " << lines.size() << " verdicts, " << bad.size() << " not PASS or SKIP\n";
  for (size_t i = 0; i < bad.size() && i < kShown; ++i)
    log << "client " << who << " verdict: " << bad[i]->substr(0, 200) << "\n";
  if (bad.size() > kShown) log << "client " << who << ": " << bad.size() - kShown << " more not shown\n";
}

// Why a client's hello failed, for serve's log: one reason, none of what the
// client sent (a version mismatch names the two versions only).
std::string WhyNoHello(const absl::Status& st, double hello_deadline_s) {
  if (absl::IsDeadlineExceeded(st)) return absl::StrCat("no hello within ", hello_deadline_s, " s");
  if (absl::IsInvalidArgument(st)) return "not rdmacheck's protocol (its first line is not a hello)";
  if (absl::IsUnavailable(st) || absl::IsDataLoss(st)) return "closed the connection before its hello";
  return std::string(st.message());
}

}  // namespace

absl::Status ServeClient(PeerChannel& ch, const DeviceView& served, const std::string& tool_version,
                         double deadline_s, std::ostream& log) {
  const double end = MonotonicSeconds() + deadline_s;
  const double hello_s = std::min(10.0, deadline_s);
  ch.set_io_deadline(hello_s);
  absl::Status st = ch.Handshake(tool_version);
  if (!st.ok()) {
    log << "client " << ch.peer_name() << ": " << WhyNoHello(st, hello_s) << "\n";
    return st;
  }
  return ServeSession(ch, served, end, log);
}

absl::Status ServeSession(PeerChannel& ch, const DeviceView& served, double end, std::ostream& log) {
  const std::string who = ch.peer_name();
  const std::string device = served.devices.empty() ? "" : served.devices[0].name;
  const double deadline_s = std::max(0.0, end - MonotonicSeconds());
  ch.set_io_deadline(std::min(10.0, deadline_s));
  absl::Status st;
  absl::StatusOr<ProfileMsg> pf = ReceiveMsg<ProfileMsg>(ch);
  if (!pf.ok()) {
    log << "client " << who << ": " << pf.status().message() << "\n";
    return pf.status();
  }
  absl::StatusOr<DeviceView> client_view = ParseProfile(pf->text, absl::StrCat("client ", who));
  if (!client_view.ok()) {
    log << "client " << who << ": its profile: " << client_view.status().message() << "\n";
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
      LogVerdicts(who, theirs->lines, log);
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

namespace {

// A stream whose complete lines go to `out` under one mutex: the lines of
// clients served at once do not interleave mid-line.
class LineSink : public std::streambuf {
 public:
  LineSink(std::ostream& out, std::mutex& mu) : out_(out), mu_(mu) {}
  ~LineSink() override {
    if (!line_.empty()) Flush();
  }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    line_.push_back(static_cast<char>(c));
    if (c == '\n') Flush();
    return c;
  }

 private:
  void Flush() {
    std::lock_guard<std::mutex> lock(mu_);
    out_ << line_;
    out_.flush();
    line_.clear();
  }
  std::ostream& out_;
  std::mutex& mu_;
  std::string line_;
};

// One accepted connection and the thread serving it.
struct ServedConn {
  int fd = -1;
  double since = 0;
  bool serving = false;  // past its hello
  bool closed = false;   // its fd is closed (or about to be): not to be touched
  bool evicted = false;
  bool done = false;
  std::thread thread;
};

}  // namespace

ServeStats ServeClients(PeerListener& listener, const DeviceView& served, const std::string& tool_version,
                        double client_deadline_s, const ServeLimits& limits, const std::atomic<bool>& stop,
                        std::ostream& out) {
  std::mutex out_mu;  // lines to `out`
  std::mutex mu;      // conns, their flags, stats
  std::condition_variable ended;  // a connection's thread is done
  std::list<std::shared_ptr<ServedConn>> conns;
  ServeStats stats;
  int sessions_now = 0;

  auto serve_one = [&](std::shared_ptr<ServedConn> c, std::unique_ptr<PeerChannel> ch) {
    LineSink sink(out, out_mu);
    std::ostream log(&sink);
    const std::string who = ch->peer_name();
    ch->set_io_deadline(limits.hello_deadline_s);
    absl::Status st = ch->Handshake(tool_version);
    bool serve = st.ok();
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!st.ok()) {
        ++(c->evicted ? stats.evicted : stats.bad_hello);
      } else if (sessions_now >= limits.max_sessions) {
        serve = false;
        ++stats.refused_busy;
      } else {
        ++sessions_now;
        c->serving = true;
      }
    }
    if (!st.ok()) {
      log << "client " << who << ": "
          << (c->evicted ? absl::StrCat("closed before its hello to make room (", limits.max_connections,
                                        " connections held)")
                         : WhyNoHello(st, limits.hello_deadline_s))
          << "\n";
    } else if (!serve) {
      ch->SendError(absl::StrCat("busy: serving ", limits.max_sessions, " clients; try again later"));
      ch->Linger(1.0);  // so that the refusal is read, not reset by our close
      log << "client " << who << ": refused, busy (" << limits.max_sessions << " sessions being served)\n";
    } else {
      st = ServeSession(*ch, served, MonotonicSeconds() + client_deadline_s, log);
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      if (serve) {
        --sessions_now;
        ++(st.ok() ? stats.sessions : stats.failed);
      }
      c->closed = true;
    }
    ch.reset();
    std::lock_guard<std::mutex> lock(mu);
    c->done = true;
    ended.notify_all();
  };

  auto reap = [&](bool all) {
    std::list<std::shared_ptr<ServedConn>> finished;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (auto it = conns.begin(); it != conns.end();) {
        if (all || (*it)->done) {
          finished.push_back(*it);
          it = conns.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& c : finished) c->thread.join();
  };

  while (!stop.load()) {
    reap(false);
    {
      // At the bound, accept nobody new (they wait in the listen backlog)
      // until a connection ends, or make room: close the one that has
      // waited longest without a hello, if long enough to tell it from a
      // client whose hello is on its way (a well-formed client sends it at
      // once).
      std::unique_lock<std::mutex> lock(mu);
      if (static_cast<int>(conns.size()) >= limits.max_connections) {
        std::shared_ptr<ServedConn> oldest;
        const double before = MonotonicSeconds() - std::min(0.25, limits.hello_deadline_s / 2);
        for (auto& c : conns)
          if (!c->serving && !c->closed && !c->evicted && c->since <= before && (!oldest || c->since < oldest->since))
            oldest = c;
        if (oldest == nullptr) {
          ended.wait_for(lock, std::chrono::milliseconds(50));
          continue;
        }
        oldest->evicted = true;
        shutdown(oldest->fd, SHUT_RDWR);  // its hello read ends now
        // Its thread ends as its poll returns: wait for it, so that no more
        // than max_connections threads ever run.
        ended.wait_for(lock, std::chrono::seconds(1), [&] { return oldest->done; });
        if (!oldest->done) continue;
        oldest->thread.join();
        conns.remove(oldest);
      }
    }
    absl::StatusOr<PeerChannel> ch = listener.Accept(0.2, &stop, limits.hello_deadline_s);
    if (!ch.ok()) continue;  // nobody within 0.2 s, or stopped
    auto chp = std::make_unique<PeerChannel>(*std::move(ch));
    std::lock_guard<std::mutex> lock(mu);
    auto c = std::make_shared<ServedConn>();
    c->fd = chp->fd();
    c->since = MonotonicSeconds();
    conns.push_back(c);
    stats.peak_connections = std::max(stats.peak_connections, static_cast<int>(conns.size()));
    c->thread = std::thread(serve_one, c, std::move(chp));
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto& c : conns)
      if (!c->closed) shutdown(c->fd, SHUT_RDWR);
  }
  reap(true);
  return stats;
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
  if (!once && wait_s == 0) {
    ServeStats st = ServeClients(*l, *served, tool_version, client_s, options.limits, g_serve_stop, out);
    out << "rdmacheck serve: stopped; " << st.sessions << " clients served, " << st.failed << " failed, "
        << st.bad_hello << " without a valid hello, " << st.evicted << " closed to make room, " << st.refused_busy
        << " refused busy; at most " << st.peak_connections << " connections at once\n";
    if (installed) sigaction(SIGINT, &old, nullptr);
    return st.failed > 0 ? 1 : 0;
  }
  for (;;) {
    absl::StatusOr<PeerChannel> ch = l->Accept(wait_s, &g_serve_stop);
    if (!ch.ok()) {
      if (absl::IsCancelled(ch.status())) break;
      err << "rdmacheck serve: " << ch.status().message() << "\n";
      code = 3;
      break;
    }
    // Each line goes out as it is written: with stdout a file, an unflushed
    // session log shows nothing until the session ends, and whoever watches
    // it (an operator's tail -f, a supervisor) cannot tell a live session
    // from a hung one.
    absl::Status st;
    {
      std::mutex line_mu;
      LineSink sink(out, line_mu);
      std::ostream log(&sink);
      st = ServeClient(*ch, *served, tool_version, client_s, log);
    }
    out.flush();
    if (!st.ok()) code = 1;
    if (once || g_serve_stop.load()) break;
  }
  if (installed) sigaction(SIGINT, &old, nullptr);
  return code;
}

}  // namespace rdmacheck
