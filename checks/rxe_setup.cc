#include "checks/rxe_setup.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/container.h"

namespace rdmacheck {
namespace {

// Kernel driver -> the libibverbs provider library name (lib<name>-rdmav*.so),
// where they differ (rdma-core providers/*/CMakeLists.txt).
struct ProviderName {
  const char* driver;
  const char* provider;
};
constexpr ProviderName kProviders[] = {
    {"qib", "ipathverbs"}, {"hfi1", "hfi1verbs"}, {"vmw_pvrdma", "vmw_pvrdma"},
    {"hns", "hns"},        {"bnxt_re", "bnxt_re"},
};

std::string ProviderOf(const std::string& driver) {
  for (const ProviderName& p : kProviders)
    if (driver == p.driver) return p.provider;
  return driver;
}

bool HasAddress(const NetdevInfo& n) {
  for (const std::string& a : n.addrs)
    if (!absl::StartsWithIgnoreCase(a, "fe80")) return true;
  return false;
}

bool ExpectsRxe(const CheckContext& ctx) {
  auto rxe_name = [](const std::optional<std::string>& s) {
    return s && absl::StartsWith(*s, "rxe");
  };
  return rxe_name(ctx.options.device) || rxe_name(ctx.plan.device);
}

// A netdev to suggest for `rdma link add`: UP with an address, not lo.
std::string SomeNetdev(const DeviceView& v) {
  for (const NetdevInfo& n : v.netdevs)
    if (n.name != "lo" && n.operstate && *n.operstate == "up" && HasAddress(n)) return n.name;
  return "DEV";
}

std::vector<std::string> Uverbs(const std::vector<const DeviceInfo*>& devs) {
  std::vector<std::string> out;
  for (const DeviceInfo* d : devs)
    if (d->uverbs) out.push_back(*d->uverbs);
  return out;
}

// lo and some virtual devices report operstate "unknown" while passing
// traffic.
bool OperUp(const std::string& operstate) { return operstate == "up" || operstate == "unknown"; }

// Both must say up: with miimon 0 the bond never updates a slave's
// mii_status (measured: a veth set down stayed "mii up, active").
bool SlaveUp(const NetdevInfo& s) {
  if (s.slave_mii_status && *s.slave_mii_status != "up") return false;
  if (s.operstate) return OperUp(*s.operstate);
  return s.slave_mii_status.has_value();
}

std::string SlaveState(const NetdevInfo& s) {
  std::vector<std::string> parts;
  if (s.slave_mii_status) parts.push_back(absl::StrCat("mii ", *s.slave_mii_status));
  if (s.operstate) parts.push_back(absl::StrCat("operstate ", *s.operstate));
  if (s.slave_state) parts.push_back(*s.slave_state);
  if (s.link_failure_count && *s.link_failure_count > 0)
    parts.push_back(absl::StrCat(*s.link_failure_count, " link failure(s) since enslaved"));
  return parts.empty() ? std::string("state unknown") : absl::StrJoin(parts, ", ");
}

// rxe over a bond: RoCE leaves by whichever slave the bond picks, so the
// bond carries it while one slave has link; each slave down is redundancy
// lost (measured in the guest: active-backup fails over to the other veth
// and ib_write_bw goes on).
void CheckBond(const DeviceView& v, const DeviceInfo& d, const NetdevInfo& bond, ResultBuilder& r) {
  const std::string bd = DescribeNetdev(v, bond.name);
  std::vector<std::string> up, down;
  for (const std::string& name : bond.lower) {
    const NetdevInfo* s = v.Netdev(name);
    if (s == nullptr) continue;
    const bool ok = SlaveUp(*s);
    (ok ? up : down).push_back(name);
    r.Expect(absl::StrCat(d.name, " netdev ", bd, " slave ", name), "link up (mii_status up)", SlaveState(*s),
             ok ? Verdict::kPass : Verdict::kWarn);
  }
  if (bond.lower.empty()) {
    r.Expect(absl::StrCat(d.name, " netdev ", bd, " slaves"), "at least one", "none", Verdict::kFail);
    r.Remedy(absl::StrCat("ip link set dev SLAVE master ", bond.name, "   # enslave the RDMA port(s)"));
    return;
  }
  if (bond.bond_mode) {
    const bool ab = absl::StartsWith(*bond.bond_mode, "active-backup");
    const std::string active = bond.bond_active_slave.value_or("");
    if (ab) {
      const NetdevInfo* as = active.empty() ? nullptr : v.Netdev(active);
      const bool ok = as != nullptr && SlaveUp(*as);
      r.Expect(absl::StrCat(d.name, " netdev ", bd, " active slave"), "a slave with link (active-backup)",
               active.empty() ? std::string("none") : absl::StrCat(active, as ? absl::StrCat(" (", SlaveState(*as), ")") : ""),
               ok ? Verdict::kPass : Verdict::kFail);
    }
  }
  if (up.empty()) {
    r.Expect(absl::StrCat(d.name, " netdev ", bd, " slaves with link"), "at least one", "none", Verdict::kFail);
    r.Note(absl::StrCat("no slave of ", bond.name, " has link: RoCE over ", d.name, " stops (QPs time out with "
                        "\"transport retry counter exceeded\")"));
  } else if (!down.empty()) {
    r.Note(absl::StrCat(bond.name, " runs on ", absl::StrJoin(up, ", "), " alone: traffic goes on, but a failure of ",
                        up.size() == 1 ? "that slave" : "those slaves", " stops RoCE over ", d.name));
  }
  for (const std::string& name : down)
    r.Remedy(absl::StrCat("ip link set dev ", name, " up   # then its cable, optics and switch port: ethtool ", name));
  if (!down.empty()) r.Remedy(absl::StrCat("cat /proc/net/bonding/", bond.name, "   # each slave's MII status and link failure count"));
}

}  // namespace

Result RxeSetupCheck::Run(const CheckContext& ctx) const {
  const DeviceView& v = ctx.view;
  const HostInfo& h = v.host;
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  std::vector<const DeviceInfo*> rxe;
  for (const DeviceInfo* d : devs)
    if (d->driver && *d->driver == "rxe") rxe.push_back(d);
  bool want_rxe = !rxe.empty() || ExpectsRxe(ctx);
  if (devs.empty() && !want_rxe) {
    // A pasted ibv_devinfo whose every device failed to open: say so here
    // too, since that is a setup fault of this process, not of the devices.
    if (h.devices_not_opened.value_or(0) > 0) {
      return ResultBuilder::Skip(
          *this, "RDMA devices are set up",
          absl::StrCat("no device could be opened here: ibv_devinfo said `Failed to open device` ",
                       *h.devices_not_opened,
                       " time(s), so this process lacks their /dev/infiniband nodes (see device-present)"));
    }
    return ResultBuilder::Skip(*this, "RDMA devices are set up",
                               "no RDMA device to look at (see device-present)");
  }

  std::vector<std::string> names;
  for (const DeviceInfo* d : devs) names.push_back(d->name);
  ResultBuilder r(*this, devs.empty() ? std::string("Soft-RoCE (rxe) is set up")
                                      : absl::StrCat("RDMA setup of ", absl::StrJoin(names, ", "),
                                                     " is complete"));
  std::vector<std::string> missing;
  const bool container = h.in_container.value_or(false);

  // rdma_rxe module.
  if (want_rxe) {
    if (h.rxe_loaded) {
      r.Expect("kernel module rdma_rxe", "loaded", *h.rxe_loaded ? "loaded" : "not loaded",
               *h.rxe_loaded ? Verdict::kPass : Verdict::kFail);
      if (!*h.rxe_loaded) {
        r.Remedy("modprobe rdma_rxe");
        r.Remedy("lsmod | grep rdma_rxe");
      }
    } else {
      missing.push_back("host rxe_loaded");
    }
    if (rxe.empty()) {
      std::string name = ctx.options.device.value_or(ctx.plan.device.value_or("rxe0"));
      r.Expect(absl::StrCat("rxe device ", name), "exists", "no rxe device", Verdict::kFail);
      r.Remedy(absl::StrCat("rdma link add ", name, " type rxe netdev ", SomeNetdev(v)));
      r.Remedy("rdma link show   # must list the link, state ACTIVE");
    }
  }

  // Each rxe device: its netdev exists, is UP, has an address.
  for (const DeviceInfo* d : rxe) {
    if (!d->netdev) {
      missing.push_back(absl::StrCat(d->name, " netdev"));
      continue;
    }
    const std::string& nd = *d->netdev;
    const NetdevInfo* n = v.Netdev(nd);
    std::string subj = absl::StrCat(d->name, " netdev ", nd);
    if (n == nullptr) {
      r.Expect(subj, "exists", "not found", Verdict::kFail);
      r.Remedy(RxeRelink(d->name, SomeNetdev(v)));
      r.Remedy("rdma link show");
      continue;
    }
    // Not in this network namespace (outside a container): rdma's shared
    // netns mode lists every device in every namespace, not its netdev.
    // Measured with `ip netns exec ns1`: rxe0 is listed and verbs traffic
    // over it works, but va, its state and its addresses are not there.
    if (!container && NetdevOutsideNamespace(v, nd)) {
      r.Expect(subj, "in this network namespace",
               absl::StrCat("not in it: no ", nd, " under this namespace's /sys/class/net"), Verdict::kWarn);
      r.Note(absl::StrCat("this process runs in another network namespace than ", nd, "'s",
                          h.own_netns.value_or(false) ? " (not PID 1's)" : "", ": rdma's netns mode ",
                          h.rdma_netns_mode.value_or("shared"), " shows ", d->name,
                          " here, and verbs over it work, but rdma_cm "
                          "cannot resolve its addresses and ", nd, "'s state, MTU and firewall cannot be "
                          "checked from here"));
      r.Remedy("readlink /proc/self/ns/net /proc/1/ns/net   # two values: this shell is not in the host's "
               "network namespace");
      r.Remedy(absl::StrCat("nsenter -t 1 -n rdmacheck -d ", d->name, "   # the checks where ", nd, " is"));
      r.Remedy("rdma system show   # netns shared|exclusive: a namespace of its own device needs `rdma system "
               "set netns exclusive` before other namespaces exist, then `rdma dev set DEV netns NS`");
      continue;
    }
    if (n->operstate) {
      bool up = OperUp(*n->operstate);
      r.Expect(absl::StrCat(subj, " operstate"), "up", *n->operstate,
               up ? Verdict::kPass : Verdict::kFail);
      if (!up) {
        r.Note(absl::StrCat("rxe follows its netdev: ", d->name, " port 1 cannot be ACTIVE while ",
                            nd, " is ", *n->operstate));
        r.Remedy(absl::StrCat("ip link set dev ", nd, " up"));
        r.Remedy(absl::StrCat("rdma link show ", d->name, "/1   # must say state ACTIVE"));
      }
    } else {
      missing.push_back(absl::StrCat("netdev ", nd, " operstate"));
    }
    if (n->IsBond()) CheckBond(v, *d, *n, r);
    // rxe on a bridge port or bond slave: the master's rx_handler takes every
    // frame, and rdma_rxe accepts a packet only for the netdev it was
    // created on or a VLAN over it (drivers/infiniband/sw/rxe/rxe_net.c,
    // rxe_udp_encap_recv). Measured with va in bridge br0: GID 1 names br0,
    // rxe1 counts rxe0's packets, rxe0 counts none back, and SENDs end in
    // "transport retry counter exceeded"; rxe created on br0 works.
    if (const NetdevInfo* m = RxMaster(v, nd)) {
      r.Expect(absl::StrCat(subj, " master"), absl::StrCat("none (rxe belongs on the ", *m->kind, ")"),
               absl::StrCat("port of ", DescribeNetdev(v, m->name)), Verdict::kFail);
      r.Note(absl::StrCat(nd, " is a port of ", m->name, ": frames for this host arrive as ", m->name,
                          "'s, and rdma_rxe only takes packets arriving on ", nd,
                          " itself, so ", d->name, " sends but receives nothing (its GIDs name ", m->name,
                          "; rxe_net.c rxe_udp_encap_recv)"));
      r.Remedy(RxeRelink(d->name, m->name));
      r.Remedy(absl::StrCat("rdma link show ", d->name, "/1   # must name netdev ", m->name));
      continue;  // its addresses are the master's: not asked of a port
    }
    // The addresses may sit on VLANs over the netdev instead (rxe cannot be
    // created on a VLAN netdev, drivers/infiniband/sw/rxe/rxe.c: it goes on
    // the parent, and each VLAN's addresses become GIDs of its port).
    std::vector<const NetdevInfo*> vlans = VlansOver(v, nd);
    if (n->addrs_known) {
      bool ok = HasAddress(*n);
      std::vector<std::string> shown = n->addrs;
      std::string actual = shown.empty() ? std::string("none") : absl::StrJoin(shown, " ");
      std::vector<std::string> on_vlans;
      for (const NetdevInfo* vl : vlans) {
        if (!vl->addrs_known || vl->addrs.empty()) continue;
        ok = ok || HasAddress(*vl);
        on_vlans.push_back(absl::StrCat(DescribeNetdev(v, vl->name), ": ", absl::StrJoin(vl->addrs, " ")));
      }
      if (!on_vlans.empty()) actual = absl::StrCat(actual, " on ", nd, "; ", absl::StrJoin(on_vlans, "; "));
      r.Expect(absl::StrCat(subj, " address"),
               vlans.empty() ? std::string("an IPv4 or global IPv6 address")
                             : absl::StrCat("an IPv4 or global IPv6 address on ", nd, " or a VLAN over it"),
               actual, ok ? Verdict::kPass : Verdict::kFail);
      if (!ok && container && NetdevOutsideNamespace(v, nd)) {
        r.Note(absl::StrCat(nd, " is in the host's network namespace, not this container's: ",
                            DescribeContainer(h)));
        for (const std::string& line : ContainerRemedies(h, kNeedHostNetwork)) r.Remedy(line);
      } else if (!ok) {
        r.Note(absl::StrCat("without an address on ", nd, vlans.empty() ? "" : " or its VLANs", " ", d->name,
                            " has no routable GID: peers cannot address it"));
        // With VLANs over it, the deployment's address belongs on the VLAN.
        r.Remedy(absl::StrCat("ip addr add ADDRESS/PREFIX dev ", vlans.empty() ? nd : vlans.front()->name,
                              "   # this host's address on the RDMA subnet"));
        r.Remedy(absl::StrCat("ip -br addr show dev ", nd, "; rdma link show ", d->name, "/1"));
      }
    } else {
      missing.push_back(absl::StrCat("netdev ", nd, " addrs"));
    }
    // A VLAN carrying the addresses must be up too: its GIDs leave with it.
    for (const NetdevInfo* vl : vlans) {
      if (!vl->operstate || !HasAddress(*vl)) continue;
      bool up = OperUp(*vl->operstate);
      r.Expect(absl::StrCat(d->name, " VLAN ", DescribeNetdev(v, vl->name), " operstate"), "up",
               *vl->operstate, up ? Verdict::kPass : Verdict::kFail);
      if (!up) {
        r.Note(absl::StrCat("the GIDs ", d->name, " takes from ", vl->name, " carry no traffic while it is ",
                            *vl->operstate));
        r.Remedy(absl::StrCat("ip link set dev ", vl->name, " up"));
      }
    }
  }

  // Providers: every device's driver has its libibverbs provider.
  if (h.providers_known) {
    for (const DeviceInfo* d : devs) {
      if (!d->driver) {
        missing.push_back(absl::StrCat(d->name, " driver"));
        continue;
      }
      std::string want = ProviderOf(*d->driver);
      bool ok = std::find(h.providers.begin(), h.providers.end(), want) != h.providers.end();
      r.Expect(absl::StrCat(d->name, " ibverbs provider"), absl::StrCat("lib", want, "-rdmav*.so installed"),
               ok ? absl::StrCat("lib", want, " found") :
                    absl::StrCat("not found (installed: ",
                                 h.providers.empty() ? "none" : absl::StrJoin(h.providers, " "), ")"),
               ok ? Verdict::kPass : Verdict::kFail);
      if (!ok) {
        r.Note(absl::StrCat("without it libibverbs skips ", d->name,
                            ": \"couldn't load driver '", want, "'\" / \"no userspace device-specific driver found\""));
        r.Remedy("apt-get install ibverbs-providers   # RHEL/Fedora: dnf install libibverbs");
        r.Remedy(absl::StrCat("ibv_devices   # must list ", d->name));
      }
    }
  } else if (!devs.empty()) {
    missing.push_back("host providers");
  }

  // Device nodes: uverbsN of each device, and rdma_cm.
  bool node_bad = false;
  if (!h.dev_nodes.empty()) {
    for (const DeviceInfo* d : devs) {
      if (!d->uverbs) {
        missing.push_back(absl::StrCat(d->name, " uverbs"));
        continue;
      }
      auto it = h.dev_nodes.find(*d->uverbs);
      std::string state = it == h.dev_nodes.end() ? "missing" : it->second;
      bool ok = state == "rw";
      r.Expect(absl::StrCat(d->name, " /dev/infiniband/", *d->uverbs), "opens read-write",
               ok ? "opens read-write" : state, ok ? Verdict::kPass : Verdict::kFail);
      if (!ok) node_bad = true;
    }
    auto cm = h.dev_nodes.find("rdma_cm");
    if (cm != h.dev_nodes.end()) {
      bool ok = cm->second == "rw";
      r.Expect("/dev/infiniband/rdma_cm", "opens read-write (rdma_cm applications)",
               ok ? "opens read-write" : cm->second, ok ? Verdict::kPass : Verdict::kWarn);
      if (!ok && !container) {
        r.Remedy("modprobe rdma_ucm");
        r.Remedy("ls -l /dev/infiniband/rdma_cm");
      }
      node_bad = node_bad || (!ok && container);
    }
    if (node_bad) {
      if (container) {
        r.Note(absl::StrCat("in a container the host's /dev/infiniband must be passed in; ",
                            DescribeContainer(h)));
        for (const std::string& line : ContainerRemedies(h, kNeedDevices, Uverbs(devs))) r.Remedy(line);
        r.Remedy("ls -l /dev/infiniband   # inside the container: uverbs* and rdma_cm, crw-rw-rw-");
      } else {
        r.Remedy("modprobe ib_uverbs rdma_ucm");
        r.Remedy("ls -l /dev/infiniband   # run as root or grant this user rw (udev rule, group rdma)");
      }
    }
  } else if (!devs.empty()) {
    missing.push_back("host dev_node");
  }

  // IPC_LOCK in a container, unless memlock is unlimited anyway.
  if (container && h.cap_ipc_lock) {
    bool unlimited = h.memlock_soft && *h.memlock_soft == HostInfo::kUnlimited;
    bool ok = *h.cap_ipc_lock || unlimited;
    r.Expect("container capability IPC_LOCK", "granted (or memlock unlimited)",
             *h.cap_ipc_lock ? "granted" : (unlimited ? "not granted; memlock unlimited" : "not granted"),
             ok ? Verdict::kPass : Verdict::kFail);
    if (!ok) {
      r.Note("without IPC_LOCK ibv_reg_mr beyond RLIMIT_MEMLOCK fails with \"Cannot allocate memory\"");
      for (const std::string& line : ContainerRemedies(h, kNeedIpcLock, Uverbs(devs))) r.Remedy(line);
      r.Remedy("grep CapEff /proc/self/status   # inside the container: bit 14 (0x4000) set");
    }
  }

  if (h.devices_not_opened.value_or(0) > 0) {
    r.Note(absl::StrCat("ibv_devinfo could not open ", *h.devices_not_opened,
                        " other listed device(s) (Failed to open device): their /dev/infiniband "
                        "nodes were not given to this process (see device-present)"));
  }
  for (const std::string& m : missing) r.Note(MissingFact(m, ""));
  if (r.Build().evidence.empty())
    return ResultBuilder::Skip(*this, "RDMA devices are set up",
                               missing.empty() ? "nothing to look at" : MissingFact(missing.front(), ""));
  return r.Build();
}

}  // namespace rdmacheck
