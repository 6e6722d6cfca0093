#include "facts/device_view.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace rdmacheck {

bool Qdisc::operator==(const Qdisc& o) const {
  return kind == o.kind && parent == o.parent && rate_bps == o.rate_bps && burst_bytes == o.burst_bytes &&
         limit_bytes == o.limit_bytes && delay_us == o.delay_us && loss_pct == o.loss_pct;
}


std::optional<uint64_t> DeviceInfo::Attr(absl::string_view name) const {
  auto it = attrs.find(std::string(name));
  if (it == attrs.end()) return std::nullopt;
  return it->second;
}

const PortInfo* DeviceInfo::Port(int port_num) const {
  for (const PortInfo& p : ports)
    if (p.port_num == port_num) return &p;
  return nullptr;
}

const DeviceInfo* DeviceView::Device(absl::string_view name) const {
  for (const DeviceInfo& d : devices)
    if (d.name == name) return &d;
  return nullptr;
}

const NetdevInfo* DeviceView::Netdev(absl::string_view name) const {
  for (const NetdevInfo& n : netdevs)
    if (n.name == name) return &n;
  return nullptr;
}

std::optional<std::string> PortNetdev(const DeviceInfo& d, const PortInfo& p) {
  if (d.netdev) return d.netdev;
  for (const GidEntry& g : p.gids)
    if (!g.netdev.empty()) return g.netdev;
  return std::nullopt;
}

bool IsSoftDevice(const DeviceInfo& d) { return d.driver && (*d.driver == "rxe" || *d.driver == "siw"); }

bool UverbsNodeMissing(const HostInfo& host, const DeviceInfo& d) {
  if (host.dev_nodes.empty() || !d.uverbs) return false;
  auto it = host.dev_nodes.find(*d.uverbs);
  return it == host.dev_nodes.end() || it->second == "missing";
}

bool IsMellanoxDevice(const DeviceInfo& d) {
  if (d.vendor_id) return *d.vendor_id == 0x15b3 || *d.vendor_id == 0x02c9;
  return d.driver && (*d.driver == "mlx4" || *d.driver == "mlx5");
}

DeviceView OnlyDevice(const DeviceView& view, absl::string_view name) {
  const DeviceInfo* d = view.Device(name);
  if (d == nullptr) return view;
  DeviceView out = view;
  out.devices = {*d};
  std::set<std::string> nds;
  if (d->netdev) nds.insert(*d->netdev);
  for (const PortInfo& p : d->ports)
    for (const GidEntry& g : p.gids)
      if (!g.netdev.empty()) nds.insert(g.netdev);
  out.netdevs.clear();
  for (const NetdevInfo& n : view.netdevs)
    if (nds.count(n.name)) out.netdevs.push_back(n);
  if (out.window) {
    LinkWindow& w = *out.window;
    auto other = [&](const std::string& dev) { return dev != d->name; };
    w.watched.erase(std::remove_if(w.watched.begin(), w.watched.end(), other), w.watched.end());
    for (auto it = w.unwatched.begin(); it != w.unwatched.end();) it = other(it->first) ? w.unwatched.erase(it) : ++it;
    w.events.erase(std::remove_if(w.events.begin(), w.events.end(),
                                  [&](const AsyncEventSeen& e) { return other(e.device); }),
                   w.events.end());
  }
  return out;
}

std::string MissingFact(absl::string_view subject, absl::string_view fact) {
  std::string what = fact.empty() ? std::string(subject) : absl::StrCat(subject, " ", fact);
  return absl::StrCat("fact missing: ", what,
                      " (not in this profile; capture one with `rdmacheck capture`)");
}

}  // namespace rdmacheck
