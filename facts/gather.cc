// GatherLive: the order of the gather. Each piece is in its own file
// (gather_internal.h): devices and ports, verbs, netdevs, host, firewall.
#include "facts/gather.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "facts/gather_internal.h"
#include "verbs/context.h"

namespace rdmacheck {

using gather_internal::ApplyVerbs;
using gather_internal::QueryVerbs;
using gather_internal::ReadAddresses;
using gather_internal::ReadDevice;
using gather_internal::ReadDeviceAccess;
using gather_internal::ReadHost;
using gather_internal::ReadNetdev;
using gather_internal::ReadVlanId;
using gather_internal::UpperNetdevs;
using gather_internal::QdiscReader;
using gather_internal::RulesetReader;
using gather_internal::Roots;
using gather_internal::Udp4791Socket;
using gather_internal::UverbsByIbdev;
using gather_internal::VerbsFacts;

absl::StatusOr<DeviceView> GatherLive(const GatherOptions& opts) {
  // Covers the locals' destruction too (the devices closed, the readers'
  // threads joined): declared first, destroyed last.
  std::optional<PhaseTimer> closing;
  std::optional<PhaseTimer> starting(std::in_place, opts.phases, "gather.start");
  DeviceView view;
  view.source = "live";
  const Roots roots(opts);

  std::vector<std::string> names = roots.sys.ListDir("class/infiniband").value_or(std::vector<std::string>{});
  if (opts.only_device) {
    if (std::find(names.begin(), names.end(), *opts.only_device) == names.end()) {
      return absl::NotFoundError(verbs::NoSuchDeviceMessage(*opts.only_device, names));
    }
    names = {*opts.only_device};
  }
  // The tools see the running host, not a fixture tree. Started first: they
  // run while sysfs is read.
  std::optional<RulesetReader> rulesets;
  if (opts.live_host && opts.read_rulesets) rulesets.emplace(opts.proc_root);
  std::optional<QdiscReader> qdiscs;
  if (opts.live_host && opts.read_qdiscs) qdiscs.emplace();
  std::map<std::string, std::string> uverbs = UverbsByIbdev(roots.sys);
  // Each device is opened once for the gather (and, inside a Session, for
  // the run).
  verbs::ContextCache contexts;
  starting.reset();
  for (const std::string& name : names) {
    std::optional<PhaseTimer> t(std::in_place, opts.phases, "gather.verbs " + name);
    std::optional<VerbsFacts> v;
    if (opts.use_verbs) v = QueryVerbs(name);
    t.emplace(opts.phases, "gather.sysfs " + name);
    const std::map<int, std::vector<int>>* valid = v && v->valid_gids ? &*v->valid_gids : nullptr;
    DeviceInfo dev = ReadDevice(roots.sys, name, uverbs, valid);
    t.reset();
    if (v) ApplyVerbs(*v, &dev, &view.provenance);
    view.devices.push_back(std::move(dev));
  }
  std::optional<PhaseTimer> t(std::in_place, opts.phases, "gather.netdevs");

  // Netdevs the devices are bound to, and those their GIDs name.
  std::set<std::string> bound;
  for (const DeviceInfo& d : view.devices) {
    std::vector<std::string> nds = DeviceNetdevs(d);
    bound.insert(nds.begin(), nds.end());
  }
  // The netdevs right above a soft device's parent (its VLANs, its bond):
  // a VLAN's GIDs vanish while it is down, and a VLAN that carries the
  // deployment's address is still the one to name.
  for (const DeviceInfo& d : view.devices) {
    if (!d.netdev) continue;
    for (const std::string& up : UpperNetdevs(roots.sys, *d.netdev)) bound.insert(up);
  }
  // And the netdevs below those (a VLAN's parent, a bond's slaves, a VLAN
  // over a bond), a few levels down: what their state and MTU say matters.
  std::set<std::string> read;
  std::vector<std::string> todo(bound.begin(), bound.end());
  for (int depth = 0; depth < 3 && !todo.empty(); ++depth) {
    std::vector<std::string> next;
    for (const std::string& name : todo) {
      if (!read.insert(name).second) continue;
      NetdevInfo n = ReadNetdev(roots.sys, name);
      if (n.IsVlan()) n.vlan_id = ReadVlanId(roots.proc, name);
      next.insert(next.end(), n.lower.begin(), n.lower.end());
      view.netdevs.push_back(std::move(n));
    }
    todo = std::move(next);
  }
  std::sort(view.netdevs.begin(), view.netdevs.end(),
            [](const NetdevInfo& a, const NetdevInfo& b) { return a.name < b.name; });
  // getifaddrs sees the running host, so only when the tree is its own.
  if (opts.live_host) ReadAddresses(&view.netdevs);
  if (qdiscs) {
    t.emplace(opts.phases, "gather.qdiscs");
    qdiscs->Finish(&view.netdevs, &view.provenance);
  }

  t.emplace(opts.phases, "gather.host");
  view.host = ReadHost(roots, std::vector<std::string>(bound.begin(), bound.end()));
  // What is left of their time after the reads above.
  t.emplace(opts.phases, "gather.rulesets");
  if (rulesets) rulesets->Finish(&view.host, &view.provenance);
  t.emplace(opts.phases, "gather.access");
  view.host.udp4791_socket = Udp4791Socket(roots.proc);
  ReadDeviceAccess(roots, view.devices, &view.host);
  t.reset();
  closing.emplace(opts.phases, "gather.close");
  return view;
}

}  // namespace rdmacheck
