#include "tools/fleet/node_summary.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "checks/gid_table.h"
#include "checks/link_health.h"
#include "facts/hw_counters.h"
#include "facts/port_rate.h"
#include "facts/rdma_types.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

// Device limits that one part should report alike on every node: a
// different value means another firmware, driver or kernel (rxe's limits
// come from the kernel), and a plan sized on one node fails on the other.
constexpr const char* kUniformAttrs[] = {
    "max_qp",     "max_qp_wr", "max_sge",     "max_sge_rd",     "max_cq",
    "max_cqe",    "max_mr",    "max_mr_size", "max_pd",         "max_srq",
    "max_srq_wr", "max_srq_sge", "max_qp_rd_atom", "max_qp_init_rd_atom",
};

// The sysctls rxe-sysctls judges; per netdev only for the RDMA ones.
constexpr const char* kUniformSysctls[] = {"rp_filter", "accept_local"};

constexpr char kJoin[] = " / ";

// Numbers by value ("512" before "4096"), other text as text.
bool ValueLess(const std::string& a, const std::string& b) {
  std::optional<uint64_t> x = ParseUnsigned(a), y = ParseUnsigned(b);
  if (x && y) return *x < *y;
  return a < b;
}

std::string Memlock(uint64_t bytes) {
  return bytes == HostInfo::kUnlimited ? "unlimited" : HumanBytes(bytes);
}

void AddSysctls(const DeviceView& view, const std::set<std::string>& rdma_netdevs, NodeSummary* node) {
  for (const auto& [name, value] : view.host.sysctls) {
    // net.ipv4.conf.<netdev>.<param>
    std::vector<std::string> parts = absl::StrSplit(name, '.');
    if (parts.size() != 5 || parts[0] != "net" || parts[1] != "ipv4" || parts[2] != "conf") continue;
    if (std::find(std::begin(kUniformSysctls), std::end(kUniformSysctls), parts[4]) == std::end(kUniformSysctls))
      continue;
    // Netdev names differ between nodes: the RDMA netdev's is one fact.
    if (parts[3] == "all" || parts[3] == "default") {
      AddFact(name, value, node);
    } else if (rdma_netdevs.count(parts[3])) {
      AddFact(absl::StrCat("net.ipv4.conf.<RDMA netdev>.", parts[4]), value, node);
    }
  }
}

void AddGidFact(const PortInfo& p, const FactOptions& o, NodeSummary* node) {
  if (p.link_layer != "Ethernet" || !p.gids_known) return;
  if (o.gid_index) {
    std::string type = "empty";
    for (const GidEntry& g : p.gids)
      if (g.index == *o.gid_index) type = std::string(GidTypeName(g.type));
    AddFact(absl::StrCat("GID type at index ", *o.gid_index), type, node);
    return;
  }
  std::string index = "none";
  for (const GidEntry& g : p.gids) {
    if (g.type == GidType::kRoceV2 && ClassifyGid(g.gid).kind == GidAddress::kIpv4Mapped) {
      index = absl::StrCat(g.index);
      break;
    }
  }
  AddFact("IPv4 RoCE v2 GID index", index, node);
}

// The rate per second over the window of every counter link-health judges
// (errors, discards, retries): a node far above its peers has a bad link
// even where a plan tolerates some.
void AddCounterFigures(const LinkWindow& w, const std::string& hw, const PortInfo& p,
                       std::map<std::pair<std::string, std::string>, NodeFigure>* figures) {
  if (w.ms <= 0) return;
  const std::pair<const std::map<std::string, uint64_t>*, const std::map<std::string, uint64_t>*> samples[] = {
      {&p.counters, &p.counters_after}, {&p.hw_counters, &p.hw_counters_after}};
  for (const auto& [before, after] : samples) {
    for (const CounterMove& m : CounterMoves(*before, *after)) {
      // A counter that went back was reset: no rate from it.
      if (!FindCounterKind(m.name) || m.went_back()) continue;
      NodeFigure f{absl::StrCat(m.name, " /s"), "/s", hw, Better::kLower, true,
                   static_cast<double>(m.delta()) * 1000.0 / static_cast<double>(w.ms)};
      auto [it, fresh] = figures->emplace(std::make_pair(f.name, hw), f);
      if (!fresh) it->second.value = std::max(it->second.value, f.value);
    }
  }
}

}  // namespace

absl::string_view KindName(NodeSummary::Kind k) {
  switch (k) {
    case NodeSummary::Kind::kReport: return "report";
    case NodeSummary::Kind::kBundle: return "bundle";
    case NodeSummary::Kind::kProfile: return "profile";
  }
  return "?";
}

std::string HardwareOf(const DeviceInfo& dev) {
  std::string driver = dev.driver.value_or("unknown driver");
  if (IsSoftDevice(dev) || !dev.vendor_part_id) return driver;
  return absl::StrCat(driver, " part ", *dev.vendor_part_id);
}

void AddFact(const std::string& fact, const std::string& value, NodeSummary* node) {
  auto [it, fresh] = node->facts.emplace(fact, value);
  if (fresh) return;
  std::vector<std::string> values = absl::StrSplit(it->second, kJoin);
  if (std::find(values.begin(), values.end(), value) != values.end()) return;
  values.push_back(value);
  std::sort(values.begin(), values.end(), ValueLess);
  it->second = absl::StrJoin(values, kJoin);
}

void AddViewFacts(const DeviceView& view, const FactOptions& options, NodeSummary* node) {
  const HostInfo& h = view.host;
  if (h.kernel) AddFact("kernel", *h.kernel, node);
  if (h.providers_known) {
    std::vector<std::string> p = h.providers;
    std::sort(p.begin(), p.end());
    AddFact("ibverbs providers", p.empty() ? "none" : absl::StrJoin(p, " "), node);
  }
  if (h.memlock_soft) AddFact("RLIMIT_MEMLOCK", Memlock(*h.memlock_soft), node);

  std::set<std::string> rdma_netdevs;
  std::map<std::pair<std::string, std::string>, NodeFigure> figures;
  std::optional<int> lowest_mtu;
  for (const DeviceInfo& d : view.devices) {
    const std::string hw = HardwareOf(d);
    if (!IsSoftDevice(d) && d.fw_ver) AddFact(absl::StrCat("firmware of ", hw), *d.fw_ver, node);
    for (const char* a : kUniformAttrs)
      if (std::optional<uint64_t> v = d.Attr(a)) AddFact(absl::StrCat(a, " of ", hw), absl::StrCat(*v), node);
    for (const PortInfo& p : d.ports) {
      if (std::optional<std::string> nd = PortNetdev(d, p)) rdma_netdevs.insert(*nd);
      if (view.window) AddCounterFigures(*view.window, hw, p, &figures);
      // A port that is not ACTIVE has no MTU, rate or GID in use:
      // port-active judges it.
      if (p.state != "ACTIVE") continue;
      if (p.active_mtu) {
        AddFact("active_mtu", absl::StrCat(*p.active_mtu), node);
        lowest_mtu = std::min(lowest_mtu.value_or(*p.active_mtu), *p.active_mtu);
      }
      if (!IsSoftDevice(d)) {
        // A soft device's rate only mirrors its netdev's speed.
        if (absl::StatusOr<PortRate> r = RateOfPort(p); r.ok())
          AddFact(absl::StrCat("link rate of ", hw), FormatRate(*r), node);
      }
      AddGidFact(p, options, node);
    }
  }
  for (const std::string& nd : rdma_netdevs) {
    const NetdevInfo* n = view.Netdev(nd);
    if (n && n->mtu) AddFact("netdev MTU", absl::StrCat(*n->mtu), node);
  }
  AddSysctls(view, rdma_netdevs, node);
  for (auto& [key, f] : figures) node->figures.push_back(std::move(f));
  if (lowest_mtu) {
    node->figures.push_back(NodeFigure{"active_mtu", "bytes", "", Better::kHigher, /*judged=*/false,
                                       static_cast<double>(*lowest_mtu)});
  }
}

}  // namespace rdmacheck
