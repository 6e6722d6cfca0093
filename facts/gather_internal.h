// The pieces GatherLive (facts/gather.cc) puts together, one file each.
// Not part of the public surface: that is facts/gather.h.
#ifndef RDMACHECK_FACTS_GATHER_INTERNAL_H_
#define RDMACHECK_FACTS_GATHER_INTERNAL_H_

#include <infiniband/verbs.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

#include "facts/device_view.h"
#include "facts/gather.h"
#include "facts/sysfs.h"
#include "util/subprocess.h"

namespace rdmacheck::gather_internal {

// The roots of one gather, each a reader.
struct Roots {
  explicit Roots(const GatherOptions& o) : sys(o.sysfs_root), proc(o.proc_root), dev(o.dev_root), root(o.root) {}
  SysfsReader sys, proc, dev, root;
};

// ---- gather_device.cc: devices, ports, GIDs and counters from sysfs. ----

// uverbsN by the ib device it serves (class/infiniband_verbs/uverbsN/ibdev).
std::map<std::string, std::string> UverbsByIbdev(const SysfsReader& sys);
// class/infiniband/<name> with its ports; the netdev from rxe's "parent" or
// the first GID that names one.
// valid_gids: the GID indices in use per port (VerbsFacts); null: every
// index sysfs lists is read (rxe lists 1024 per port, nearly all empty).
DeviceInfo ReadDevice(const SysfsReader& sys, const std::string& name,
                      const std::map<std::string, std::string>& uverbs,
                      const std::map<int, std::vector<int>>* valid_gids = nullptr);

// ---- gather_verbs.cc: device and port limits from libibverbs. ----

// What libibverbs says of one device, asked once and before sysfs is read
// (the GID indices decide which sysfs files are read).
struct VerbsFacts {
  std::optional<ibv_device_attr_ex> attr;  // unset: not opened or not queried
  std::map<int, ibv_port_attr> ports;      // the ports that answered
  // Each port's valid GID indices from ibv_query_gid_table, so that sysfs is
  // read for those alone (their gid, type and netdev still come from sysfs,
  // as for a fixture tree). nullopt when a port or the table could not be
  // read: then every index is.
  std::optional<std::map<int, std::vector<int>>> valid_gids;
  std::vector<std::string> errors;         // provenance lines, in order
};

// Opens the device: ibv_query_device_ex, ibv_query_port, ibv_query_gid_table.
VerbsFacts QueryVerbs(const std::string& dev);
// Applies them over the sysfs facts (filling only what sysfs left empty,
// ApplyDeviceAttr / ApplyPortAttr); what failed goes to provenance.
void ApplyVerbs(const VerbsFacts& v, DeviceInfo* dev, std::vector<std::string>* provenance);

// ---- gather_netdev.cc: the netdevs the devices are bound to. ----

// class/net/<name>: mtu, operstate, ifindex, its kind (uevent DEVTYPE), the
// netdevs below it (lower_*), its master, and a bond's or bond slave's state.
NetdevInfo ReadNetdev(const SysfsReader& sys, const std::string& name);
// The netdevs right above `name` (sysfs upper_*): its VLANs, its bond.
std::vector<std::string> UpperNetdevs(const SysfsReader& sys, const std::string& name);
// A VLAN's id from procfs (net/vlan/<name>, root only); nullopt without it.
std::optional<int> ReadVlanId(const SysfsReader& proc, const std::string& name);
// Addresses of the running host's interfaces ("198.18.0.1/24"), by name
// (getifaddrs).
void ReadAddresses(std::vector<NetdevInfo>* netdevs);

// ---- gather_host.cc: host facts. ----

// Identity, rlimits, memory, rdma_rxe, container markers, provider
// libraries, and the rp_filter-family sysctls of all, default and each
// bound netdev.
HostInfo ReadHost(const Roots& r, const std::vector<std::string>& bound_netdevs);
// Whether this process can use the devices: /dev/infiniband/uverbsN and
// rdma_cm ("rw", "missing" or the open error) and CAP_IPC_LOCK.
void ReadDeviceAccess(const Roots& r, const std::vector<DeviceInfo>& devices, HostInfo* h);

// ---- gather_firewall.cc: what decides whether RoCE v2 (UDP 4791) gets in. ----

// Whether a legacy iptables listing can print anything: the kernel's
// /proc/net/ip_tables_names (ip6_tables_names) lists the legacy tables in
// use, one a line, and is absent while ip_tables is not loaded. With none,
// iptables-legacy-save prints nothing and exits 0 (iptables-save.c
// for_each_table), so the fork is skipped and the ruleset recorded empty.
bool LegacyTablesListed(const std::optional<std::string>& names_file);

// The families ("ip", "ip6") whose iptables-nft listing (iptables-nft-save,
// ip6tables-nft-save) can print anything, judged from what `nft -j list
// ruleset` (or the text listing) printed: those tools list only the xtables
// tables (filter, mangle, raw, security, nat) of their family that exist in
// nf_tables (iptables xtables-save.c: a table not found is skipped), and nft
// lists every table of every family. nullopt when the listing cannot tell
// (not read, or cut short): then both tools are run.
std::optional<std::set<std::string>> XtablesFamiliesListed(const std::string& nft_listing);

// nft and the four iptables-save variants, each through RunSubprocess in a
// thread of its own, started at construction: the tools run while the
// gather reads sysfs, and Finish (called once) waits for them and records
// what they printed. The two iptables-nft listings wait for nft's and run
// only when it lists a table of theirs (XtablesFamiliesListed). A tool that
// cannot be read is a provenance line. The destructor waits for any thread
// still running.
class RulesetReader {
 public:
  // proc_root: where ip_tables_names is looked up ("/proc").
  explicit RulesetReader(const std::string& proc_root = "/proc");
  ~RulesetReader();
  RulesetReader(const RulesetReader&) = delete;
  RulesetReader& operator=(const RulesetReader&) = delete;
  void Finish(HostInfo* h, std::vector<std::string>* provenance);

 private:
  void RunAfterNft();
  std::vector<std::optional<absl::StatusOr<SubprocessResult>>> results_;
  // Set for a listing known empty without running it: the provenance line.
  std::vector<std::string> empty_why_;
  std::vector<std::thread> threads_;
};
// `tc -j qdisc show`, started with the gather (a fork+exec that mostly
// waits) and read once the netdevs are known: Finish gives each of them its
// qdiscs, or says in the provenance why none were read.
class QdiscReader {
 public:
  QdiscReader();
  ~QdiscReader();
  QdiscReader(const QdiscReader&) = delete;
  QdiscReader& operator=(const QdiscReader&) = delete;
  void Finish(std::vector<NetdevInfo>* netdevs, std::vector<std::string>* provenance);

 private:
  std::optional<absl::StatusOr<SubprocessResult>> result_;
  std::thread thread_;
};

// A socket bound to local port 4791 in /proc/net/udp or udp6; nullopt when
// neither could be read.
std::optional<bool> Udp4791Socket(const SysfsReader& proc);

}  // namespace rdmacheck::gather_internal

#endif  // RDMACHECK_FACTS_GATHER_INTERNAL_H_
