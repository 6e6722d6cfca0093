// Host facts: identity, rlimits, memory, modules, container markers,
// provider libraries, sysctls, and whether this process can use the devices.
#include <fcntl.h>
#include <glob.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/container.h"
#include "facts/gather_internal.h"
#include "facts/sysfs.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

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

}  // namespace

namespace gather_internal {

HostInfo ReadHost(const Roots& r, const std::vector<std::string>& bound_netdevs) {
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
  // "12345.67 2345.12": seconds up, then idle.
  if (auto up = r.proc.ReadValue("uptime")) {
    absl::string_view secs = absl::string_view(*up).substr(0, up->find_first_of(". "));
    if (std::optional<uint64_t> v = ParseUnsigned(secs)) h.uptime_s = *v;
  }
  h.rxe_loaded = r.sys.Exists("module/rdma_rxe");
  // ib_core's netns_mode (drivers/infiniband/core/device.c): Y shared, N
  // exclusive (measured: `rdma system set netns exclusive` turns it to N).
  if (std::optional<std::string> m = r.sys.ReadValue("module/ib_core/parameters/netns_mode")) {
    if (*m == "Y" || *m == "1") h.rdma_netns_mode = "shared";
    if (*m == "N" || *m == "0") h.rdma_netns_mode = "exclusive";
  }
  {
    std::optional<std::string> self = r.proc.LinkBasename("self/ns/net");
    std::optional<std::string> init = r.proc.LinkBasename("1/ns/net");
    if (self && init) h.own_netns = *self != *init;
  }
  h.is_root = ::geteuid() == 0;
  {
    // Markers and their order: facts/container.h. "false" means "no marker
    // found", which is the best sysfs/procfs can say.
    ContainerFacts c = ClassifyContainer(
        ReadContainerSigns(r.root.root(), r.proc.root(), r.sys.root(), r.dev.root()));
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
  // Whether this host forwards, and whether br_netfilter hands bridged IP to
  // the ip hooks (these two exist only while br_netfilter is loaded).
  for (const char* key : {"net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding",
                          "net.bridge.bridge-nf-call-iptables", "net.bridge.bridge-nf-call-ip6tables"}) {
    std::string path = absl::StrCat("sys/", absl::StrReplaceAll(key, {{".", "/"}}));
    if (auto v = r.proc.ReadValue(path)) h.sysctls[key] = *v;
  }
  return h;
}

void ReadDeviceAccess(const Roots& r, const std::vector<DeviceInfo>& devices, HostInfo* h) {
  std::vector<std::string> nodes;
  for (const DeviceInfo& d : devices)
    if (d.uverbs) nodes.push_back(*d.uverbs);
  if (!nodes.empty() || r.dev.Exists("infiniband")) nodes.push_back("rdma_cm");
  for (const std::string& n : nodes) {
    const std::string rel = JoinPath("infiniband", n);
    if (!r.dev.Exists(rel)) {
      h->dev_nodes[n] = "missing";
      continue;
    }
    // Opening a uverbs node allocates nothing until a command is written:
    // it tells whether this process could use the device, and changes nothing.
    int fd = ::open(r.dev.Path(rel).c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      ::close(fd);
      h->dev_nodes[n] = "rw";
    } else {
      h->dev_nodes[n] = strerror(errno);
    }
  }
  if (std::optional<std::string> st = r.proc.ReadFile("self/status")) {
    for (absl::string_view line : absl::StrSplit(*st, '\n')) {
      if (!absl::ConsumePrefix(&line, "CapEff:")) continue;
      uint64_t caps = 0;
      if (absl::SimpleHexAtoi(absl::StripAsciiWhitespace(line), &caps))
        h->cap_ipc_lock = (caps >> 14) & 1;  // CAP_IPC_LOCK = 14
    }
  }
}

}  // namespace gather_internal
}  // namespace rdmacheck
