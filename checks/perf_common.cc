#include "checks/perf_common.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "acts/probe/classify.h"

namespace rdmacheck {

PerfTarget PerfTargetFor(const CheckContext& ctx, const DeviceInfo& dev) {
  PerfTarget t;
  t.dev = &dev;
  std::vector<const PortInfo*> ports = ctx.SelectedPorts(dev);
  t.port = ports.empty() ? 1 : ports[0]->port_num;
  t.peer = ChoosePeer(ctx.view, dev, t.port);
  // The probes' GID choice and deadline, so the run takes the path hung-qp checks.
  ProbeRequest req = MakeProbeRequest(ctx, dev, t.port, t.peer);
  t.ends.device = dev.name;
  t.ends.port = t.port;
  t.ends.peer_device = req.peer_device;
  t.ends.peer_port = req.peer_port;
  t.ends.gid_index = req.gid_index;
  t.ends.peer_gid_index = req.peer_gid_index;
  t.ends.deadline_s = req.deadline_s;
  t.pair = absl::StrCat(dev.name, " -> ", t.peer.loopback ? dev.name : t.peer.peer->name);
  return t;
}

std::vector<PerfTarget> PerfTargets(const CheckContext& ctx, ResultBuilder& b) {
  std::vector<PerfTarget> out;
  for (const DeviceInfo* dev : ctx.SelectedDevices()) {
    PerfTarget t = PerfTargetFor(ctx, *dev);
    const std::string peer = t.peer.loopback ? dev->name : t.peer.peer->name;
    bool seen = false;
    for (const PerfTarget& o : out) {
      const std::string opeer = o.peer.loopback ? o.dev->name : o.peer.peer->name;
      seen = seen || (o.dev->name == peer && opeer == dev->name);
    }
    if (seen) {
      b.Note(absl::StrCat(t.pair, ": measured as ", peer, " -> ", dev->name, " (the same pair)"));
      continue;
    }
    out.push_back(std::move(t));
  }
  return out;
}

BenchSettings BandwidthCheckSettings(const Plan& plan) {
  BenchSettings s;
  if (plan.perf && plan.perf->message_size) s.size = *plan.perf->message_size;
  // Stable within 10 % over three 0.15 s slices, between 0.45 s and 1.2 s:
  // about a second added to the checklist (Soft-RoCE under emulation is
  // seldom steadier than that).
  s.stop = StopRule{.slice_s = 0.15, .min_s = 0.45, .max_s = 1.2, .spread = 0.10, .slices = 3};
  return s;
}

BenchSettings LatencyCheckSettings() {
  BenchSettings s;
  s.mode = BenchMode::kLatency;
  s.size = kDefaultLatSize;
  s.iters = kDefaultLatIters;
  s.tx_depth = kDefaultLatTxDepth;
  return s;
}

std::string RunSettingsText(const BenchResult& r) {
  const BenchSettings& s = r.settings;
  if (s.mode == BenchMode::kLatency) {
    return absl::StrFormat("-s %d -n %d -I %d -m %d, %d samples", s.size, s.iters, s.inline_size.value_or(0), s.mtu,
                           r.lat.samples);
  }
  return absl::StrFormat("-s %d -q %d -l %d --cq-mod %d -t %d -m %d, %.2f s, %d messages%s", s.size, s.qps,
                         s.post_list, s.cq_mod, s.tx_depth, s.mtu, r.seconds, r.messages,
                         s.stop ? (r.stable ? absl::StrFormat(", stable within %.0f %%", 100 * s.stop->spread)
                                 : absl::StrFormat(", not stable within %g s", s.stop->max_s))
                         : "");
}

void ReportRunProblem(const CheckContext& ctx, Device& d, const PerfTarget& t,
                      const absl::StatusOr<BenchResult>& got, absl::string_view what, ResultBuilder& b) {
  if (!got.ok()) {
    // WARN, as hung-qp's: the check that owns the cause (port-active,
    // memlock) FAILs it; this one could not carry out its run.
    const bool port_down = absl::IsFailedPrecondition(got.status()) &&
                           absl::StrContains(got.status().message(), "not ACTIVE");
    b.Expect(absl::StrCat(what, " run setup ", t.pair), "connected RC QPs", std::string(got.status().message()),
             Verdict::kWarn);
    if (port_down) b.Remedy(absl::StrCat("rdmacheck --checks port-active -d ", t.dev->name));
    if (absl::StrContains(got.status().message(), "RLIMIT_MEMLOCK"))
      b.Remedy(absl::StrCat("rdmacheck --checks memlock -d ", t.dev->name));
    return;
  }
  const BenchResult& r = *got;
  if (r.end == BenchEnd::kInterrupted) {
    b.Note("interrupted: every resource was released");
    b.Raise(Verdict::kWarn);
    return;
  }
  b.Expect(absl::StrCat(t.pair, " ", what, " run"), "completes",
           absl::StrCat(BenchEndName(r.end), ": ", r.failure, " (QP ", r.qp_state, ")"), Verdict::kFail);
  if (r.counters_known) {
    b.Expect(absl::StrCat(r.device, " hw_counters during the run"), "sent_pkts up, errors flat",
             FormatDelta(CounterDelta(r.counters_before, r.counters_after)), Verdict::kFail);
  }
  // Why: the exchange hung-qp makes, over the same pair, classified as hung-qp does.
  ProbeRequest req = MakeProbeRequest(ctx, *t.dev, t.port, t.peer);
  req.wrs = HungQpCheck::ExchangeWrs();
  absl::StatusOr<ProbeResult> probe = d.RunTrafficProbe(req);
  if (!probe.ok()) {
    b.Note(absl::StrCat("the exchange that would tell why could not run: ", probe.status().message()));
    return;
  }
  Diagnosis dg = ReportFailure(ctx, *probe, b);
  if (dg.cls != HangClass::kHealthy && dg.cls != HangClass::kInterrupted) {
    // A shaping qdisc reads as any of these classes: tbf drops every packet
    // larger than its burst (send_err, as an MTU above the path's), netem
    // loss as a blocked path.
    b.Remedy(SlowCauses(ctx, t, r).front());
  }
  if (dg.cls == HangClass::kHealthy) {
    b.Note(absl::StrCat("hung-qp's exchange over ", t.pair,
                        " completed: the path carries single WRs, and stalls only under load"));
    for (const std::string& c : SlowCauses(ctx, t, r)) b.Remedy(c);
  }
}

QdiscPath QdiscPathOf(const CheckContext& ctx, const PerfTarget& t) {
  return QdiscPathOf(ctx.view, *t.dev, t.port, t.peer.loopback ? nullptr : t.peer.peer, t.peer.peer_port);
}

bool AvoidDroppingQdisc(const CheckContext& ctx, const PerfTarget& t, BenchSettings* s, ResultBuilder& b) {
  const QdiscPath path = QdiscPathOf(ctx, t);
  const int mtu = s->mtu > 0 ? std::min(s->mtu, path.active_mtu) : path.active_mtu;
  std::optional<PathQdisc> pq = path.Dropping(mtu);
  if (!pq) return true;
  ReportDroppingQdisc(*pq, mtu, t.pair, b);
  const int fit = path.FittingMtu(mtu);
  if (fit == 0) {
    b.Note("not measured: no path MTU down to 256 has frames the qdisc passes");
    return false;
  }
  s->mtu = fit;
  b.Note(absl::StrCat("measured at path MTU ", fit, ", the largest whose frames (", RoceFrameBytes(fit),
                      " B) the qdisc on ", pq->netdev, " passes: no full-size packet is sent into it"));
  return true;
}

std::vector<std::string> SlowCauses(const CheckContext& ctx, const PerfTarget& t, const BenchResult& r) {
  std::vector<std::string> out;
  // The qdiscs the gather read, named first: they are the cause when present.
  for (const PathQdisc& pq : QdiscPathOf(ctx, t).qdiscs) {
    if (PlainQueue(pq.q)) continue;
    out.push_back(absl::StrCat("tc qdisc show dev ", pq.netdev, "   # ", QdiscText(pq.q),
                               pq.q.rate_bps ? absl::StrCat(": caps RoCE at ", *pq.q.rate_bps / 1e9, " Gb/s") : "",
                               pq.q.delay_us ? absl::StrFormat(": delays every packet %s sends by %.2f ms", pq.netdev,
                                                               *pq.q.delay_us / 1000)
                                             : "",
                               pq.q.loss_pct ? absl::StrFormat(": drops %g %% of packets", *pq.q.loss_pct) : "",
                               "; remove it: tc qdisc del dev ", pq.netdev, " root"));
  }
  const PortInfo* p = t.dev->Port(t.port);
  std::optional<std::string> nd = p ? PortNetdev(*t.dev, *p) : std::nullopt;
  std::string peer_nd;
  if (!t.peer.loopback && t.peer.peer) {
    if (const PortInfo* pp = t.peer.peer->Port(t.peer.peer_port)) peer_nd = PortNetdev(*t.peer.peer, *pp).value_or("");
  }
  const std::string netdevs = nd ? (peer_nd.empty() || peer_nd == *nd ? *nd : absl::StrCat(*nd, " ", peer_nd)) : "";
  auto each = [&](absl::string_view cmd) {
    std::string s;
    if (netdevs.empty()) return absl::StrCat(cmd, " NETDEV");
    for (absl::string_view n : absl::StrSplit(netdevs, ' ')) absl::StrAppend(&s, s.empty() ? "" : "; ", cmd, " ", n);
    return s;
  };
  out.push_back(absl::StrCat(each("tc qdisc show dev"),
                             "   # a shaping qdisc (tbf, netem, htb) on the netdev caps or delays every RoCE packet"));
  out.push_back(absl::StrCat(each("ip link show dev"), "; ibv_devinfo -d ", r.device,
                             " | grep mtu   # path MTU ", r.settings.mtu, " of active ", r.active_mtu,
                             ": a small MTU multiplies the packets"));
  out.push_back(absl::StrCat("rdmacheck --checks firewall-4791,link-health -d ", r.device,
                             "   # drops and retransmissions on the path"));
  if (!IsSoftDevice(*t.dev)) {
    out.push_back(absl::StrCat("cat /sys/class/infiniband/", r.device,
                               "/device/numa_node; lscpu | grep NUMA   # run on the adapter's NUMA node"));
  }
  out.push_back(absl::StrCat("rdmacheck bench -d ", r.device, r.loopback ? "" : absl::StrCat(" --peer-dev ", r.peer_device),
                             " --sweep pin,qp --advise   # pinning and QPs, measured on this node"));
  return out;
}

}  // namespace rdmacheck
