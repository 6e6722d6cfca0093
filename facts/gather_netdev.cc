// The netdevs the RDMA devices are bound to: sysfs class/net, and the
// running host's addresses.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/gather_internal.h"
#include "facts/qdisc.h"
#include "facts/sysfs.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

int PrefixLen(const sockaddr* mask) {
  if (mask == nullptr) return -1;
  const unsigned char* b = nullptr;
  size_t len = 0;
  if (mask->sa_family == AF_INET) {
    b = reinterpret_cast<const unsigned char*>(
        &reinterpret_cast<const sockaddr_in*>(mask)->sin_addr);
    len = 4;
  } else if (mask->sa_family == AF_INET6) {
    b = reinterpret_cast<const unsigned char*>(
        &reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
    len = 16;
  } else {
    return -1;
  }
  int bits = 0;
  for (size_t i = 0; i < len; ++i) bits += __builtin_popcount(b[i]);
  return bits;
}

// The netdevs adjacent to `name` on one side, as sysfs links it:
// class/net/<name>/lower_<x> and upper_<x> (net/core/dev.c,
// netdev_adjacent_sysfs_add).
std::vector<std::string> AdjacentNetdevs(const SysfsReader& sys, const std::string& name,
                                         absl::string_view prefix) {
  std::vector<std::string> out;
  if (std::optional<std::vector<std::string>> entries = sys.ListDir(JoinPath("class/net", name))) {
    for (absl::string_view e : *entries)
      if (absl::ConsumePrefix(&e, prefix) && !e.empty()) out.emplace_back(e);
  }
  return out;
}

}  // namespace

namespace gather_internal {

NetdevInfo ReadNetdev(const SysfsReader& sys, const std::string& name) {
  const std::string d = JoinPath("class/net", name);
  NetdevInfo n;
  n.name = name;
  n.mtu = sys.ReadInt(JoinPath(d, "mtu"));
  n.operstate = sys.ReadValue(JoinPath(d, "operstate"));
  n.ifindex = sys.ReadInt(JoinPath(d, "ifindex"));
  // uevent: "DEVTYPE=vlan" (bond, bridge, ...); a plain NIC or veth has none.
  if (std::optional<std::string> ev = sys.ReadFile(JoinPath(d, "uevent"))) {
    for (absl::string_view line : absl::StrSplit(*ev, '\n')) {
      if (absl::ConsumePrefix(&line, "DEVTYPE=") && !line.empty()) n.kind = std::string(line);
    }
  }
  n.lower = AdjacentNetdevs(sys, name, "lower_");
  n.master = sys.LinkBasename(JoinPath(d, "master"));
  if (n.IsBond()) {
    n.bond_mode = sys.ReadValue(JoinPath(d, "bonding/mode"));
    // Empty in a mode without one (balance-rr), and then no fact.
    n.bond_active_slave = sys.ReadValue(JoinPath(d, "bonding/active_slave"));
    n.bond_mii_status = sys.ReadValue(JoinPath(d, "bonding/mii_status"));
  }
  if (sys.Exists(JoinPath(d, "bonding_slave"))) {
    n.slave_state = sys.ReadValue(JoinPath(d, "bonding_slave/state"));
    n.slave_mii_status = sys.ReadValue(JoinPath(d, "bonding_slave/mii_status"));
    n.link_failure_count = sys.ReadNumber(JoinPath(d, "bonding_slave/link_failure_count"));
  }
  return n;
}

std::vector<std::string> UpperNetdevs(const SysfsReader& sys, const std::string& name) {
  return AdjacentNetdevs(sys, name, "upper_");
}

std::optional<int> ReadVlanId(const SysfsReader& proc, const std::string& name) {
  // "va.100  VID: 100\t REORDER_HDR: 1 ..." (net/8021q/vlanproc.c); the file
  // is root's alone, so a non-root run has no VLAN id.
  std::optional<std::string> text = proc.ReadFile(JoinPath("net/vlan", name));
  if (!text) return std::nullopt;
  size_t at = text->find("VID:");
  if (at == std::string::npos) return std::nullopt;
  std::vector<absl::string_view> words =
      absl::StrSplit(absl::string_view(*text).substr(at + 4), absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
  std::optional<uint64_t> id = words.empty() ? std::nullopt : ParseUnsigned(words.front());
  if (!id || *id > 4095) return std::nullopt;
  return static_cast<int>(*id);
}

void ReadAddresses(std::vector<NetdevInfo>* netdevs) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return;
  for (NetdevInfo& n : *netdevs) n.addrs_known = true;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_name == nullptr) continue;
    int fam = a->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    char text[INET6_ADDRSTRLEN] = {0};
    const void* src = fam == AF_INET
                          ? static_cast<const void*>(
                                &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr)
                          : static_cast<const void*>(
                                &reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr);
    if (::inet_ntop(fam, src, text, sizeof(text)) == nullptr) continue;
    std::string addr = text;
    int plen = PrefixLen(a->ifa_netmask);
    if (plen >= 0) addr = absl::StrCat(addr, "/", plen);
    for (NetdevInfo& n : *netdevs) {
      if (n.name == a->ifa_name) n.addrs.push_back(addr);
    }
  }
  ::freeifaddrs(list);
}

// tc reads the qdiscs over netlink: no root needed, and it prints every
// netdev's in one run.
QdiscReader::QdiscReader() {
  thread_ = std::thread([this] { result_ = RunSubprocess({"tc", "-j", "qdisc", "show"}, 3.0); });
}

QdiscReader::~QdiscReader() {
  if (thread_.joinable()) thread_.join();
}

void QdiscReader::Finish(std::vector<NetdevInfo>* netdevs, std::vector<std::string>* provenance) {
  if (thread_.joinable()) thread_.join();
  if (!result_) return;
  absl::StatusOr<SubprocessResult>& r = *result_;
  std::string why;
  if (!r.ok()) {
    why = std::string(r.status().message());
  } else if (!r->Succeeded()) {
    why = absl::StrCat("'", r->command, "' ", r->HowItEnded());
  } else {
    absl::StatusOr<QdiscsByNetdev> q = ParseTcQdiscJson(r->out, r->command);
    if (q.ok()) {
      for (NetdevInfo& n : *netdevs) {
        auto it = q->find(n.name);
        if (it != q->end()) n.qdiscs = it->second;
        n.qdiscs_known = true;
      }
      return;
    }
    why = std::string(q.status().message());
  }
  provenance->push_back(absl::StrCat("gather: qdiscs not read: ", why));
}

}  // namespace gather_internal
}  // namespace rdmacheck
