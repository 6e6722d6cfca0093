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
