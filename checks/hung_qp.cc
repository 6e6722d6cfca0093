#include "checks/hung_qp.h"

#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "facts/container.h"
#include "acts/probe/gid_choice.h"
#include "checks/qdisc_path.h"

namespace rdmacheck {
namespace {

// The netdev the probe's packets passed on `dev`: that of the GID it used
// (a VLAN over the parent when the address is there), else the parent.
std::string NetdevOf(const DeviceView& view, const std::string& dev, int gid_index) {
  const DeviceInfo* d = view.Device(dev);
  if (d == nullptr) return "";
  for (const PortInfo& p : d->ports)
    for (const GidEntry& g : p.gids)
      if (g.index == gid_index && !g.netdev.empty()) return g.netdev;
  return d->netdev.value_or("");
}

// The text of GID `index` of `dev`'s port `port`; "" when not gathered.
std::string GidText(const DeviceView& view, const std::string& dev, int port, int index) {
  const DeviceInfo* d = view.Device(dev);
  const PortInfo* p = d ? d->Port(port) : nullptr;
  if (p == nullptr) return "";
  for (const GidEntry& g : p->gids)
    if (g.index == index) return g.gid;
  return "";
}

// RTR refused with ENETUNREACH: the kernel (ib_resolve_eth_dmac, resolving
// the peer GID's address to a MAC when the QP's address vector is set)
// found no next hop from the netdev of the source GID. A netdev or VLAN set
// down keeps its GID, and RTR to the peer then fails so (docs/guest.md).
bool UnreachableAtRtr(const absl::Status& s) {
  return absl::StrContains(s.message(), "state=RTR") && absl::StrContains(s.message(), "Network is unreachable");
}

void ExplainUnreachableRtr(const DeviceView& view, const ProbeRequest& req, const absl::Status& s,
                           ResultBuilder& b) {
  std::string from = req.device, peer = req.peer_device.empty() ? req.device : req.peer_device;
  int gi = req.gid_index.value_or(-1), pgi = req.peer_gid_index.value_or(-1);
  int peer_port = req.peer_port;
  // The call names the device whose QP was refused ("ibv_modify_qp(dev=rxe1 ..."):
  // the peer's, connecting back, may be the one.
  if (peer != from && absl::StrContains(s.message(), absl::StrCat("(dev=", peer, " "))) {
    std::swap(from, peer);
    std::swap(gi, pgi);
    peer_port = req.port;
  }
  const std::string na = NetdevOf(view, from, gi);
  const std::string peer_gid = GidText(view, peer, peer_port, pgi);
  const std::string ip = ClassifyGid(peer_gid).ipv4;
  const NetdevInfo* n = na.empty() ? nullptr : view.Netdev(na);
  std::string state;
  if (n && n->operstate) state = absl::StrCat(" (operstate ", *n->operstate, ")");
  b.Note(absl::StrCat("RTR refused with ENETUNREACH: the kernel found no next hop from ", from, " GID ", gi,
                      na.empty() ? "" : absl::StrCat(" on ", na, state), " to ", peer, " GID ", pgi,
                      peer_gid.empty() ? "" : absl::StrCat(" ", peer_gid),
                      ": that netdev is down or no route to the peer's address leaves by it"));
  b.Remedy(absl::StrCat("ip -br link show ", na.empty() ? "<netdev of the GID>" : na,
                        "   # must be UP: a netdev or VLAN set down keeps its GID but routes nothing"));
  if (!ip.empty())
    b.Remedy(absl::StrCat("ip route get ", ip, "   # must leave by ", na.empty() ? "the GID's netdev" : na));
  b.Remedy(absl::StrCat("rdmacheck --checks gid-table,rxe-setup -d ", from));
}

std::string WrSubject(const ProbeResult& r, const WrOutcome& w) {
  std::string s = absl::StrCat("WR ", w.index, " ", ProbeOpName(w.spec.op), " ", w.total_bytes, " B in ",
                               w.num_sge, " SGE", w.num_sge == 1 ? "" : "s");
  if (w.spec.straddle > 0) {
    absl::StrAppend(&s, " (", w.sges_crossing, " crossing a ", w.spec.straddle >= kPage2M ? "2 MiB" : "4 KiB",
                    " boundary)");
  }
  absl::StrAppend(&s, " ", r.device, " -> ", r.peer_device);
  return s;
}

std::string WrActual(const WrOutcome& w, Verdict* v) {
  *v = Verdict::kFail;
  switch (w.state) {
    case WrState::kCompleted:
      if (w.verified) {
        *v = Verdict::kPass;
        return absl::StrCat("completed in ", Ms(w.seconds), ", ", w.total_bytes, " B verified");
      }
      return absl::StrCat("completed in ", Ms(w.seconds), ", but byte ", w.first_mismatch.value_or(0),
                          " differs from what was sent");
    case WrState::kError:
      return absl::StrCat("status ", w.wc_status, " (", w.wc_status_text, ")",
                          w.recv_side ? " at the receiver" : "", " after ", Ms(w.seconds));
    case WrState::kNoCompletion:
      return absl::StrCat("no completion", w.recv_side ? " at the receiver" : "", " after ", Ms(w.seconds));
    case WrState::kPostFailed:
      return absl::StrCat("post failed: ", w.post_error);
    case WrState::kNotRun:
      break;
  }
  *v = Verdict::kSkip;
  return "not run";
}

// rxe on a bridge port or bond slave receives nothing: the master's frames
// are not its own (see rxe-setup). The line that moves it onto the master.
std::optional<std::string> RecreateOnMaster(const DeviceView& view, const std::string& device,
                                            absl::string_view what) {
  const DeviceInfo* d = view.Device(device);
  const NetdevInfo* m = d && d->netdev ? RxMaster(view, *d->netdev) : nullptr;
  if (m == nullptr) return std::nullopt;
  return absl::StrCat(RxeRelink(device, m->name), "   # ", *d->netdev, " is a port of ", m->name, ": ", what,
                      " arrive as ", m->name, "'s and ", device, " never sees them");
}

}  // namespace

std::vector<WrSpec> HungQpCheck::ExchangeWrs() {
  return {
      {ProbeOp::kSend, 64, 1, 0},
      {ProbeOp::kSend, 3 * 4096 + 123, 1, 0},
      {ProbeOp::kRdmaWrite, 64 * 1024 + 77, 1, 0},
  };
}

PeerChoice ChoosePeer(const DeviceView& view, const DeviceInfo& dev, int port) {
  const PortInfo* mine = dev.Port(port);
  const DeviceInfo* other_netdev = nullptr;
  const DeviceInfo* same_netdev = nullptr;
  int other_port = 1, same_port = 1;
  std::vector<std::string> unopenable, elsewhere;
  const bool here = !(dev.netdev && NetdevOutsideNamespace(view, *dev.netdev));
  // Named by the netdevs the GIDs ride (a VLAN over the parent, the bridge
  // over a port): two devices whose GIDs ride one netdev share its addresses.
  auto via = [](const DeviceInfo& d, int p) -> std::string {
    const PortInfo* pi = d.Port(p);
    std::vector<std::string> nds = pi ? RoceNetdevs(d, *pi) : std::vector<std::string>{};
    return !nds.empty() ? nds.front() : d.netdev.value_or("");
  };
  const std::string mine_via = via(dev, port);
  for (const DeviceInfo& d : view.devices) {
    if (d.name == dev.name) continue;
    if (UverbsNodeMissing(view.host, d)) {
      unopenable.push_back(absl::StrCat(d.name, "'s /dev/infiniband/", *d.uverbs));
      continue;
    }
    // A device whose netdev is in another network namespace is listed here
    // too (rdma's shared netns mode), but rxe's packets to it never arrive
    // (measured on 6.1: rxe1 on a vb moved into another namespace, sent 7,
    // received 0).
    if (here && d.netdev && NetdevOutsideNamespace(view, *d.netdev)) {
      elsewhere.push_back(absl::StrCat(d.name, " (its netdev ", *d.netdev, ")"));
      continue;
    }
    for (const PortInfo& p : d.ports) {
      if (!p.state || *p.state != "ACTIVE") continue;
      if (mine && mine->link_layer && p.link_layer && *mine->link_layer != *p.link_layer) continue;
      const bool different = dev.netdev && d.netdev && *dev.netdev != *d.netdev &&
                             (mine_via.empty() || via(d, p.port_num) != mine_via);
      if (different && other_netdev == nullptr) {
        other_netdev = &d;
        other_port = p.port_num;
      } else if (!different && same_netdev == nullptr) {
        same_netdev = &d;
        same_port = p.port_num;
      }
    }
  }
  PeerChoice c;
  if (other_netdev != nullptr) {
    c.peer = other_netdev;
    c.peer_port = other_port;
    c.loopback = false;
    c.why = absl::StrCat(other_netdev->name, " on ", *other_netdev->netdev, ": traffic crosses the IP path ",
                         via(dev, port), " -> ", via(*other_netdev, other_port));
  } else if (same_netdev != nullptr) {
    c.peer = same_netdev;
    c.peer_port = same_port;
    c.loopback = false;
    c.why = absl::StrCat(same_netdev->name, " (no device on another netdev)");
  } else {
    c.peer = &dev;
    c.peer_port = port;
    c.loopback = true;
    std::string alone = " (the only device)";
    if (!unopenable.empty())
      alone = absl::StrCat(" (the only device this process can open: ", absl::StrJoin(unopenable, ", "),
                           " missing here)");
    if (!elsewhere.empty())
      alone = absl::StrCat(" (not ", absl::StrJoin(elsewhere, ", "),
                           ": that netdev is in another network namespace, and rxe carries no traffic "
                           "between namespaces)");
    c.why = absl::StrCat("loopback on ", dev.name, alone,
                         ": rxe's internal path; this does not test the IP path (firewall, routes)");
  }
  return c;
}

ProbeRequest MakeProbeRequest(const CheckContext& ctx, const DeviceInfo& dev, int port,
                              const PeerChoice& peer) {
  ProbeRequest req;
  req.device = dev.name;
  req.port = port;
  req.peer_device = peer.loopback ? "" : peer.peer->name;
  req.peer_port = peer.peer_port;
  req.gid_index = ctx.options.gid_index;
  req.peer_gid_index = ctx.options.gid_index;
  // Without -x, the GIDs an operator would pick, from the facts already
  // gathered (the probe then reads just those entries).
  if (!req.gid_index) {
    const PortInfo* p = dev.Port(port);
    const PortInfo* pp = peer.peer ? peer.peer->Port(peer.peer_port) : nullptr;
    const bool v6 = ctx.plan.ip_version.value_or(4) == 6;
    if (p && p->gids_known) {
      absl::StatusOr<GidEntry> g = ChooseGid(p->gids, std::nullopt, dev.name, v6);
      if (g.ok()) req.gid_index = g->index;
    }
    if (pp && pp->gids_known) {
      absl::StatusOr<GidEntry> g = ChooseGid(pp->gids, std::nullopt, peer.peer->name, v6);
      if (g.ok()) req.peer_gid_index = g->index;
    }
  }
  req.deadline_s = ctx.options.probe_deadline_s;
  return req;
}

std::vector<std::string> HangRemedy(HangClass c, const DeviceView& view, const ProbeResult& r,
                                    absl::string_view check_id) {
  const std::string proof = absl::StrCat("rdmacheck --checks ", check_id, " -d ", r.device,
                                         "   # shows the fix took");
  const std::string na = NetdevOf(view, r.device, r.gid_index),
                    nb = NetdevOf(view, r.peer_device, r.peer_gid_index);
  const std::string peer_ip = ClassifyGid(r.peer_gid).ipv4;
  switch (c) {
    case HangClass::kPathBlocked: {
      std::vector<std::string> out;
      if (auto line = RecreateOnMaster(view, r.peer_device, "packets for it")) out.push_back(*line);
      out.insert(out.end(), {
          "nft list ruleset | grep 4791; iptables -S | grep 4791   # find the rule dropping RoCE v2 (UDP 4791), "
          "then delete it",
          absl::StrCat("rdmacheck --checks firewall-4791,gid-table -d ", r.device, "   # firewall and GIDs (",
                       r.device, " GID ", r.gid_index, " ", r.gid, " -> ", r.peer_device, " GID ",
                       r.peer_gid_index, " ", r.peer_gid, ")")});
      if (!peer_ip.empty()) {
        out.push_back(absl::StrCat("ip route get ", peer_ip, "   # the route to ", r.peer_device,
                                   "'s address should leave by ", na.empty() ? "its netdev" : na));
      }
      out.push_back(proof);
      return out;
    }
    case HangClass::kMtuAbovePath:
      return {absl::StrCat("ip link show dev ", na.empty() ? "<netdev>" : na, "; ip link show dev ",
                           nb.empty() ? "<peer netdev>" : nb, "   # every hop needs MTU >= ", r.path_mtu,
                           " + 58 bytes of RoCE v2 headers"),
              absl::StrCat("rdmacheck --checks mtu-chain -d ", r.device),
              absl::StrCat("ibv_devinfo -d ", r.device, " | grep active_mtu   # use a path MTU no larger"),
              proof};
    case HangClass::kPeerNotReady:
      return {"post receive WRs on the peer QP before the sender's SENDs (or raise min_rnr_timer/rnr_retry, "
              "below 7)",
              absl::StrCat("cat /sys/class/infiniband/", r.peer_device, "/ports/1/hw_counters/rcvd_rnr_err"),
              proof};
    case HangClass::kCqOverrun:
      return {"size each CQ for every WR that completes into it: cqe >= sum of max_send_wr + max_recv_wr",
              absl::StrCat("rdmacheck --checks cq-depth -d ", r.device), proof};
    case HangClass::kQpInError:
      return {absl::StrCat("rdma res show qp dev ", r.device, "   # QPs in state ERR; find the first failed WR"),
              "destroy and re-create (or reset to INIT) a QP that went to ERR before posting again", proof};
    case HangClass::kPeerNoAck: {
      std::vector<std::string> out;
      if (auto line = RecreateOnMaster(view, r.device, "its ACKs")) out.push_back(*line);
      out.push_back(absl::StrCat("rdma res show qp dev ", r.peer_device, "   # is the peer QP in RTR/RTS?"));
      out.push_back(absl::StrCat("rdmacheck --checks gid-table,rxe-setup -d ", r.device));
      out.push_back(proof);
      return out;
    }
    case HangClass::kLocalIpv6:
      return {absl::StrCat("ip -6 route get ", r.peer_gid, " from ", r.gid,
                           "   # \"dev lo\": the pair's packets never cross ", na.empty() ? "the netdev" : na),
              absl::StrCat("rdmacheck -d ", r.device, " -x <the ::ffff: (IPv4) GID index>   # between devices of "
                           "one host probe over IPv4 GIDs"),
              absl::StrCat("rdmacheck --peer HOST -d ", r.device,
                           "   # IPv6 RoCE over the wire: probe a device on another host (rdmacheck serve there)")};
    case HangClass::kNotSent:
      return {absl::StrCat("rdma link show; ip link show dev ", na.empty() ? "<netdev>" : na,
                           "   # is the link up and the netdev UP?"),
              absl::StrCat("rdmacheck --checks port-active -d ", r.device), proof};
    case HangClass::kDataMismatch:
      return {absl::StrCat("rerun: rdmacheck --checks ", check_id, " -d ", r.device,
                           " --format json   # and report the offset to the driver's maintainers"),
              absl::StrCat("dmesg | grep -i ", r.device)};
    case HangClass::kUndetermined:
    case HangClass::kOtherError:
      return {absl::StrCat("grep . /sys/class/infiniband/", r.device, "/ports/1/hw_counters/*"),
              absl::StrCat("dmesg | grep -i ", r.device), proof};
    case HangClass::kHealthy:
    case HangClass::kInterrupted:
      break;
  }
  return {};
}

void ReportPath(const ProbeResult& r, ResultBuilder& b) {
  const double per_try_ms = 4.096e-3 * std::pow(2.0, r.timeout);
  b.Expect(absl::StrCat("probe path ", r.device, " -> ", r.peer_device),
           "RC QPs connected, retry_cnt <= 6, a deadline per WR",
           absl::StrCat(r.device, " GID ", r.gid_index, " ", r.gid, " -> ", r.peer_device, " GID ",
                        r.peer_gid_index, " ", r.peer_gid, " (", r.gid_type, "), path MTU ", r.path_mtu,
                        " B, retry_cnt ", r.retry_cnt, ", timeout ", r.timeout, " (",
                        absl::StrFormat("%.1f", per_try_ms), " ms per try), deadline ",
                        absl::StrFormat("%g", r.deadline_s), " s, set up in ", Ms(r.setup_seconds)));
  if (r.loopback) {
    b.Note(absl::StrCat("loopback on ", r.device,
                        ": rxe's internal path, this does not test the IP path (firewall, routes, MTU of "
                        "the netdevs)"));
  }
}

Diagnosis ReportProbe(const CheckContext& ctx, const ProbeResult& r, ResultBuilder& b) {
  ReportPath(r, b);
  for (const WrOutcome& w : r.wrs) {
    if (w.state == WrState::kNotRun) {
      if (!w.skip_reason.empty()) {
        b.Note(absl::StrCat("WR ", w.index, " (", ProbeOpName(w.spec.op), ", ", w.num_sge, " SGEs) not run: ",
                            w.skip_reason));
      }
      continue;
    }
    Verdict v;
    std::string actual = WrActual(w, &v);
    b.Expect(WrSubject(r, w),
             absl::StrCat("completion within ", absl::StrFormat("%g", r.deadline_s), " s, every byte as sent"),
             actual, v);
  }
  for (const std::string& n : r.notes) b.Note(n);
  return ReportFailure(ctx, r, b);
}

Diagnosis ReportFailure(const CheckContext& ctx, const ProbeResult& r, ResultBuilder& b) {
  Diagnosis d = ClassifyProbe(r);
  if (d.cls == HangClass::kHealthy) return d;
  if (d.cls == HangClass::kInterrupted) {
    b.Note("interrupted (SIGINT): every resource was released");
    b.Raise(Verdict::kWarn);
    return d;
  }
  const WrOutcome* f = r.FirstFailure();
  int not_run = 0;
  for (const WrOutcome& w : r.wrs) not_run += (w.state == WrState::kNotRun && w.skip_reason.empty()) ? 1 : 0;
  if (not_run > 0) b.Note(absl::StrCat(not_run, " later WRs were not posted after WR ", f->index, " failed"));
  b.Expect(absl::StrCat(r.device, " QP state after WR ", f->index), "RTS", r.qp_state,
           r.qp_state == "RTS" ? Verdict::kPass : Verdict::kFail);
  b.Expect("async events", "none",
           r.async_events.empty() ? "none" : absl::StrJoin(r.async_events, "; "),
           r.async_events.empty() ? Verdict::kPass : Verdict::kFail);
  if (r.counters_known) {
    b.Expect(absl::StrCat(r.device, " hw_counters during WR ", f->index), "sent_pkts up, errors flat",
             FormatDelta(f->local_delta), Verdict::kFail);
    if (!r.loopback) {
      b.Expect(absl::StrCat(r.peer_device, " hw_counters during WR ", f->index), "rcvd_pkts up",
               FormatDelta(f->peer_delta), Verdict::kFail);
    }
  } else {
    b.Note(absl::StrCat("no hw_counters under /sys/class/infiniband/", r.device, "/ports/1/hw_counters"));
  }
  b.Expect("cause", "none", absl::StrCat(HangClassName(d.cls), ": ", d.why), Verdict::kFail);
  b.Note(absl::StrCat("retry_cnt ", r.retry_cnt,
                      ", not 7: at 7 rxe retries forever, which is how perftest and ibv_rc_pingpong hang "
                      "silently on the same fault"));
  for (const std::string& line : HangRemedy(d.cls, ctx.view, r, b.Build().id)) b.Remedy(line);
  return d;
}

Result HungQpCheck::Run(const CheckContext& ctx) const {
  const std::string deadline = absl::StrFormat("%g", ctx.options.probe_deadline_s);
  const std::string title =
      absl::StrCat("SENDs and RDMA WRITEs to a peer device complete within ", deadline, " s, every byte intact");
  if (!ctx.view.live()) return ResultBuilder::Skip(*this, title, "traffic probe needs a live device");
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) return ResultBuilder::Skip(*this, title, "no RDMA device");
  if (!ctx.device_for) return ResultBuilder::CouldNotRun(*this, title, "no Device to run the probe on");
  ResultBuilder b(*this, title);
  std::vector<std::string> pairs;
  int probed = 0;
  for (const DeviceInfo* dev : devs) {
    std::vector<const PortInfo*> ports = ctx.SelectedPorts(*dev);
    const int port = ports.empty() ? 1 : ports[0]->port_num;
    PeerChoice peer = ChoosePeer(ctx.view, *dev, port);
    const std::string pair = absl::StrCat(dev->name, " -> ", peer.loopback ? dev->name : peer.peer->name);
    if (RefuseDroppingPath(ctx.view, *dev, port, peer.loopback ? nullptr : peer.peer, peer.peer_port, pair, b)) {
      pairs.push_back(pair);
      continue;
    }
    std::unique_ptr<Device> d = OpenOrWarn(ctx, *dev, "probe", b);
    if (d == nullptr) continue;
    ProbeRequest req = MakeProbeRequest(ctx, *dev, port, peer);
    req.wrs = ExchangeWrs();
    absl::StatusOr<ProbeResult> got = d->RunTrafficProbe(req);
    if (absl::IsUnimplemented(got.status())) {
      return ResultBuilder::Skip(*this, title, std::string(got.status().message()));
    }
    pairs.push_back(pair);
    if (!got.ok()) {
      b.Expect(absl::StrCat("probe setup ", pairs.back()), "connected RC QP pair",
               std::string(got.status().message()), Verdict::kWarn);
      b.Note(absl::StrCat("could not carry out the probe ", pairs.back()));
      if (absl::IsFailedPrecondition(got.status())) {
        b.Remedy(absl::StrCat("rdmacheck --checks port-active -d ", dev->name));
      } else if (UnreachableAtRtr(got.status())) {
        ExplainUnreachableRtr(ctx.view, req, got.status(), b);
      }
      continue;
    }
    ++probed;
    b.Note(absl::StrCat("peer: ", peer.why));
    ReportProbe(ctx, *got, b);
  }
  if (!pairs.empty()) {
    b.Title(absl::StrCat("SENDs and RDMA WRITEs ", absl::StrJoin(pairs, ", "), " complete within ", deadline,
                         " s, every byte intact"));
  }
  return b.Build();
}

}  // namespace rdmacheck
