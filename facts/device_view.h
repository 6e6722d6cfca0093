// DeviceView: every fact the checks read about a node, gathered once per run.
//
// It is filled live (facts/gather.h), read from a recorded profile
// (facts/profile.h) or imported from `ibv_devinfo -v` text. Every fact is
// optional: a profile or an import may lack it, and a check that needs a
// missing fact says SKIP and names it (see MissingFact()).
//
//   DeviceView view = ...;
//   for (const DeviceInfo& dev : view.devices) {
//     std::optional<uint64_t> wr = dev.Attr("max_qp_wr");
//     if (!wr) return Skip(MissingFact(dev.name, "attr max_qp_wr"));
//   }
#ifndef RDMACHECK_FACTS_DEVICE_VIEW_H_
#define RDMACHECK_FACTS_DEVICE_VIEW_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "facts/rdma_types.h"

namespace rdmacheck {

struct GidEntry {
  int index = 0;
  std::string gid;     // textual IPv6 form, e.g. "::ffff:198.18.0.1"
  GidType type = GidType::kUnknown;
  std::string netdev;  // empty when the kernel names none
};

struct PortInfo {
  int port_num = 1;
  // ibv_port_state_str() spelling without the PORT_ prefix: "ACTIVE", "DOWN",
  // "INIT", "ARMED", "ACTIVE_DEFER", "NOP".
  std::optional<std::string> state;
  // sysfs phys_state spelling without the number: "LinkUp", "Disabled",
  // "Polling", ...
  std::optional<std::string> phys_state;
  std::optional<std::string> link_layer;  // "Ethernet" | "InfiniBand"
  std::optional<int> active_mtu;          // bytes: 256..4096
  std::optional<int> max_mtu;             // bytes
  std::optional<std::string> rate;        // sysfs rate text, e.g. "10 Gb/sec (1X QDR)"
  std::optional<int> active_speed;        // ibv_port_attr.active_speed code
  std::optional<int> active_width;        // ibv_port_attr.active_width code
  std::optional<int> gid_tbl_len;
  std::optional<int> lid;
  std::optional<int> sm_lid;
  std::optional<int> pkey_tbl_len;
  std::optional<uint64_t> max_msg_sz;
  std::vector<GidEntry> gids;             // non-empty entries only
  bool gids_known = false;                // false: the GID table was not read
  std::map<std::string, uint64_t> hw_counters;  // ports/N/hw_counters/*
  std::map<std::string, uint64_t> counters;     // ports/N/counters/*
  // The same files read again at the end of DeviceView::window (empty
  // without one). The two samples above are then its start.
  std::map<std::string, uint64_t> hw_counters_after;
  std::map<std::string, uint64_t> counters_after;
  // Counter files that exist but gave no number, as "counters/NAME" or
  // "hw_counters/NAME" (an EIO from the driver, a permission, garbage).
  std::vector<std::string> unreadable_counters;
};

struct DeviceInfo {
  std::string name;                       // "rxe0", "mlx5_0"
  std::optional<std::string> driver;      // provider: "rxe", "mlx5", "mlx4", "siw", ...
  std::optional<std::string> node_type;   // "CA", "RNIC"
  std::optional<std::string> transport;   // "InfiniBand", "iWARP"
  std::optional<std::string> node_guid;   // "0011:2233:4455:6677"
  std::optional<std::string> sys_image_guid;
  std::optional<std::string> fw_ver;
  std::optional<std::string> hw_ver;      // "0x0"
  std::optional<uint32_t> vendor_id;
  std::optional<uint32_t> vendor_part_id;
  std::optional<std::string> board_id;
  std::optional<std::string> netdev;      // rxe/siw: the parent netdev
  std::optional<std::string> uverbs;      // "uverbs0"
  // ibv_query_device_ex attributes by libibverbs field name: max_qp,
  // max_qp_wr, max_sge, max_sge_rd, max_cq, max_cqe, max_mr, max_mr_size,
  // max_pd, max_srq, max_srq_wr, max_srq_sge, page_size_cap, device_cap_flags,
  // max_qp_rd_atom, max_qp_init_rd_atom, max_ah, max_mw, max_pkeys, ...
  std::map<std::string, uint64_t> attrs;
  std::vector<PortInfo> ports;
  // The PCI function behind the device (device/ in sysfs; none for rxe, siw
  // and other virtual devices): its address (PCI_SLOT_NAME of device/uevent),
  // the PCIe link as trained and as the device can do ("8.0 GT/s PCIe", 16
  // lanes), the NUMA node as sysfs prints it ("-1": the firmware says none).
  std::optional<std::string> pci_address;
  std::optional<std::string> pci_link_speed;
  std::optional<int> pci_link_width;
  std::optional<std::string> pci_max_link_speed;
  std::optional<int> pci_max_link_width;
  std::optional<std::string> numa_node;
  // AER totals (TOTAL_ERR_COR / _NONFATAL / _FATAL of aer_dev_*) under
  // "correctable", "nonfatal", "fatal"; absent without AER. _after: at the
  // end of the window.
  std::map<std::string, uint64_t> aer;
  std::map<std::string, uint64_t> aer_after;

  std::optional<uint64_t> Attr(absl::string_view name) const;
  const PortInfo* Port(int port_num) const;
};

// One queueing discipline on a netdev, as `tc -j qdisc show` describes it
// (facts/qdisc.h reads it), with the figures that shape RoCE traffic in
// their own units. A field is absent when the kind has no such parameter
// or tc did not print it.
struct Qdisc {
  std::string kind;    // "tbf", "netem", "fq_codel", "noqueue", ...
  std::string parent;  // "root", or the parent's handle ("1:1")
  std::optional<uint64_t> rate_bps;     // tbf, netem rate: bits per second
  std::optional<uint64_t> burst_bytes;  // tbf: the bucket, the largest packet it passes
  std::optional<uint64_t> limit_bytes;  // tbf: the queue
  std::optional<double> delay_us;       // netem
  std::optional<double> loss_pct;       // netem, random loss
  bool operator==(const Qdisc& o) const;
};

struct NetdevInfo {
  std::string name;
  std::optional<int> mtu;                  // bytes
  std::optional<std::string> operstate;    // "up", "down", "unknown", ...
  std::optional<int> ifindex;
  std::vector<std::string> addrs;          // "198.18.0.1/24", "fe80::1/64"
  bool addrs_known = false;
  std::vector<Qdisc> qdiscs;               // tc -j qdisc show, root first
  bool qdiscs_known = false;
  // What kind of netdev it is, as the kernel's uevent names it (DEVTYPE):
  // "vlan", "bond", "bridge", "team", ...; absent for a plain NIC or veth.
  std::optional<std::string> kind;
  // The netdevs right below it (sysfs lower_*): a VLAN's parent, a bond's
  // slaves.
  std::vector<std::string> lower;
  std::optional<int> vlan_id;              // "vlan": /proc/net/vlan/NAME "VID: 100"
  std::optional<std::string> master;       // the bond or bridge it is enslaved to
  // "bond": bonding/mode ("active-backup 1"), active_slave (empty: none),
  // mii_status ("up", "down").
  std::optional<std::string> bond_mode;
  std::optional<std::string> bond_active_slave;
  std::optional<std::string> bond_mii_status;
  // A bond's slave: bonding_slave/state ("active", "backup"), mii_status,
  // link_failure_count.
  std::optional<std::string> slave_state;
  std::optional<std::string> slave_mii_status;
  std::optional<uint64_t> link_failure_count;

  bool IsVlan() const { return kind && *kind == "vlan"; }
  bool IsBond() const { return kind && *kind == "bond"; }
};

struct HostInfo {
  std::optional<std::string> hostname;
  std::optional<std::string> kernel;       // uname -r
  // RLIMIT_MEMLOCK in bytes; kUnlimited for RLIM_INFINITY.
  static constexpr uint64_t kUnlimited = UINT64_MAX;
  std::optional<uint64_t> memlock_soft;
  std::optional<uint64_t> memlock_hard;
  std::optional<uint64_t> mem_total;       // bytes, /proc/meminfo MemTotal
  std::optional<bool> rxe_loaded;          // /sys/module/rdma_rxe exists
  // false: the input listed no devices at all (pastes of `ulimit` or `ip
  // addr` alone), so an empty `devices` says nothing; absent: listed (live,
  // a capture, a paste of ibv_devinfo, ibstat, rdma link, ...).
  std::optional<bool> devices_listed;
  std::optional<bool> is_root;             // euid 0
  std::optional<bool> in_container;
  // When in_container: the engine the markers name ("docker", "podman",
  // "kubernetes", "generic") and the marker that told ("/.dockerenv", ...);
  // see facts/container.h.
  std::optional<std::string> container_runtime;
  std::optional<std::string> container_marker;
  std::optional<bool> sysfs_infiniband;    // /sys/class/infiniband exists
  std::optional<bool> dev_infiniband;      // /dev/infiniband exists
  // ibverbs provider libraries found (e.g. "rxe", "mlx5"), from
  // /usr/lib/*/libibverbs/lib<name>-rdmav*.so; empty with known=false: not read.
  std::vector<std::string> providers;
  bool providers_known = false;
  // Selected sysctls by name, e.g. "net.ipv4.conf.all.rp_filter" -> "0".
  std::map<std::string, std::string> sysctls;
  // Firewall rulesets as the tools print them, by source: "nft" (`nft list
  // ruleset`), "iptables-nft", "iptables-legacy", "ip6tables-nft",
  // "ip6tables-legacy" (`<name>-save`). A source that is absent was not read
  // (tool missing, failed or timed out: the reason is in provenance); an
  // empty text is an empty ruleset. See firewall/ for the readers.
  std::map<std::string, std::string> rulesets;
  // Listings that ran and failed or timed out (not those whose tool is
  // missing), by source, with what happened: the rulesets read beside them
  // are then not the whole firewall.
  std::map<std::string, std::string> rulesets_not_read;
  // A kernel UDP socket bound to port 4791 (RoCE v2) exists in /proc/net/udp
  // or /proc/net/udp6: rdma_rxe opens it when its first device is created.
  std::optional<bool> udp4791_socket;
  // Device nodes under /dev/infiniband ("uverbs0", "rdma_cm") and what an
  // open(O_RDWR) said: "rw" (opened and closed again), "missing" (no such
  // node) or the errno text ("Permission denied"). Empty: not looked at.
  std::map<std::string, std::string> dev_nodes;
  // CAP_IPC_LOCK in the effective set (/proc/self/status CapEff bit 14):
  // what lets a container pin memory beyond RLIMIT_MEMLOCK.
  std::optional<bool> cap_ipc_lock;
  // rdma's network namespace mode (ib_core's netns_mode parameter, Y/N):
  // "shared" (every namespace lists every RDMA device) or "exclusive" (a
  // namespace lists only its own devices). `rdma system show` says the same.
  std::optional<std::string> rdma_netns_mode;
  // This process is in another network namespace than PID 1's
  // (/proc/self/ns/net and /proc/1/ns/net differ), outside a container the
  // host's; unset when either link could not be read.
  std::optional<bool> own_netns;
  // Seconds since boot (/proc/uptime), for counter totals.
  std::optional<uint64_t> uptime_s;
  // Devices a pasted ibv_devinfo listed but could not open: it prints
  // "Failed to open device" (rdma-core libibverbs/examples/devinfo.c) for
  // each, without its name, when the process may not open the device's
  // /dev/infiniband node (a pod given one VF of several).
  std::optional<uint64_t> devices_not_opened;
  // Devices a pasted ibv_devinfo's libibverbs left out for want of their
  // provider library ("libibverbs: Warning: no userspace device-specific
  // driver found for /sys/class/infiniband_verbs/uverbsN", libibverbs/init.c).
  std::optional<uint64_t> devices_without_provider;
};

// An asynchronous event a device raised (ibv_get_async_event) during the
// window.
struct AsyncEventSeen {
  std::string device;
  int64_t at_ms = 0;          // after the window opened
  // The IBV_EVENT_ name without the prefix: "PORT_ERR", "PORT_ACTIVE",
  // "GID_CHANGE", "LID_CHANGE", "SM_CHANGE", "CLIENT_REREGISTER",
  // "PKEY_CHANGE", "DEVICE_FATAL", ...
  std::string type;
  std::optional<int> port;    // for port events
};

// A second look over a window: every port counter and AER total read at
// its start (PortInfo::counters, ...) and end (..._after), and the async
// events of the devices in between (facts/link_window.h). What link-health
// and pcie judge.
struct LinkWindow {
  int64_t ms = 0;                         // between the two samples
  std::optional<std::string> started;     // UTC, "2026-12-01T13:20:05Z"
  std::vector<std::string> watched;       // devices whose async events were read
  std::map<std::string, std::string> unwatched;  // device -> why they were not
  std::vector<AsyncEventSeen> events;
  bool cut_short = false;                 // stopped before its length (Ctrl-C)
  // How a run watched it when that is not simply "nothing else ran": beside
  // the other checks, or again after them (checks/session.h). Said by the
  // checks that judge the window; a profile does not record it.
  std::vector<std::string> notes;
};

struct DeviceView {
  // Where the facts came from: "live", "profile:<path>", "ibv_devinfo:<path>".
  std::string source;
  // Free text kept from a profile's header (who captured it, where, when).
  std::vector<std::string> provenance;
  // What an import could not read, "FILE:LINE: ..." (a paste cut short):
  // the facts after it are absent, and checks that need them SKIP naming
  // them. The command line prints these once; capture keeps them in the
  // profile's header.
  std::vector<std::string> warnings;
  // Where each imported fact came from: "mlx5_0 port 1 state" ->
  // "ibstat.txt:7" (facts/paste_import.h); empty for live views.
  std::map<std::string, std::string> fact_sources;
  HostInfo host;
  std::vector<DeviceInfo> devices;
  std::vector<NetdevInfo> netdevs;
  std::optional<LinkWindow> window;

  const DeviceInfo* Device(absl::string_view name) const;
  const NetdevInfo* Netdev(absl::string_view name) const;
  bool live() const { return source == "live"; }
};

// The netdev a port rides on: the device's parent (rxe, siw) or the netdev
// of its first GID that names one (RoCE hardware); nullopt when none is known
// (InfiniBand ports).
std::optional<std::string> PortNetdev(const DeviceInfo& dev, const PortInfo& port);

// The netdevs a device rides on: its parent (rxe, siw) and the netdevs its
// GIDs name (a VLAN over the parent, a RoCE NIC's own), sorted, once each.
std::vector<std::string> DeviceNetdevs(const DeviceInfo& dev);

// What a GID's 128 bits say about the address it carries. Accepts any IPv6
// text form ("::ffff:10.10.1.17", "0000:...:ffff:0a0a:0111").
//   GidAddress a = ClassifyGid("::ffff:198.18.0.1");  // a.kind == kIpv4Mapped, a.ipv4 "198.18.0.1"
struct GidAddress {
  enum Kind { kInvalid, kZero, kIpv4Mapped, kLinkLocal, kIpv6 };
  Kind kind = kInvalid;
  std::string ipv4;  // "198.18.0.1" for kIpv4Mapped
};
GidAddress ClassifyGid(absl::string_view gid);

// A GID with an address a peer can reach: IPv4-mapped (::ffff:a.b.c.d) or
// global IPv6; not empty, not fe80:: link-local.
bool GidHasAddress(const GidEntry& g);

// The netdevs RoCE traffic of `port` leaves and arrives by: those named by
// its GIDs with an address (the VLAN netdev when the addresses are on a
// VLAN over the parent), in GID order, once each; the port's netdev
// (PortNetdev) when no such GID names one.
std::vector<std::string> RoceNetdevs(const DeviceInfo& dev, const PortInfo& port);

// The VLAN netdevs in `view` whose parent is `netdev`.
std::vector<const NetdevInfo*> VlansOver(const DeviceView& view, absl::string_view netdev);

// The bridge or bond `netdev` is a port (slave) of, when `view` has it: its
// rx_handler hands every frame arriving on `netdev` to the master, so the
// host's stack sees them as the master's.
const NetdevInfo* RxMaster(const DeviceView& view, absl::string_view netdev);

// "va.100 (VLAN 100 over va)", "bond0 (bond)", "va": a netdev named with
// what it is, for evidence.
std::string DescribeNetdev(const DeviceView& view, absl::string_view netdev);

// Software devices over a netdev (driver rxe or siw): no firmware, and a port
// rate that only mirrors the netdev's.
bool IsSoftDevice(const DeviceInfo& dev);

// The kernel lists `dev` but this process has no /dev/infiniband node for it
// (host.dev_nodes says "missing"; a container run without --device for it):
// libibverbs skips such a device (rdma-core libibverbs/init.c), so nothing
// here can open it. False when the nodes were not looked at.
bool UverbsNodeMissing(const HostInfo& host, const DeviceInfo& dev);

// A Mellanox/NVIDIA adapter: its PCI vendor ID 0x15b3 (sysfs device/vendor)
// or IEEE OUI 0x02c9 (ibv_devinfo's vendor_id); without a vendor_id, driver
// mlx4 or mlx5, which bind nothing else. Their tools: mstflint, MFT.
bool IsMellanoxDevice(const DeviceInfo& dev);

// `view` cut down to one device: its device, the netdevs it binds (its
// parent and its GIDs' netdevs), its window events; the host as it is. What
// `capture -d DEV` and `report -d DEV` record, so a node's file names only
// the device the node is about. The view unchanged when it has no such
// device.
DeviceView OnlyDevice(const DeviceView& view, absl::string_view name);

// "rxe0: attr max_qp_wr" -> the SKIP text "fact missing: rxe0 attr max_qp_wr".
std::string MissingFact(absl::string_view subject, absl::string_view fact);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_DEVICE_VIEW_H_
