#include "tools/peer/peer_match.h"

#include <arpa/inet.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "acts/probe/gid_choice.h"

namespace rdmacheck {
namespace {

struct End {
  const DeviceView* view = nullptr;
  const DeviceInfo* dev = nullptr;
  const PortInfo* port = nullptr;
  const NetdevInfo* netdev = nullptr;
  std::optional<GidEntry> gid;
  std::string gid_error;
  std::string label;  // "rxe0 port 1 (this host)"
};

End MakeEnd(const DeviceView& v, const DeviceInfo* dev, int port_num, std::optional<int> gid_index,
            const std::string& where) {
  End e;
  e.view = &v;
  e.dev = dev;
  if (dev == nullptr) return e;
  e.port = port_num > 0 ? dev->Port(port_num) : (dev->ports.empty() ? nullptr : &dev->ports[0]);
  e.label = absl::StrCat(dev->name, " port ", e.port ? e.port->port_num : port_num, " (", where, ")");
  if (dev->netdev) e.netdev = v.Netdev(*dev->netdev);
  if (e.port != nullptr) {
    absl::StatusOr<GidEntry> g = ChooseGid(e.port->gids, gid_index, absl::StrCat(dev->name, " port ", e.port->port_num));
    if (g.ok()) {
      e.gid = *g;
      if (e.netdev == nullptr && !g->netdev.empty()) e.netdev = v.Netdev(g->netdev);
    } else {
      e.gid_error = std::string(g.status().message());
    }
  }
  return e;
}

template <typename T>
std::string Show(const std::optional<T>& v) {
  if (!v) return "unknown";
  return absl::StrCat(*v);
}

}  // namespace

std::optional<std::string> Ipv4OfGid(const std::string& gid) {
  in6_addr a{};
  if (inet_pton(AF_INET6, gid.c_str(), &a) != 1) return std::nullopt;
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (memcmp(a.s6_addr, kMapped, 12) != 0) return std::nullopt;
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, a.s6_addr + 12, buf, sizeof buf);
  return std::string(buf);
}

std::optional<std::string> SubnetOf(const std::string& ip, const std::vector<std::string>& addrs) {
  in_addr want{};
  if (inet_pton(AF_INET, ip.c_str(), &want) != 1) return std::nullopt;
  for (const std::string& a : addrs) {
    size_t slash = a.find('/');
    if (slash == std::string::npos || a.substr(0, slash) != ip) continue;
    int len;
    if (!absl::SimpleAtoi(a.substr(slash + 1), &len) || len < 0 || len > 32) continue;
    uint32_t mask = len == 0 ? 0 : htonl(0xffffffffu << (32 - len));
    in_addr net{want.s_addr & mask};
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &net, buf, sizeof buf);
    return absl::StrCat(buf, "/", len);
  }
  return std::nullopt;
}

PeerMatchCheck::PeerMatchCheck(DeviceView remote, std::string remote_device, int remote_port, std::string where)
    : remote_(std::move(remote)),
      remote_device_(std::move(remote_device)),
      remote_port_(remote_port),
      where_(std::move(where)) {}

Result PeerMatchCheck::Run(const CheckContext& ctx) const {
  std::string title = absl::StrCat("This host and ", where_, " agree on link layer, MTU, GID type and subnet");
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) return ResultBuilder::Skip(*this, title, "no local RDMA device");
  const DeviceInfo* rdev = remote_device_.empty() ? (remote_.devices.empty() ? nullptr : &remote_.devices[0])
                                                  : remote_.Device(remote_device_);
  if (rdev == nullptr) {
    return ResultBuilder::CouldNotRun(
        *this, title,
        absl::StrCat(where_, " reported no RDMA device", remote_device_.empty() ? "" : absl::StrCat(" named ", remote_device_)));
  }
  std::vector<const PortInfo*> lports = ctx.SelectedPorts(*devs[0]);
  End a = MakeEnd(ctx.view, devs[0], lports.empty() ? 0 : lports[0]->port_num, ctx.options.gid_index, "this host");
  End b = MakeEnd(remote_, rdev, remote_port_, ctx.options.gid_index, where_);
  title = absl::StrCat(a.dev->name, " (this host) and ", rdev->name, " on ", where_,
                       " agree on link layer, MTU, GID type and subnet");
  ResultBuilder r(*this, title);
  if (a.port == nullptr || b.port == nullptr) {
    r.Expect("ports", "a port on each end", absl::StrCat(a.port ? "" : a.dev->name + " has none; ", b.port ? "" : rdev->name + " has none"),
             Verdict::kFail);
    return r.Build();
  }
  const std::string both = absl::StrCat(a.label, " / ", b.label);
  auto same = [&](const std::string& subject, const std::string& va, const std::string& vb, Verdict bad) {
    const bool unknown = va == "unknown" || vb == "unknown";
    r.Expect(subject, "equal on both ends", absl::StrCat(va, " / ", vb),
             unknown ? Verdict::kWarn : (va == vb ? Verdict::kPass : bad));
    return !unknown && va != vb;
  };
  // Port states first: nothing else matters when one is down.
  r.Expect(absl::StrCat("port state, ", both), "ACTIVE / ACTIVE",
           absl::StrCat(Show(a.port->state), " / ", Show(b.port->state)),
           a.port->state == "ACTIVE" && b.port->state == "ACTIVE" ? Verdict::kPass : Verdict::kFail);
  same(absl::StrCat("link layer, ", both), Show(a.port->link_layer), Show(b.port->link_layer), Verdict::kFail);
  const bool mtu_differs =
      same(absl::StrCat("active_mtu (bytes), ", both), Show(a.port->active_mtu), Show(b.port->active_mtu), Verdict::kFail);
  bool netdev_differs = false;
  if (a.netdev != nullptr || b.netdev != nullptr) {
    netdev_differs = same(absl::StrCat("netdev MTU (bytes), ", a.netdev ? a.netdev->name : "?", " on this host / ",
                                       b.netdev ? b.netdev->name : "?", " on ", where_),
                          a.netdev ? Show(a.netdev->mtu) : "unknown", b.netdev ? Show(b.netdev->mtu) : "unknown",
                          Verdict::kFail);
  }
  if (!a.gid || !b.gid) {
    r.Expect(absl::StrCat("GID for traffic, ", both), "one on each end",
             absl::StrCat(a.gid ? a.gid->gid : a.gid_error, " / ", b.gid ? b.gid->gid : b.gid_error), Verdict::kFail);
  } else {
    const std::string gids = absl::StrCat("GID ", a.gid->index, " ", a.gid->gid, " / GID ", b.gid->index, " ", b.gid->gid);
    const bool type_differs = same(absl::StrCat("GID type (RoCE version), ", gids), std::string(GidTypeName(a.gid->type)),
                                   std::string(GidTypeName(b.gid->type)), Verdict::kFail);
    std::optional<std::string> ia = Ipv4OfGid(a.gid->gid), ib = Ipv4OfGid(b.gid->gid);
    const bool ipver_differs = same(absl::StrCat("GID IP version, ", gids), ia ? "IPv4-mapped" : "IPv6",
                                    ib ? "IPv4-mapped" : "IPv6", Verdict::kFail);
    if (ia && ib) {
      std::optional<std::string> sa = a.netdev && a.netdev->addrs_known ? SubnetOf(*ia, a.netdev->addrs) : std::nullopt;
      std::optional<std::string> sb = b.netdev && b.netdev->addrs_known ? SubnetOf(*ib, b.netdev->addrs) : std::nullopt;
      // Routed RoCE v2 can cross subnets: a difference is worth a WARN, not a FAIL.
      same(absl::StrCat("IPv4 subnet of the GIDs, ", *ia, " / ", *ib), sa.value_or("unknown"), sb.value_or("unknown"),
           Verdict::kWarn);
    }
    if (type_differs || ipver_differs) {
      r.Remedy(absl::StrCat("pick GIDs of one type on both ends: show_gids, or cat /sys/class/infiniband/", a.dev->name,
                            "/ports/", a.port->port_num, "/gid_attrs/types/* and the same on ", where_));
      r.Remedy(absl::StrCat("rdmacheck --peer ", where_, " -d ", a.dev->name, " -x <index of a ",
                            GidTypeName(b.gid->type), " GID>"));
    }
  }
  if (mtu_differs || netdev_differs) {
    const int want = std::max(a.netdev ? a.netdev->mtu.value_or(0) : 0, b.netdev ? b.netdev->mtu.value_or(0) : 0);
    const End& small = (a.netdev && a.netdev->mtu.value_or(0) < want) ? a : b;
    if (small.netdev != nullptr && want > 0) {
      r.Remedy(absl::StrCat("ip link set dev ", small.netdev->name, " mtu ", want, "   # on ",
                            &small == &a ? "this host" : where_, " (or lower the other end to match)"));
    }
    r.Remedy(absl::StrCat("ibv_devinfo -d ", small.dev->name, " | grep active_mtu   # on ",
                          &small == &a ? "this host" : where_, ": both ends must show the same"));
  }
  if (a.port->state != "ACTIVE" || b.port->state != "ACTIVE") {
    r.Remedy(absl::StrCat("rdmacheck --checks port-active -d ", a.port->state != "ACTIVE" ? a.dev->name : rdev->name,
                          a.port->state != "ACTIVE" ? "" : absl::StrCat("   # on ", where_)));
  }
  return r.Build();
}

}  // namespace rdmacheck
