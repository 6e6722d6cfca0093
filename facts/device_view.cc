#include "facts/device_view.h"

#include "absl/strings/str_cat.h"

namespace rdmacheck {

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

bool IsMellanoxDevice(const DeviceInfo& d) {
  if (d.vendor_id) return *d.vendor_id == 0x15b3 || *d.vendor_id == 0x02c9;
  return d.driver && (*d.driver == "mlx4" || *d.driver == "mlx5");
}

std::string MissingFact(absl::string_view subject, absl::string_view fact) {
  std::string what = fact.empty() ? std::string(subject) : absl::StrCat(subject, " ", fact);
  return absl::StrCat("fact missing: ", what,
                      " (not in this profile; capture one with `rdmacheck capture`)");
}

}  // namespace rdmacheck
