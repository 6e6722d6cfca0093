// Device and port limits from libibverbs, over what sysfs gave.
#include <infiniband/verbs.h>

#include <algorithm>
#include <climits>
#include <map>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "facts/gather.h"
#include "facts/gather_internal.h"
#include "facts/rdma_types.h"
#include "verbs/context.h"

namespace rdmacheck {
namespace gather_internal {

VerbsFacts QueryVerbs(const std::string& dev) {
  VerbsFacts v;
  absl::StatusOr<verbs::Context> ctx = verbs::Context::Open(dev);
  if (!ctx.ok()) {
    v.errors.push_back(absl::StrCat("gather: ", dev, ": verbs not read: ", ctx.status().message()));
    return v;
  }
  absl::StatusOr<ibv_device_attr_ex> attr = ctx->QueryDeviceEx();
  if (!attr.ok()) {
    v.errors.push_back(absl::StrCat("gather: ", dev, ": ", attr.status().message()));
    return v;
  }
  v.attr = *attr;
  size_t max_entries = 0;
  bool every_port = true;
  for (int num = 1; num <= attr->orig_attr.phys_port_cnt; ++num) {
    absl::StatusOr<ibv_port_attr> pa = ctx->QueryPort(static_cast<uint8_t>(num));
    if (!pa.ok()) {
      v.errors.push_back(absl::StrCat("gather: ", dev, ": ", pa.status().message()));
      every_port = false;
      continue;
    }
    v.ports[num] = *pa;
    max_entries += static_cast<size_t>(pa->gid_tbl_len);
  }
  // Without every port's table length the table cannot be sized: sysfs is
  // scanned instead.
  if (!every_port || max_entries == 0) return v;
  absl::StatusOr<std::vector<ibv_gid_entry>> table = ctx->QueryGidTable(max_entries);
  if (!table.ok()) return v;
  std::map<int, std::vector<int>> valid;
  for (const auto& [num, pa] : v.ports) valid[num];  // a port with no valid GID has an empty list
  for (const ibv_gid_entry& e : *table) valid[static_cast<int>(e.port_num)].push_back(static_cast<int>(e.gid_index));
  for (auto& [num, idx] : valid) std::sort(idx.begin(), idx.end());
  v.valid_gids = std::move(valid);
  return v;
}

void ApplyVerbs(const VerbsFacts& v, DeviceInfo* dev, std::vector<std::string>* provenance) {
  provenance->insert(provenance->end(), v.errors.begin(), v.errors.end());
  if (!v.attr) return;
  ApplyDeviceAttr(*v.attr, dev);
  for (const auto& [num, pa] : v.ports) {
    PortInfo* port = nullptr;
    for (PortInfo& p : dev->ports)
      if (p.port_num == num) port = &p;
    if (port == nullptr) {
      dev->ports.emplace_back();
      port = &dev->ports.back();
      port->port_num = num;
    }
    ApplyPortAttr(pa, port);
  }
}

}  // namespace gather_internal

void ApplyDeviceAttr(const ibv_device_attr_ex& ex, DeviceInfo* dev) {
  const ibv_device_attr& a = ex.orig_attr;
  auto put = [dev](const char* name, int64_t v) {
    if (v >= 0) dev->attrs[name] = static_cast<uint64_t>(v);
  };
  auto putu = [dev](const char* name, uint64_t v) { dev->attrs[name] = v; };
  putu("max_mr_size", a.max_mr_size);
  putu("page_size_cap", a.page_size_cap);
  putu("vendor_id", a.vendor_id);
  putu("vendor_part_id", a.vendor_part_id);
  putu("hw_ver", a.hw_ver);
  put("max_qp", a.max_qp);
  put("max_qp_wr", a.max_qp_wr);
  putu("device_cap_flags", a.device_cap_flags);
  put("max_sge", a.max_sge);
  put("max_sge_rd", a.max_sge_rd);
  put("max_cq", a.max_cq);
  put("max_cqe", a.max_cqe);
  put("max_mr", a.max_mr);
  put("max_pd", a.max_pd);
  put("max_qp_rd_atom", a.max_qp_rd_atom);
  put("max_ee_rd_atom", a.max_ee_rd_atom);
  put("max_res_rd_atom", a.max_res_rd_atom);
  put("max_qp_init_rd_atom", a.max_qp_init_rd_atom);
  put("max_ee_init_rd_atom", a.max_ee_init_rd_atom);
  put("atomic_cap", static_cast<int64_t>(a.atomic_cap));
  put("max_ee", a.max_ee);
  put("max_rdd", a.max_rdd);
  put("max_mw", a.max_mw);
  put("max_raw_ipv6_qp", a.max_raw_ipv6_qp);
  put("max_raw_ethy_qp", a.max_raw_ethy_qp);
  put("max_mcast_grp", a.max_mcast_grp);
  put("max_mcast_qp_attach", a.max_mcast_qp_attach);
  put("max_total_mcast_qp_attach", a.max_total_mcast_qp_attach);
  put("max_ah", a.max_ah);
  put("max_fmr", a.max_fmr);
  put("max_map_per_fmr", a.max_map_per_fmr);
  put("max_srq", a.max_srq);
  put("max_srq_wr", a.max_srq_wr);
  put("max_srq_sge", a.max_srq_sge);
  putu("max_pkeys", a.max_pkeys);
  putu("local_ca_ack_delay", a.local_ca_ack_delay);
  putu("phys_port_cnt", a.phys_port_cnt);
  // The scalar parts of the extended query (zero where the provider lacks it).
  putu("device_cap_flags_ex", ex.device_cap_flags_ex);
  putu("completion_timestamp_mask", ex.completion_timestamp_mask);
  putu("hca_core_clock", ex.hca_core_clock);
  putu("max_wq_type_rq", ex.max_wq_type_rq);
  putu("raw_packet_caps", ex.raw_packet_caps);
  putu("max_dm_size", ex.max_dm_size);
  putu("odp_general_caps", ex.odp_caps.general_caps);
  putu("phys_port_cnt_ex", ex.phys_port_cnt_ex);

  if (!dev->vendor_id) dev->vendor_id = a.vendor_id;
  if (!dev->vendor_part_id) dev->vendor_part_id = a.vendor_part_id;
  if (!dev->hw_ver) dev->hw_ver = absl::StrFormat("0x%x", a.hw_ver);
  if (!dev->fw_ver) {
    std::string fw(a.fw_ver, strnlen(a.fw_ver, sizeof(a.fw_ver)));
    if (!fw.empty()) dev->fw_ver = fw;
  }
}

void ApplyPortAttr(const ibv_port_attr& a, PortInfo* p) {
  if (auto b = IbMtuBytes(a.active_mtu)) p->active_mtu = *b;
  if (auto b = IbMtuBytes(a.max_mtu)) p->max_mtu = *b;
  p->gid_tbl_len = a.gid_tbl_len;
  p->active_speed = a.active_speed;
  p->active_width = a.active_width;
  p->max_msg_sz = a.max_msg_sz;
  p->pkey_tbl_len = a.pkey_tbl_len;
  if (!p->state) p->state = PortStateName(a.state);
  if (!p->lid) p->lid = a.lid;
  if (!p->sm_lid) p->sm_lid = a.sm_lid;
  if (!p->link_layer) {
    if (a.link_layer == IBV_LINK_LAYER_ETHERNET) p->link_layer = "Ethernet";
    if (a.link_layer == IBV_LINK_LAYER_INFINIBAND) p->link_layer = "InfiniBand";
  }
}

}  // namespace rdmacheck
