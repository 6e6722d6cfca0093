// GatherLive: read this host's RDMA facts once into a DeviceView
// (facts/device_view.h): sysfs for devices, ports, GIDs and counters;
// libibverbs for device and port limits; netdevs, rlimits, sysctls, provider
// libraries and container markers for the host. Every read is tolerant: a
// missing or unreadable file leaves that one fact absent, and the gather as a
// whole does not fail because of it.
//
//   GatherOptions opts;                  // live: /sys, /proc, /dev, verbs on
//   opts.only_device = "rxe0";
//   absl::StatusOr<DeviceView> view = GatherLive(opts);
//   const PortInfo* p1 = view->devices[0].Port(1);   // p1->active_mtu, p1->gids
//
// Tests point the roots at a fake tree (fixtures/sysfs) with use_verbs and
// live_host off.
#ifndef RDMACHECK_FACTS_GATHER_H_
#define RDMACHECK_FACTS_GATHER_H_

#include <infiniband/verbs.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"
#include "util/phase_log.h"

namespace rdmacheck {

struct GatherOptions {
  std::string sysfs_root = "/sys";
  std::string proc_root = "/proc";
  std::string dev_root = "/dev";
  // Where /.dockerenv, /run/.containerenv and /usr/lib*/.../libibverbs/ are
  // looked up; tests point it into a fixture.
  std::string root = "/";
  // The roots above are this host's: the facts no file tree holds are asked
  // of the running system too (interface addresses through getifaddrs, the
  // nft / iptables-save rulesets). Off for a fixture tree, whose netdevs and
  // firewall are not this host's. Said outright rather than guessed from the
  // roots' paths.
  bool live_host = true;
  // Query each device with ibv_query_device_ex / ibv_query_port. A device
  // that cannot be opened keeps its sysfs facts, and a line saying why goes
  // to DeviceView::provenance ("gather: rxe0: verbs not read: ...").
  bool use_verbs = true;
  // Only this device (and its netdevs). NotFound "no RDMA device named X
  // (found: ...)" when sysfs does not list it.
  std::optional<std::string> only_device;
  // Run nft / iptables-save for the firewall rulesets (with live_host only).
  // Each is a fork+exec (tens of ms under emulation): callers that need no
  // firewall facts (diag create-qp, a run without firewall-4791) turn it off.
  bool read_rulesets = true;
  // Run `tc -j qdisc show` for the netdevs' qdiscs (with live_host only):
  // what shapes, delays or drops RoCE packets before they leave.
  bool read_qdiscs = true;
  // Where each part of the gather's time went ("gather.sysfs rxe0", ...);
  // null: not timed.
  PhaseLog* phases = nullptr;
};

// source = "live". Fails only for a missing only_device.
absl::StatusOr<DeviceView> GatherLive(const GatherOptions& opts);

// ---- Pieces of the gather, exposed for their tests. ----

// "5: LinkUp" -> "LinkUp", "4: ACTIVE" -> "ACTIVE", "1: CA" -> "CA";
// text without a "<number>: " prefix is returned trimmed.
std::string StripSysfsNumber(absl::string_view text);

// The provider name ("mlx5", "rxe", "siw", ...) from what sysfs shows:
// the kernel driver bound to the parent device (device/driver link basename,
// e.g. "mlx5_core"), whether the ib device has rxe's "parent" attribute, its
// node type and its name. nullopt when nothing tells.
std::optional<std::string> InferDriver(absl::string_view ibdev,
                                       const std::optional<std::string>& kernel_driver,
                                       bool has_rxe_parent,
                                       const std::optional<std::string>& node_type);

// Every numeric field of ibv_device_attr (and the scalar ones of the _ex
// struct) into dev->attrs under its libibverbs name; vendor_id,
// vendor_part_id, hw_ver and fw_ver into their fields where sysfs left them
// empty.
void ApplyDeviceAttr(const ibv_device_attr_ex& attr, DeviceInfo* dev);

// active_mtu / max_mtu (bytes), gid_tbl_len, active_speed, active_width,
// max_msg_sz, pkey_tbl_len; state, lid, sm_lid, link_layer where sysfs left
// them empty.
void ApplyPortAttr(const ibv_port_attr& attr, PortInfo* port);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_GATHER_H_
