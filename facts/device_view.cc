#include "facts/device_view.h"

#include <arpa/inet.h>

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

GidAddress ClassifyGid(absl::string_view gid) {
  GidAddress out;
  unsigned char b[16];
  std::string text(gid);
  if (inet_pton(AF_INET6, text.c_str(), b) != 1) return out;
  bool zero = true;
  for (unsigned char c : b) zero = zero && c == 0;
  bool mapped = b[10] == 0xff && b[11] == 0xff;
  for (int i = 0; i < 10; ++i) mapped = mapped && b[i] == 0;
  if (zero) {
    out.kind = GidAddress::kZero;
  } else if (mapped) {
    out.kind = GidAddress::kIpv4Mapped;
    out.ipv4 = absl::StrCat(b[12], ".", b[13], ".", b[14], ".", b[15]);
  } else if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) {
    out.kind = GidAddress::kLinkLocal;  // fe80::/10
  } else {
    out.kind = GidAddress::kIpv6;
  }
  return out;
}

std::vector<std::string> DeviceNetdevs(const DeviceInfo& d) {
  std::set<std::string> s;
  if (d.netdev) s.insert(*d.netdev);
  for (const PortInfo& p : d.ports)
    for (const GidEntry& g : p.gids)
      if (!g.netdev.empty()) s.insert(g.netdev);
  return {s.begin(), s.end()};
}

bool GidHasAddress(const GidEntry& g) {
  GidAddress::Kind k = ClassifyGid(g.gid).kind;
  return k == GidAddress::kIpv4Mapped || k == GidAddress::kIpv6;
}

std::vector<std::string> RoceNetdevs(const DeviceInfo& d, const PortInfo& p) {
  std::vector<std::string> out;
  for (const GidEntry& g : p.gids) {
    if (g.netdev.empty() || !GidHasAddress(g)) continue;
    if (std::find(out.begin(), out.end(), g.netdev) == out.end()) out.push_back(g.netdev);
  }
  if (out.empty()) {
    if (std::optional<std::string> nd = PortNetdev(d, p)) out.push_back(*nd);
  }
  return out;
}

std::vector<const NetdevInfo*> VlansOver(const DeviceView& view, absl::string_view netdev) {
  std::vector<const NetdevInfo*> out;
  for (const NetdevInfo& n : view.netdevs)
    if (n.IsVlan() && std::find(n.lower.begin(), n.lower.end(), netdev) != n.lower.end()) out.push_back(&n);
  return out;
}

const NetdevInfo* RxMaster(const DeviceView& view, absl::string_view netdev) {
  const NetdevInfo* n = view.Netdev(netdev);
  if (n == nullptr || !n->master) return nullptr;
  const NetdevInfo* m = view.Netdev(*n->master);
  if (m == nullptr || !m->kind || (*m->kind != "bridge" && *m->kind != "bond")) return nullptr;
  return m;
}

std::string DescribeNetdev(const DeviceView& view, absl::string_view netdev) {
  const NetdevInfo* n = view.Netdev(netdev);
  if (n == nullptr || !n->kind) return std::string(netdev);
  if (n->IsVlan()) {
    return absl::StrCat(netdev, " (VLAN", n->vlan_id ? absl::StrCat(" ", *n->vlan_id) : "",
                        n->lower.empty() ? "" : absl::StrCat(" over ", n->lower.front()), ")");
  }
  return absl::StrCat(netdev, " (", *n->kind, ")");
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
  std::vector<std::string> bound = DeviceNetdevs(*d);
  std::set<std::string> nds(bound.begin(), bound.end());
  // And what lies below them: a VLAN's parent, a bond's slaves.
  for (const NetdevInfo& n : view.netdevs)
    if (nds.count(n.name)) nds.insert(n.lower.begin(), n.lower.end());
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
