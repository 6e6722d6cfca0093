#include "facts/gather.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <glob.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/container.h"
#include "facts/gid_table.h"
#include "facts/hw_counters.h"
#include "facts/rdma_types.h"
#include "facts/sysfs.h"
#include "verbs/context.h"
#include "util/numbers.h"
#include "util/subprocess.h"

namespace rdmacheck {
namespace {

// The roots of one gather, each a reader (facts/sysfs.h).
struct Roots {
  explicit Roots(const GatherOptions& o) : sys(o.sysfs_root), proc(o.proc_root), dev(o.dev_root), root(o.root) {}
  SysfsReader sys, proc, dev, root;
};

std::optional<std::string> TransportOf(const std::string& node_type) {
  if (node_type == "CA" || node_type == "switch" || node_type == "router") return "InfiniBand";
  if (node_type == "RNIC") return "iWARP";
  if (absl::StartsWith(node_type, "usNIC")) return node_type;
  return std::nullopt;
}

// ---- Ports, devices, netdevs, host. ----

PortInfo ReadPort(const SysfsReader& sys, const std::string& pdir, int num) {
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
  if (sys.ListDir(gids).has_value()) {
    p.gids_known = true;
    for (int i : sys.ListNumbered(gids)) {
      if (std::optional<GidEntry> g = ReadPortGid(sys, pdir, i, ib_link)) p.gids.push_back(*std::move(g));
    }
  }
  p.hw_counters = ReadCounterDir(sys, JoinPath(pdir, "hw_counters")).value_or(Counters{});
  p.counters = ReadCounterDir(sys, JoinPath(pdir, "counters")).value_or(Counters{});
  return p;
}

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
                      const std::map<std::string, std::string>& uverbs) {
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
    dev.ports.push_back(ReadPort(sys, JoinPath(d, "ports/" + std::to_string(num)), num));
  }
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

void QueryVerbs(DeviceInfo* dev, DeviceView* view) {
  absl::StatusOr<verbs::Context> ctx = verbs::Context::Open(dev->name);
  if (!ctx.ok()) {
    view->provenance.push_back(
        absl::StrCat("gather: ", dev->name, ": verbs not read: ", ctx.status().message()));
    return;
  }
  absl::StatusOr<ibv_device_attr_ex> attr = ctx->QueryDeviceEx();
  if (!attr.ok()) {
    view->provenance.push_back(absl::StrCat("gather: ", dev->name, ": ", attr.status().message()));
    return;
  }
  ApplyDeviceAttr(*attr, dev);
  for (int num = 1; num <= attr->orig_attr.phys_port_cnt; ++num) {
    absl::StatusOr<ibv_port_attr> pa = ctx->QueryPort(static_cast<uint8_t>(num));
    if (!pa.ok()) {
      view->provenance.push_back(absl::StrCat("gather: ", dev->name, ": ", pa.status().message()));
      continue;
    }
    PortInfo* port = nullptr;
    for (PortInfo& p : dev->ports)
      if (p.port_num == num) port = &p;
    if (port == nullptr) {
      dev->ports.emplace_back();
      port = &dev->ports.back();
      port->port_num = num;
    }
    ApplyPortAttr(*pa, port);
  }
}

NetdevInfo ReadNetdev(const SysfsReader& sys, const std::string& name) {
  const std::string d = JoinPath("class/net", name);
  NetdevInfo n;
  n.name = name;
  n.mtu = sys.ReadInt(JoinPath(d, "mtu"));
  n.operstate = sys.ReadValue(JoinPath(d, "operstate"));
  n.ifindex = sys.ReadInt(JoinPath(d, "ifindex"));
  return n;
}

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

// Addresses of the live host's interfaces ("198.18.0.1/24"), by name.
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

std::vector<std::string> ProviderLibraries(const SysfsReader& root, bool* known) {
  std::set<std::string> names;
  *known = true;
  for (const char* pattern :
       {"usr/lib/*/libibverbs/lib*-rdmav*.so", "usr/lib64/libibverbs/lib*-rdmav*.so",
        "usr/lib/libibverbs/lib*-rdmav*.so"}) {
    glob_t g;
    std::memset(&g, 0, sizeof(g));
    const std::string full = root.Path(pattern);
    int rc = ::glob(full.c_str(), 0, nullptr, &g);
    if (rc == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        absl::string_view base = g.gl_pathv[i];
        size_t slash = base.rfind('/');
        if (slash != absl::string_view::npos) base.remove_prefix(slash + 1);
        absl::ConsumePrefix(&base, "lib");
        size_t dash = base.rfind("-rdmav");
        if (dash != absl::string_view::npos && dash > 0) names.insert(std::string(base.substr(0, dash)));
      }
    } else if (rc != GLOB_NOMATCH) {
      *known = false;
    }
    ::globfree(&g);
  }
  return std::vector<std::string>(names.begin(), names.end());
}

HostInfo ReadHost(const GatherOptions& opts, const Roots& r, const std::vector<std::string>& bound_netdevs) {
  HostInfo h;
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0') h.hostname = host;
  struct utsname u;
  if (::uname(&u) == 0) h.kernel = u.release;
  struct rlimit rl;
  if (::getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
    h.memlock_soft = rl.rlim_cur == RLIM_INFINITY ? HostInfo::kUnlimited
                                                  : static_cast<uint64_t>(rl.rlim_cur);
    h.memlock_hard = rl.rlim_max == RLIM_INFINITY ? HostInfo::kUnlimited
                                                  : static_cast<uint64_t>(rl.rlim_max);
  }
  if (auto mi = r.proc.ReadFile("meminfo")) {
    for (absl::string_view line : absl::StrSplit(*mi, '\n')) {
      if (!absl::ConsumePrefix(&line, "MemTotal:")) continue;
      line = absl::StripAsciiWhitespace(line);
      bool kb = absl::ConsumeSuffix(&line, "kB");
      if (std::optional<uint64_t> v = ParseUnsigned(absl::StripAsciiWhitespace(line)))
        h.mem_total = kb ? *v * 1024 : *v;
      break;
    }
  }
  h.rxe_loaded = r.sys.Exists("module/rdma_rxe");
  h.is_root = ::geteuid() == 0;
  {
    // Markers and their order: facts/container.h. "false" means "no marker
    // found", which is the best sysfs/procfs can say.
    ContainerFacts c = ClassifyContainer(
        ReadContainerSigns(opts.root, opts.proc_root, opts.sysfs_root, opts.dev_root));
    h.in_container = c.in_container;
    h.container_runtime = c.runtime;
    h.container_marker = c.marker;
  }
  h.sysfs_infiniband = r.sys.Exists("class/infiniband");
  h.dev_infiniband = r.dev.Exists("infiniband");
  h.providers = ProviderLibraries(r.root, &h.providers_known);

  std::vector<std::string> scopes = {"all", "default"};
  scopes.insert(scopes.end(), bound_netdevs.begin(), bound_netdevs.end());
  for (const std::string& scope : scopes) {
    for (const char* key : {"accept_local", "rp_filter", "arp_ignore", "arp_announce"}) {
      const std::string path = absl::StrCat("sys/net/ipv4/conf/", scope, "/", key);
      if (auto v = r.proc.ReadValue(path)) h.sysctls[absl::StrCat("net.ipv4.conf.", scope, ".", key)] = *v;
    }
  }
  return h;
}

// ---- Firewall and device-node facts (issue 5). ----

// A socket bound to local port 4791 (0x12B7) in /proc/net/udp or udp6.
std::optional<bool> Udp4791Socket(const SysfsReader& proc) {
  bool read_any = false;
  for (const char* f : {"net/udp", "net/udp6"}) {
    std::optional<std::string> text = proc.ReadFile(f);
    if (!text) continue;
    read_any = true;
    for (absl::string_view line : absl::StrSplit(*text, '\n')) {
      std::vector<absl::string_view> cols = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (cols.size() < 2) continue;
      absl::string_view local = cols[1];
      size_t colon = local.rfind(':');
      if (colon != absl::string_view::npos && absl::EqualsIgnoreCase(local.substr(colon + 1), "12B7"))
        return true;
    }
  }
  if (!read_any) return std::nullopt;
  return false;
}

void ReadFirewallAndNodes(const GatherOptions& opts, const Roots& r, DeviceView* view) {
  HostInfo& h = view->host;
  // The tools see the running host, not a fixture tree.
  if (opts.live_host && opts.read_rulesets) {
    const std::pair<const char*, std::vector<std::string>> kTools[] = {
        {"nft", {"nft", "list", "ruleset"}},
        {"iptables-nft", {"iptables-nft-save"}},
        {"iptables-legacy", {"iptables-legacy-save"}},
        {"ip6tables-nft", {"ip6tables-nft-save"}},
        {"ip6tables-legacy", {"ip6tables-legacy-save"}},
    };
    for (const auto& [source, argv] : kTools) {
      absl::StatusOr<SubprocessResult> r = RunSubprocess(argv, 3.0);
      std::string why;
      if (!r.ok()) {
        why = std::string(r.status().message());
      } else if (!r->Succeeded()) {
        // Without root, nft and iptables-save fail on the netlink socket.
        why = absl::StrCat("'", r->command, "' ", r->HowItEnded(), r->signal == 0 ? " (needs root?)" : "");
      } else {
        h.rulesets[source] = std::move(r->out);
        continue;
      }
      view->provenance.push_back(absl::StrCat("gather: ruleset ", source, " not read: ", why));
    }
  }
  h.udp4791_socket = Udp4791Socket(r.proc);
  std::vector<std::string> nodes;
  for (const DeviceInfo& d : view->devices)
    if (d.uverbs) nodes.push_back(*d.uverbs);
  if (!nodes.empty() || r.dev.Exists("infiniband")) nodes.push_back("rdma_cm");
  for (const std::string& n : nodes) {
    const std::string rel = JoinPath("infiniband", n);
    if (!r.dev.Exists(rel)) {
      h.dev_nodes[n] = "missing";
      continue;
    }
    // Opening a uverbs node allocates nothing until a command is written:
    // it tells whether this process could use the device, and changes nothing.
    int fd = ::open(r.dev.Path(rel).c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      ::close(fd);
      h.dev_nodes[n] = "rw";
    } else {
      h.dev_nodes[n] = strerror(errno);
    }
  }
  if (std::optional<std::string> st = r.proc.ReadFile("self/status")) {
    for (absl::string_view line : absl::StrSplit(*st, '\n')) {
      if (!absl::ConsumePrefix(&line, "CapEff:")) continue;
      uint64_t caps = 0;
      if (absl::SimpleHexAtoi(absl::StripAsciiWhitespace(line), &caps))
        h.cap_ipc_lock = (caps >> 14) & 1;  // CAP_IPC_LOCK = 14
    }
  }
}

std::optional<std::string> PortStateName(int state) {
  switch (state) {
    case IBV_PORT_NOP: return "NOP";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
    default: return std::nullopt;
  }
}

}  // namespace

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
  // max_msg_sz is a uint32; 2^31 and above does not fit the view's int and
  // stays absent rather than wrap.
  if (a.max_msg_sz <= static_cast<uint32_t>(INT_MAX)) p->max_msg_sz = static_cast<int>(a.max_msg_sz);
  p->pkey_tbl_len = a.pkey_tbl_len;
  if (!p->state) p->state = PortStateName(a.state);
  if (!p->lid) p->lid = a.lid;
  if (!p->sm_lid) p->sm_lid = a.sm_lid;
  if (!p->link_layer) {
    if (a.link_layer == IBV_LINK_LAYER_ETHERNET) p->link_layer = "Ethernet";
    if (a.link_layer == IBV_LINK_LAYER_INFINIBAND) p->link_layer = "InfiniBand";
  }
}

absl::StatusOr<DeviceView> GatherLive(const GatherOptions& opts) {
  DeviceView view;
  view.source = "live";
  const Roots roots(opts);

  std::vector<std::string> names = roots.sys.ListDir("class/infiniband").value_or(std::vector<std::string>{});
  if (opts.only_device) {
    if (std::find(names.begin(), names.end(), *opts.only_device) == names.end()) {
      return absl::NotFoundError(verbs::NoSuchDeviceMessage(*opts.only_device, names));
    }
    names = {*opts.only_device};
  }
  std::map<std::string, std::string> uverbs = UverbsByIbdev(roots.sys);
  for (const std::string& name : names) {
    DeviceInfo dev = ReadDevice(roots.sys, name, uverbs);
    if (opts.use_verbs) QueryVerbs(&dev, &view);
    view.devices.push_back(std::move(dev));
  }

  // Netdevs the devices are bound to, and those their GIDs name.
  std::set<std::string> bound;
  for (const DeviceInfo& d : view.devices) {
    if (d.netdev) bound.insert(*d.netdev);
    for (const PortInfo& p : d.ports)
      for (const GidEntry& g : p.gids)
        if (!g.netdev.empty()) bound.insert(g.netdev);
  }
  for (const std::string& n : bound) view.netdevs.push_back(ReadNetdev(roots.sys, n));
  // getifaddrs sees the running host, so only when the tree is its own.
  if (opts.live_host) ReadAddresses(&view.netdevs);

  view.host = ReadHost(opts, roots, std::vector<std::string>(bound.begin(), bound.end()));
  ReadFirewallAndNodes(opts, roots, &view);
  return view;
}

}  // namespace rdmacheck
