#include "checks/link_health.h"

#include <cinttypes>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "facts/hw_counters.h"

namespace rdmacheck {
namespace {

// Meanings: Documentation/ABI/stable/sysfs-class-infiniband (the IB PMA
// counters), drivers/infiniband/sw/rxe/rxe_hw_counters.c and its callers
// (rxe), drivers/infiniband/hw/mlx5/counters.c and NVIDIA's "Understanding
// mlx5 Linux counters" (mlx5).
constexpr CounterKind kCounterTable[] = {
    // Physical layer: the link itself is bad. FAIL.
    {"symbol_error", CounterClass::kPhysical, "symbol errors on the physical lanes"},
    {"link_error_recovery", CounterClass::kPhysical, "times the link retrained after errors"},
    {"link_downed", CounterClass::kPhysical, "times the link went down"},
    {"local_link_integrity_errors", CounterClass::kPhysical, "bursts of local physical errors past the threshold"},
    {"port_rcv_errors", CounterClass::kPhysical, "packets received with errors (CRC, length, malformed)"},
    {"port_rcv_remote_physical_errors", CounterClass::kPhysical, "packets marked bad by a physical error upstream"},
    {"excessive_buffer_overrun_errors", CounterClass::kPhysical, "flow-control periods with the receive buffer overrun"},
    {"rx_icrc_encapsulated", CounterClass::kPhysical, "RoCE packets received with a bad ICRC"},
    // Discards and congestion: the link works, the fabric drops or throttles. WARN.
    {"port_xmit_discards", CounterClass::kDiscard, "outbound packets discarded (link down or congestion)"},
    {"port_xmit_wait", CounterClass::kDiscard, "ticks with data to send and no flow-control credit"},
    {"port_xmit_constraint_errors", CounterClass::kDiscard, "outbound packets dropped by partition enforcement"},
    {"port_rcv_constraint_errors", CounterClass::kDiscard, "inbound packets dropped by partition enforcement"},
    {"port_rcv_switch_relay_errors", CounterClass::kDiscard, "packets the switch could not forward"},
    {"VL15_dropped", CounterClass::kDiscard, "subnet management packets dropped"},
    {"out_of_buffer", CounterClass::kDiscard, "packets dropped for want of a posted receive"},
    {"np_cnp_sent", CounterClass::kDiscard, "CNPs sent: packets arrived ECN-marked by a congested switch"},
    {"np_ecn_marked_roce_packets", CounterClass::kDiscard, "RoCE packets received ECN-marked (congestion)"},
    {"rp_cnp_handled", CounterClass::kDiscard, "CNPs received: this sender was told to slow down"},
    {"rp_cnp_ignored", CounterClass::kDiscard, "CNPs received and ignored"},
    // Transport: retries and sequence errors, packets lost on the way. WARN.
    {"retry_exceeded_err", CounterClass::kTransport, "requests that used up retry_cnt (rxe)"},
    {"retry_rnr_exceeded_err", CounterClass::kTransport, "requests that used up rnr_retry (rxe)"},
    {"completer_retry_err", CounterClass::kTransport, "retransmissions after an ACK timeout (rxe)"},
    {"rcvd_seq_err", CounterClass::kTransport, "sequence-error NAKs received: packets lost toward the responder (rxe)"},
    {"duplicate_request", CounterClass::kTransport, "requests received twice: the requester retried (ACKs lost or late)"},
    {"out_of_seq_request", CounterClass::kTransport, "requests received out of order: packets lost (rxe)"},
    {"rcvd_rnr_err", CounterClass::kTransport, "RNR NAKs received: the peer had no receive posted (rxe)"},
    {"send_rnr_err", CounterClass::kTransport, "RNR NAKs sent: a receive queue here ran dry (rxe)"},
    {"send_err", CounterClass::kTransport, "packets the netdev refused to send (rxe)"},
    {"out_of_sequence", CounterClass::kTransport, "packets received out of sequence (mlx5)"},
    {"packet_seq_err", CounterClass::kTransport, "sequence-error NAKs received (mlx5)"},
    {"implied_nak_seq_err", CounterClass::kTransport, "implied NAKs: a response skipped a sequence number (mlx5)"},
    {"local_ack_timeout_err", CounterClass::kTransport, "ACK timeouts at the requester (mlx5)"},
    {"rnr_nak_retry_err", CounterClass::kTransport, "requests that used up rnr_retry (mlx5)"},
    {"roce_adp_retrans", CounterClass::kTransport, "adaptive retransmissions (mlx5)"},
    {"roce_adp_retrans_to", CounterClass::kTransport, "adaptive retransmission timeouts (mlx5)"},
    {"roce_slow_restart", CounterClass::kTransport, "slow restarts after retransmission (mlx5)"},
    {"req_cqe_error", CounterClass::kTransport, "requester completions with an error (mlx5)"},
    {"resp_cqe_error", CounterClass::kTransport, "responder completions with an error (mlx5)"},
    {"req_remote_access_errors", CounterClass::kTransport, "remote access errors at the requester (mlx5)"},
    {"resp_remote_access_errors", CounterClass::kTransport, "remote access errors at the responder (mlx5)"},
    {"req_remote_invalid_request", CounterClass::kTransport, "invalid-request NAKs received (mlx5)"},
    {"resp_local_length_error", CounterClass::kTransport, "receives too short for what arrived (mlx5)"},
};

Verdict VerdictOf(CounterClass c) { return c == CounterClass::kPhysical ? Verdict::kFail : Verdict::kWarn; }

std::string Seconds(int64_t ms) { return absl::StrFormat("%.1f s", ms / 1000.0); }
// Signed: events kept from an earlier window are before this one (checks/session.h).
std::string At(int64_t ms) { return absl::StrFormat("%+.2f s", ms / 1000.0); }

std::string Uptime(uint64_t s) {
  if (s >= 86400) return absl::StrCat(s / 86400, " d ", s % 86400 / 3600, " h");
  if (s >= 3600) return absl::StrCat(s / 3600, " h ", s % 3600 / 60, " min");
  return absl::StrCat(s / 60, " min");
}

// What each class of moving counter asks the operator to look at.
void RemedyFor(CounterClass c, const DeviceInfo& d, const PortInfo& p, ResultBuilder& r) {
  const std::string nd = PortNetdev(d, p).value_or("NETDEV");
  const bool eth = p.link_layer && *p.link_layer == "Ethernet";
  switch (c) {
    case CounterClass::kPhysical:
      if (IsSoftDevice(d)) {
        r.Remedy(absl::StrCat("ip -s link show ", nd, "   # the netdev under ", d.name, ": errors, carrier changes"));
        r.Remedy(absl::StrCat("ip monitor link dev ", nd, "   # who takes it down"));
        break;
      }
      if (eth) r.Remedy(absl::StrCat("ethtool -m ", nd, "   # transceiver temperature, Rx/Tx power"));
      r.Remedy(absl::StrCat("mlxlink -d ", d.pci_address.value_or(d.name), " -p ", p.port_num,
                            " -c -e   # NVIDIA MFT: cable info, BER and FEC counters"));
      r.Remedy(absl::StrCat("perfquery -x -C ", d.name, " -P ", p.port_num, "   # the port counters again"));
      r.Remedy("reseat or replace the cable / transceiver, or move to another switch port, then run link-health again");
      break;
    case CounterClass::kDiscard:
      if (eth) {
        r.Remedy(absl::StrCat("ethtool -S ", nd, " | grep -Ei 'discard|pause|prio|cnp|ecn'   # PFC/ECN at work?"));
        r.Remedy(absl::StrCat("mlnx_qos -i ", nd, "   # PFC priorities and trust mode (NVIDIA OFED)"));
      } else {
        r.Remedy(absl::StrCat("ibqueryerrors -C ", d.name, " -P ", p.port_num, "   # the fabric's error counters"));
      }
      r.Remedy("check the switch port for congestion and drops (its own counters)");
      break;
    case CounterClass::kTransport:
      if (eth) {
        r.Remedy(absl::StrCat("tc qdisc show dev ", nd, "   # a netem or tbf qdisc left behind drops or delays packets"));
        r.Remedy("nft list ruleset | grep -n 4791   # a firewall dropping some RoCE v2 packets");
        r.Remedy(absl::StrCat("ethtool -S ", nd, " | grep -Ei 'drop|discard'"));
      }
      r.Remedy(absl::StrCat("rdmacheck --checks hung-qp,firewall-4791,mtu-chain -d ", d.name,
                            "   # is the path itself blocked or its MTU short?"));
      break;
  }
}

struct PortLook {
  int watched = 0;      // judged counters present in both samples
  std::map<CounterClass, bool> moved;
};

void JudgeCounters(const CheckContext& ctx, const DeviceInfo& d, const PortInfo& p,
                   const Counters& before, const Counters& after,
                   int64_t ms, ResultBuilder& r, PortLook& look) {
  const std::string subj = absl::StrCat(d.name, " port ", p.port_num);
  for (const CounterMove& m : CounterMoves(before, after)) {
    const CounterKind* k = FindCounterKind(m.name);
    if (k == nullptr) continue;
    ++look.watched;
    if (m.after == m.before) continue;
    const std::string& name = m.name;
    const std::string row = absl::StrCat(subj, " ", name, " (", k->meaning, ")");
    if (m.went_back()) {
      r.Expect(row, "a counter that only grows",
               absl::StrCat("went back from ", m.before, " to ", m.after, ": reset or wrapped, not judged"),
               Verdict::kWarn);
      continue;
    }
    const uint64_t delta = m.delta();
    const double per_s = ms > 0 ? delta * 1000.0 / ms : static_cast<double>(delta);
    const std::string actual = absl::StrFormat("+%d in %s (%.3g/s)", delta, Seconds(ms), per_s);
    if (const CounterLimit* lim = ctx.plan.CounterLimitFor(name)) {
      const bool ok = per_s <= lim->max_per_s;
      r.Expect(row, absl::StrFormat("<= %g/s (plan %s:%d)", lim->max_per_s, ctx.plan.path, lim->line), actual,
               ok ? Verdict::kPass : VerdictOf(k->cls));
      if (ok) continue;
    } else {
      r.Expect(row, absl::StrCat("no change over ", Seconds(ms)), actual, VerdictOf(k->cls));
    }
    look.moved[k->cls] = true;
  }
}

// Totals since boot of the judged counters that are not zero.
void NoteTotals(const CheckContext& ctx, const DeviceInfo& d, const PortInfo& p, ResultBuilder& r) {
  std::vector<std::string> parts;
  for (const auto* c : {&p.counters_after, &p.hw_counters_after})
    for (const auto& [name, v] : *c)
      if (v > 0 && FindCounterKind(name) != nullptr) parts.push_back(absl::StrCat(name, " ", v));
  if (parts.empty()) return;
  std::string up = ctx.view.host.uptime_s ? absl::StrCat(" (up ", Uptime(*ctx.view.host.uptime_s), ")") : "";
  r.Note(absl::StrCat(d.name, " port ", p.port_num, " since boot", up, ", not judged: ", absl::StrJoin(parts, ", ")));
}

// The device's async events in the window: flaps, fatal errors, SM and GID changes.
void JudgeEvents(const LinkWindow& w, const DeviceInfo& d, const std::vector<const PortInfo*>& ports,
                 ResultBuilder& r) {
  std::map<int, std::vector<const AsyncEventSeen*>> link;  // PORT_ERR / PORT_ACTIVE by port
  for (const AsyncEventSeen& e : w.events) {
    if (e.device != d.name) continue;
    bool in_use = !e.port;
    for (const PortInfo* p : ports) in_use = in_use || (e.port && *e.port == p->port_num);
    if (!in_use) continue;
    if (e.type == "PORT_ERR" || e.type == "PORT_ACTIVE") {
      link[e.port.value_or(0)].push_back(&e);
    } else if (e.type == "DEVICE_FATAL") {
      r.Expect(absl::StrCat(d.name, " device"), "no fatal error",
               absl::StrCat("IBV_EVENT_DEVICE_FATAL at ", At(e.at_ms), ": the adapter must be reset"), Verdict::kFail);
      r.Remedy(absl::StrCat("dmesg -T | tail -50   # the driver's reason for ", d.name, "'s fatal error"));
      r.Remedy("restart the applications on this device after the driver recovers it (or reload the driver)");
    } else {
      const bool gid = e.type == "GID_CHANGE";
      r.Expect(absl::StrCat(d.name, " port ", e.port.value_or(0), " ", gid ? "GID table" : "subnet"),
               "no change during the window",
               absl::StrCat(e.type, " at ", At(e.at_ms),
                            gid ? ": an address was added to or removed from the netdev"
                                : ": the subnet manager changed or re-swept the port"),
               Verdict::kWarn);
      if (gid) r.Remedy(absl::StrCat("ip monitor address   # who changes ", d.netdev.value_or("the netdev"), "'s addresses"));
      else r.Remedy(absl::StrCat("sminfo -C ", d.name, "   # which SM is master now; its log says why it re-swept"));
    }
  }
  for (const auto& [port, evs] : link) {
    std::vector<std::string> seq;
    bool err = false, active = false;
    for (size_t i = 0; i < evs.size(); ++i) {
      const AsyncEventSeen* e = evs[i];
      // rxe raises PORT_ACTIVE twice for one `ip link set up` (NETDEV_UP,
      // then NETDEV_CHANGE): one entry, counted.
      size_t n = 1;
      while (i + n < evs.size() && evs[i + n]->type == e->type && evs[i + n]->at_ms - e->at_ms < 50) ++n;
      seq.push_back(absl::StrCat(e->type, " at ", At(e->at_ms), n > 1 ? absl::StrCat(" (x", n, ")") : ""));
      i += n - 1;
      err = err || e->type == "PORT_ERR";
      active = active || e->type == "PORT_ACTIVE";
    }
    const std::string what = err && active ? "link flapped: " : err ? "link went down: " : "link came up: ";
    r.Expect(absl::StrCat(d.name, " port ", port, " link"), "no PORT_ERR or PORT_ACTIVE event",
             absl::StrCat(what, absl::StrJoin(seq, ", "), w.started ? absl::StrCat(" (window from ", *w.started, ")") : ""),
             err ? Verdict::kFail : Verdict::kWarn);
    const PortInfo* p = d.Port(port);
    const std::string nd = p ? PortNetdev(d, *p).value_or("NETDEV") : d.netdev.value_or("NETDEV");
    if (IsSoftDevice(d)) {
      r.Note(absl::StrCat(d.name, " follows netdev ", nd, ": its port goes down whenever ", nd, " does"));
      r.Remedy(absl::StrCat("ip monitor link dev ", nd, "   # catches whoever sets ", nd, " down (NetworkManager, a script)"));
    }
    r.Remedy(absl::StrCat("ip -s link show ", nd, "   # carrier_changes counts the flaps"));
    r.Remedy(absl::StrCat("dmesg -T | grep -Ei '", nd, "|link (is )?(up|down)'   # the driver's side of it"));
  }
}

}  // namespace

const CounterKind* FindCounterKind(absl::string_view name) {
  for (const CounterKind& k : kCounterTable)
    if (name == k.name) return &k;
  return nullptr;
}

std::vector<std::string> JudgedMoves(const DeviceView& view, std::optional<int> port) {
  std::vector<std::string> out;
  if (!view.window) return out;
  auto moves = [&out](const std::string& subj, const Counters& before, const Counters& after, bool all) {
    for (const CounterMove& m : CounterMoves(before, after)) {
      if (m.after == m.before || (!all && FindCounterKind(m.name) == nullptr)) continue;
      out.push_back(m.went_back() ? absl::StrCat(subj, " ", m.name, " went back")
                                  : absl::StrCat(subj, " ", m.name, " +", m.delta()));
    }
  };
  for (const DeviceInfo& d : view.devices) {
    for (const PortInfo& p : d.ports) {
      if (port && p.port_num != *port) continue;
      const std::string subj = absl::StrCat(d.name, " port ", p.port_num);
      moves(subj, p.counters, p.counters_after, false);
      moves(subj, p.hw_counters, p.hw_counters_after, false);
    }
    moves(d.name, d.aer, d.aer_after, true);  // pcie judges every AER total
  }
  return out;
}

Result LinkHealthCheck::Run(const CheckContext& ctx) const {
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) {
    return ResultBuilder::Skip(*this, "Links are healthy", "no RDMA device to look at (see device-present)");
  }
  if (!ctx.view.window) {
    return ResultBuilder::Skip(
        *this, "Links are healthy",
        absl::StrCat("no counter window in ", ctx.view.source,
                     ": counters must be read twice to judge them; record one with "
                     "`rdmacheck capture --window 2 > node.profile` or run live"));
  }
  const LinkWindow& w = *ctx.view.window;
  std::vector<std::string> names;
  for (const DeviceInfo* d : devs) names.push_back(d->name);
  ResultBuilder r(*this, absl::StrCat("Links of ", absl::StrJoin(names, ", "), " took no errors and did not flap over ",
                                      Seconds(w.ms)));
  if (w.cut_short) r.Note(absl::StrCat("the window was cut short at ", Seconds(w.ms), " (interrupted)"));
  for (const std::string& n : w.notes) r.Note(n);
  int looked = 0;
  std::map<CounterClass, std::vector<std::pair<const DeviceInfo*, const PortInfo*>>> to_remedy;
  for (const DeviceInfo* d : devs) {
    std::vector<const PortInfo*> ports = ctx.SelectedPorts(*d);
    for (const PortInfo* p : ports) {
      const std::string subj = absl::StrCat(d->name, " port ", p->port_num);
      for (const std::string& u : p->unreadable_counters)
        r.Expect(absl::StrCat(subj, " ", u), "a number", "unreadable (read error or not a number)", Verdict::kWarn);
      if (p->counters_after.empty() && p->hw_counters_after.empty()) {
        r.Note(absl::StrCat(subj, ": no counters in sysfs (ports/", p->port_num, "/counters, hw_counters)"));
        continue;
      }
      ++looked;
      PortLook look;
      JudgeCounters(ctx, *d, *p, p->counters, p->counters_after, w.ms, r, look);
      JudgeCounters(ctx, *d, *p, p->hw_counters, p->hw_counters_after, w.ms, r, look);
      if (look.moved.empty())
        r.Expect(absl::StrCat(subj, " error counters (", look.watched, " watched)"),
                 absl::StrCat("no change over ", Seconds(w.ms)), "no change");
      for (const auto& [cls, moved] : look.moved)
        if (moved) to_remedy[cls].push_back({d, p});
      NoteTotals(ctx, *d, *p, r);
    }
    auto unwatched = w.unwatched.find(d->name);
    if (unwatched != w.unwatched.end()) {
      r.Note(absl::StrCat(d->name, "'s port events were not watched: ", unwatched->second));
    } else {
      JudgeEvents(w, *d, ports, r);
    }
  }
  for (const auto& [cls, where] : to_remedy) {
    // One set of commands per class, for the first port it moved on.
    RemedyFor(cls, *where.front().first, *where.front().second, r);
    if (cls == CounterClass::kTransport)
      r.Note("retries and sequence errors mean packets were lost or late: congestion without PFC/ECN, a lossy "
             "link, a qdisc or firewall dropping some, or a peer that stopped answering");
    if (cls == CounterClass::kDiscard)
      r.Note("discards and CNPs mean congestion: the fabric throttles or drops (PFC/ECN settings, an oversubscribed "
             "switch port)");
  }
  if (r.verdict() != Verdict::kPass)
    r.Remedy(absl::StrCat("rdmacheck --checks link-health --window 30   # a longer look once fixed"));
  if (looked == 0 && r.verdict() == Verdict::kPass)
    return ResultBuilder::Skip(*this, "Links are healthy", "no port in use exposes counters in sysfs");
  return r.Build();
}

}  // namespace rdmacheck
