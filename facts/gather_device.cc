// Devices and their ports from sysfs (drivers/infiniband/core/sysfs.c,
// Documentation/ABI/stable/sysfs-class-infiniband).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "facts/gather.h"
#include "facts/gather_internal.h"
#include "facts/gid_table.h"
#include "facts/hw_counters.h"
#include "facts/pci.h"
#include "facts/sysfs.h"

namespace rdmacheck {
namespace {

std::optional<std::string> TransportOf(const std::string& node_type) {
  if (node_type == "CA" || node_type == "switch" || node_type == "router") return "InfiniBand";
  if (node_type == "RNIC") return "iWARP";
  if (absl::StartsWith(node_type, "usNIC")) return node_type;
  return std::nullopt;
}

PortInfo ReadPort(const SysfsReader& sys, const std::string& dev, const std::string& pdir, int num,
                  const std::vector<int>* valid_gids) {
  PortInfo p;
  p.port_num = num;
  if (auto s = sys.ReadValue(JoinPath(pdir, "state"))) p.state = StripSysfsNumber(*s);
  if (auto s = sys.ReadValue(JoinPath(pdir, "phys_state"))) p.phys_state = StripSysfsNumber(*s);
  p.link_layer = sys.ReadValue(JoinPath(pdir, "link_layer"));
  p.rate = sys.ReadValue(JoinPath(pdir, "rate"));
  p.lid = sys.ReadInt(JoinPath(pdir, "lid"));
  p.sm_lid = sys.ReadInt(JoinPath(pdir, "sm_lid"));
  const bool ib_link = p.link_layer.has_value() && *p.link_layer == "InfiniBand";

  const std::string gids = JoinPath(pdir, "gids");
  if (valid_gids != nullptr) {
    p.gids_known = true;
    for (int i : *valid_gids) {
      if (std::optional<GidEntry> g = ReadPortGid(sys, pdir, i, ib_link)) p.gids.push_back(*std::move(g));
    }
  } else if (sys.ListDir(gids).has_value()) {
    p.gids_known = true;
    for (int i : sys.ListNumbered(gids)) {
      if (std::optional<GidEntry> g = ReadPortGid(sys, pdir, i, ib_link)) p.gids.push_back(*std::move(g));
    }
  }
  PortCounterSample c = ReadPortCounters(sys, dev, num);
  p.counters = std::move(c.counters);
  p.hw_counters = std::move(c.hw_counters);
  p.unreadable_counters = std::move(c.unreadable);
  return p;
}

}  // namespace

namespace gather_internal {

std::map<std::string, std::string> UverbsByIbdev(const SysfsReader& sys) {
  std::map<std::string, std::string> out;
  const std::string dir = "class/infiniband_verbs";
  for (const std::string& n : sys.ListDir(dir).value_or(std::vector<std::string>{})) {
    if (!absl::StartsWith(n, "uverbs")) continue;
    if (auto ib = sys.ReadValue(JoinPath(dir, n + "/ibdev"))) out[*ib] = n;
  }
  return out;
}

DeviceInfo ReadDevice(const SysfsReader& sys, const std::string& name,
                      const std::map<std::string, std::string>& uverbs,
                      const std::map<int, std::vector<int>>* valid_gids) {
  const std::string d = JoinPath("class/infiniband", name);
  DeviceInfo dev;
  dev.name = name;
  if (auto s = sys.ReadValue(JoinPath(d, "node_type"))) {
    dev.node_type = StripSysfsNumber(*s);
    dev.transport = TransportOf(*dev.node_type);
  }
  dev.node_guid = sys.ReadValue(JoinPath(d, "node_guid"));
  dev.sys_image_guid = sys.ReadValue(JoinPath(d, "sys_image_guid"));
  dev.fw_ver = sys.ReadValue(JoinPath(d, "fw_ver"));
  dev.hw_ver = sys.ReadValue(JoinPath(d, "hw_rev"));
  dev.board_id = sys.ReadValue(JoinPath(d, "board_id"));
  if (auto v = sys.ReadNumber(JoinPath(d, "device/vendor"))) dev.vendor_id = static_cast<uint32_t>(*v);
  if (auto v = sys.ReadNumber(JoinPath(d, "device/device"))) {
    dev.vendor_part_id = static_cast<uint32_t>(*v);
  }
  // rxe names its netdev in "parent" (drivers/infiniband/sw/rxe/rxe_verbs.c).
  std::optional<std::string> parent = sys.ReadValue(JoinPath(d, "parent"));
  dev.driver = InferDriver(name, sys.LinkBasename(JoinPath(d, "device/driver")), parent.has_value(),
                           dev.node_type);
  auto u = uverbs.find(name);
  if (u != uverbs.end()) dev.uverbs = u->second;

  for (int num : sys.ListNumbered(JoinPath(d, "ports"))) {
    const std::vector<int>* valid = nullptr;
    if (valid_gids != nullptr) {
      auto it = valid_gids->find(num);
      if (it != valid_gids->end()) valid = &it->second;
    }
    dev.ports.push_back(ReadPort(sys, name, JoinPath(d, "ports/" + std::to_string(num)), num, valid));
  }
  ReadPciFacts(sys, &dev);
  dev.netdev = parent;
  if (!dev.netdev) {
    // Hardware RoCE: the netdev of the first GID that names one.
    for (const PortInfo& p : dev.ports) {
      for (const GidEntry& g : p.gids) {
        if (!g.netdev.empty()) {
          dev.netdev = g.netdev;
          break;
        }
      }
      if (dev.netdev) break;
    }
  }
  return dev;
}

}  // namespace gather_internal

std::string StripSysfsNumber(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  size_t colon = text.find(": ");
  if (colon != absl::string_view::npos && colon > 0) {
    absl::string_view num = text.substr(0, colon);
    bool digits = std::all_of(num.begin(), num.end(),
                              [](char c) { return absl::ascii_isdigit(c); });
    if (digits) text.remove_prefix(colon + 2);
  }
  return std::string(absl::StripAsciiWhitespace(text));
}

std::optional<std::string> InferDriver(absl::string_view ibdev,
                                       const std::optional<std::string>& kernel_driver,
                                       bool has_rxe_parent,
                                       const std::optional<std::string>& node_type) {
  // Kernel driver of the parent (PCI/aux) device -> libibverbs provider name.
  struct Row {
    const char* kernel;
    const char* provider;
  };
  static const Row kKernelToProvider[] = {
      {"mlx5_core", "mlx5"}, {"mlx4_core", "mlx4"},  {"bnxt_en", "bnxt_re"},
      {"bnxt_re", "bnxt_re"}, {"irdma", "irdma"},     {"ice", "irdma"},
      {"i40e", "irdma"},     {"qede", "qedr"},        {"qedr", "qedr"},
      {"cxgb4", "cxgb4"},    {"hfi1", "hfi1"},        {"ib_qib", "qib"},
      {"efa", "efa"},        {"vmw_pvrdma", "vmw_pvrdma"}, {"hns3", "hns"},
      {"hns_roce_hw_v2", "hns"}, {"erdma", "erdma"},  {"mana", "mana"},
      {"mana_ib", "mana"},   {"ocrdma", "ocrdma"},    {"be2net", "ocrdma"},
      {"ib_mthca", "mthca"}, {"usnic_verbs", "usnic"}, {"enic", "usnic"},
  };
  if (has_rxe_parent) return "rxe";
  if (kernel_driver) {
    for (const Row& r : kKernelToProvider)
      if (*kernel_driver == r.kernel) return std::string(r.provider);
  }
  if (absl::StartsWith(ibdev, "siw")) return "siw";
  // siw sits on a NIC whose own driver shows through device/driver.
  if (node_type && *node_type == "RNIC" && kernel_driver &&
      !absl::StartsWith(*kernel_driver, "cxgb")) {
    return "siw";
  }
  if (kernel_driver) return *kernel_driver;
  // Last resort, the name's prefix: "mlx5_0" -> "mlx5", "rxe0" -> "rxe".
  absl::string_view n = ibdev;
  size_t us = n.rfind('_');
  if (us != absl::string_view::npos && us > 0) {
    n = n.substr(0, us);
  } else {
    while (!n.empty() && absl::ascii_isdigit(n.back())) n.remove_suffix(1);
  }
  if (n.empty()) return std::nullopt;
  return std::string(n);
}

}  // namespace rdmacheck
