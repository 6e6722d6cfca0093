#include "checks/mtu_chain.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {

int RxeActiveMtu(int netdev_mtu, int max_mtu) {
  int payload = netdev_mtu - kRxeHeaderBytes;
  int best = 0;
  for (int ib = 256; ib <= 4096; ib *= 2)
    if (ib <= payload && ib <= max_mtu) best = ib;
  return best;
}

int RxeNetdevMtuFor(int ib_mtu) { return ib_mtu + kRxeHeaderBytes; }

namespace {

// A port wants 4096 for bandwidth: ib_write_bw of 64 KiB messages on rxe
// moved 0.40 Gb/s at MTU 1024 and 1.16 Gb/s at 4096 (docs/checks/mtu-chain.md).
constexpr int kBandwidthMtu = 4096;

// rxe sizes its packets by its parent netdev's MTU (active_mtu) but sends a
// GID's packets through that GID's netdev: with the addresses on a VLAN over
// the parent, the VLAN's MTU must carry the IB MTU the QPs run at too.
// Measured in the guest (kernel 6.1): va at 9000 and va.100 at 1500 keep
// active_mtu 4096, and 64 KiB WRITEs over va.100's GID hang with send_err
// climbing (every 4 KiB packet refused by va.100); `-m 1024` passes.
void CheckVlanMtus(const CheckContext& ctx, const DeviceInfo& d, const PortInfo& p,
                   const std::optional<std::string>& parent, int max_mtu, int active, ResultBuilder& r) {
  const int used = ctx.plan.path_mtu ? std::min(*ctx.plan.path_mtu, active) : active;
  const std::string why = ctx.plan.path_mtu && *ctx.plan.path_mtu < active
                              ? absl::StrCat("plan path_mtu ", used)
                              : absl::StrCat(d.name, " port ", p.port_num, " active_mtu ", used);
  for (const std::string& name : RoceNetdevs(d, p)) {
    if (parent && name == *parent) continue;
    const NetdevInfo* n = ctx.view.Netdev(name);
    if (n == nullptr || !n->mtu) continue;
    const int carries = RxeActiveMtu(*n->mtu, max_mtu);
    const bool ok = carries >= used;
    r.Expect(absl::StrCat("netdev ", DescribeNetdev(ctx.view, name), " MTU"),
             absl::StrCat(">= ", RxeNetdevMtuFor(used), " for IB MTU ", used, " (", why,
                          "; its GIDs' packets leave through it)"),
             absl::StrCat(*n->mtu, " bytes -> IB MTU ", carries, " at most"), ok ? Verdict::kPass : Verdict::kFail);
    if (ok) continue;
    r.Note(absl::StrCat("rxe sizes packets by ", parent.value_or("its parent"), "'s MTU (active_mtu ", active,
                        ") but sends those of the GIDs on ", name, " through ", name,
                        ": every packet above its MTU is refused (send_err climbs) and larger sends hang; "
                        "lowering a parent's MTU drags its VLANs' down, raising it again does not raise them"));
    // The kernel keeps a VLAN's MTU at most its parent's: the parent's MTU
    // is what the VLAN can be raised to.
    const NetdevInfo* pn = parent ? ctx.view.Netdev(*parent) : nullptr;
    const int raise_to = std::max(RxeNetdevMtuFor(used), pn && pn->mtu ? *pn->mtu : 0);
    r.Remedy(absl::StrCat("ip link set dev ", name, " mtu ", raise_to,
                          "   # at most its parent's MTU; the peer's VLAN too"));
    if (carries > 0) {
      r.Remedy(absl::StrCat("or run the QPs at path MTU ", carries, ": ib_write_bw -m ", carries,
                            ctx.plan.is_default ? std::string()
                                                : absl::StrCat("; set path_mtu = ", carries, " in ", ctx.plan.path)));
    }
    r.Remedy(absl::StrCat("ip -d link show ", name, "; cat /sys/class/infiniband/", d.name, "/ports/",
                          p.port_num, "/hw_counters/send_err   # climbs while sends hang"));
  }
}

void CheckPort(const CheckContext& ctx, const DeviceInfo& d, const PortInfo& p, ResultBuilder& r,
               std::vector<std::string>& missing) {
  const std::string subj = absl::StrCat(d.name, " port ", p.port_num);
  const bool rxe = d.driver && *d.driver == "rxe";
  const bool eth = !p.link_layer || *p.link_layer == "Ethernet";
  const int max_mtu = p.max_mtu.value_or(4096);
  std::optional<std::string> nd = eth ? PortNetdev(d, p) : std::nullopt;
  const NetdevInfo* n = nd ? ctx.view.Netdev(*nd) : nullptr;
  std::optional<int> nd_mtu = n ? n->mtu : std::nullopt;

  std::optional<int> active = p.active_mtu;
  if (rxe && nd_mtu) {
    int derived = RxeActiveMtu(*nd_mtu, max_mtu);
    int target = std::min(ctx.plan.path_mtu.value_or(kBandwidthMtu), max_mtu);
    Verdict v = derived >= target ? Verdict::kPass
                                  : (ctx.plan.path_mtu ? Verdict::kFail : Verdict::kWarn);
    r.Expect(absl::StrCat("netdev ", *nd, " MTU"),
             absl::StrCat(">= ", RxeNetdevMtuFor(target), " for IB MTU ", target, " (", target,
                          " + 80 rxe header bytes)"),
             absl::StrCat(*nd_mtu, " bytes -> rxe IB MTU ", derived), v);
    if (!active) {
      active = derived;
      r.Note(absl::StrCat(subj, " active_mtu not recorded: derived ", derived, " from ", *nd, " MTU ",
                          *nd_mtu));
    } else if (*active != derived) {
      r.Note(absl::StrCat(subj, " reports active_mtu ", *active, " while ", *nd, " MTU ", *nd_mtu,
                          " gives ", derived, ": the MTU changed after capture, or rxe has not seen it yet"));
    }
  } else if (nd_mtu) {
    r.Expect(absl::StrCat("netdev ", *nd, " MTU"), "carries the port's MTU", absl::StrCat(*nd_mtu, " bytes"),
             Verdict::kPass);
  }
  if (!active) {
    missing.push_back(MissingFact(subj, rxe ? "active_mtu (and its netdev's MTU)" : "active_mtu"));
    return;
  }

  const std::string act_subj = absl::StrCat(subj, " active_mtu");
  auto raise_mtu = [&](int ib_mtu) {
    if (rxe && nd) {
      r.Remedy(absl::StrCat("ip link set dev ", *nd, " mtu 9000   # rxe needs >= ", RxeNetdevMtuFor(ib_mtu),
                            " (", ib_mtu, " + 80 header bytes); set the peer's netdev too"));
    } else if (eth && nd) {
      r.Remedy(absl::StrCat("ip link set dev ", *nd,
                            " mtu 9000   # and every switch port and peer on the path"));
    } else if (!eth) {
      r.Remedy(absl::StrCat("raise the partition MTU in /etc/opensm/partitions.conf (mtu=5 is 4096) "
                            "and restart opensm"));
    }
    r.Remedy(absl::StrCat("ibv_devinfo -d ", d.name, " -i ", p.port_num, " | grep active_mtu   # expect ",
                          ib_mtu));
  };

  if (rxe) CheckVlanMtus(ctx, d, p, nd, max_mtu, *active, r);

  if (ctx.plan.path_mtu) {
    int want = *ctx.plan.path_mtu;
    bool ok = want <= *active;
    r.Expect(act_subj, absl::StrCat(">= ", want, " (plan path_mtu)"), absl::StrCat(*active, " bytes"),
             ok ? Verdict::kPass : Verdict::kFail);
    if (!ok) {
      r.Note(absl::StrCat("a QP asking path MTU ", want, " on ", subj,
                          " fails modify to RTR (EINVAL) or, with ibv_rc_pingpong -m, hangs; perftest says "
                          "\"Requested mtu is higher than active mtu\""));
      if (want > max_mtu) {
        r.Remedy(absl::StrCat("set path_mtu = ", max_mtu, " in ", ctx.plan.path, "   # ", subj,
                              " max_mtu is ", max_mtu));
        return;
      }
      raise_mtu(want);
      r.Remedy(absl::StrCat("or set path_mtu = ", *active, " in ", ctx.plan.path));
    } else if (*active < kBandwidthMtu) {
      r.Note(absl::StrCat("the plan pins path MTU ", want, "; a bandwidth workload gains about 3x at 4096 "
                          "(rxe; docs/checks/mtu-chain.md)"));
    }
    return;
  }
  // No planned path MTU: the QPs will run at active_mtu, so a small one is a
  // bandwidth cost the user may not know of.
  bool could = max_mtu >= kBandwidthMtu && *active < kBandwidthMtu;
  r.Expect(act_subj, absl::StrCat(kBandwidthMtu, " for bandwidth (no plan path_mtu)"),
           absl::StrCat(*active, " bytes (max_mtu ", max_mtu, ")"), could ? Verdict::kWarn : Verdict::kPass);
  if (could) {
    r.Note(absl::StrCat("at active_mtu ", *active, " a bandwidth workload moves about a third of what it "
                        "moves at 4096 (rxe measured at 0.40 vs 1.16 Gb/s; docs/checks/mtu-chain.md)"));
    raise_mtu(kBandwidthMtu);
  }
}

}  // namespace

Result MtuChainCheck::Run(const CheckContext& ctx) const {
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  const std::string title0 = "Netdev MTU carries the active_mtu the plan's path MTU needs";
  if (devs.empty()) return ResultBuilder::Skip(*this, title0, "no RDMA device to look at (see device-present)");
  std::vector<std::string> names;
  for (const DeviceInfo* d : devs) names.push_back(d->name);
  ResultBuilder r(*this, ctx.plan.path_mtu
                             ? absl::StrCat("Ports of ", absl::StrJoin(names, ", "), " run active_mtu >= ",
                                            *ctx.plan.path_mtu, " (plan path_mtu)")
                             : absl::StrCat("Ports of ", absl::StrJoin(names, ", "), " run active_mtu 4096"));
  std::vector<std::string> missing;
  int ports = 0;
  for (const DeviceInfo* d : devs) {
    for (const PortInfo* p : ctx.SelectedPorts(*d)) {
      ++ports;
      CheckPort(ctx, *d, *p, r, missing);
    }
  }
  if (ports == 0) return ResultBuilder::Skip(*this, title0, "no port to look at");
  if (static_cast<int>(missing.size()) == ports) return ResultBuilder::Skip(*this, title0, missing.front());
  for (const std::string& m : missing) r.Note(m);
  return r.Build();
}

}  // namespace rdmacheck
