#include "facts/container.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/sysfs.h"

namespace rdmacheck {
namespace {

// uverbsN entries of a directory, sorted.
std::vector<std::string> UverbsIn(const SysfsReader& fs, absl::string_view dir) {
  std::vector<std::string> out;
  for (std::string& n : fs.ListDir(dir).value_or(std::vector<std::string>{}))
    if (absl::StartsWith(n, "uverbs")) out.push_back(std::move(n));
  return out;
}

// "container=podman" in PID 1's environment -> "podman".
std::optional<std::string> ContainerEnv(const std::string& environ) {
  for (absl::string_view kv : absl::StrSplit(environ, '\0')) {
    if (absl::ConsumePrefix(&kv, "container=") && !kv.empty()) return std::string(kv);
  }
  return std::nullopt;
}

std::optional<std::string> CgroupV1Engine(const std::string& cgroup) {
  struct Word {
    const char* word;
    const char* runtime;
  };
  static const Word kWords[] = {
      {"kubepods", kRuntimeKubernetes}, {"docker", kRuntimeDocker}, {"libpod", kRuntimePodman},
      {"containerd", kRuntimeGeneric},  {"crio", kRuntimeGeneric},  {"lxc", kRuntimeGeneric},
  };
  for (const Word& w : kWords)
    if (absl::StrContains(cgroup, w.word)) return std::string(w.runtime);
  return std::nullopt;
}

// The mountinfo line of the mount at "/" (the last one wins: later mounts
// stack on earlier ones): "overlay" or "bind of <root>" when the root
// filesystem looks like a container's, nullopt otherwise.
std::optional<std::string> RootMountSign(const std::string& mountinfo) {
  std::optional<std::string> sign;
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n')) {
    // id parent major:minor root mountpoint options ... - fstype source super
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() < 7 || f[4] != "/") continue;
    auto dash = std::find(f.begin(), f.end(), "-");
    if (dash == f.end() || dash + 1 == f.end()) continue;
    absl::string_view fstype = *(dash + 1);
    sign.reset();
    if (fstype == "overlay") {
      sign = "root filesystem is overlayfs (/proc/self/mountinfo)";
    } else if (f[3] != "/" && fstype != "btrfs") {
      // btrfs hosts mount a subvolume (/@, /root) as /: not a container.
      sign = absl::StrCat("root filesystem is a bind mount of ", f[3], " (/proc/self/mountinfo)");
    }
  }
  return sign;
}

}  // namespace

ContainerFacts ClassifyContainer(const ContainerSigns& s) {
  ContainerFacts f;
  auto found = [&f](const char* runtime, std::string marker) {
    f.in_container = true;
    f.runtime = runtime;
    f.marker = std::move(marker);
    return f;
  };
  if (s.dockerenv) return found(kRuntimeDocker, "/.dockerenv");
  if (s.containerenv) {
    // podman writes engine="podman-4.3.1"; buildah and others their own name.
    const char* rt = absl::StrContains(*s.containerenv, "podman") || s.containerenv->empty()
                         ? kRuntimePodman
                         : kRuntimeGeneric;
    return found(rt, "/run/.containerenv");
  }
  if (s.k8s_env) return found(kRuntimeKubernetes, "KUBERNETES_SERVICE_HOST in the environment");
  if (s.k8s_serviceaccount)
    return found(kRuntimeKubernetes, "/var/run/secrets/kubernetes.io/serviceaccount");
  if (s.pid1_environ) {
    if (std::optional<std::string> c = ContainerEnv(*s.pid1_environ)) {
      const char* rt = *c == "podman" ? kRuntimePodman : (*c == "docker" ? kRuntimeDocker : kRuntimeGeneric);
      return found(rt, absl::StrCat("container=", *c, " in PID 1's environment"));
    }
  }
  if (s.pid1_cgroup) {
    if (std::optional<std::string> rt = CgroupV1Engine(*s.pid1_cgroup)) {
      f.in_container = true;
      f.runtime = *rt;
      f.marker = "cgroup path of PID 1 (/proc/1/cgroup)";
      return f;
    }
  }
  if (s.self_mountinfo) {
    if (std::optional<std::string> m = RootMountSign(*s.self_mountinfo)) return found(kRuntimeGeneric, *m);
  }
  if (!s.sysfs_uverbs.empty() && s.dev_uverbs.empty()) {
    return found(kRuntimeGeneric,
                 absl::StrCat("/sys/class/infiniband_verbs lists ", absl::StrJoin(s.sysfs_uverbs, " "),
                              " but /dev/infiniband has none of them"));
  }
  if (s.proc_readable || s.pid1_cgroup) f.in_container = false;
  return f;
}

ContainerSigns ReadContainerSigns(absl::string_view root, absl::string_view proc_root,
                                  absl::string_view sysfs_root, absl::string_view dev_root) {
  const SysfsReader fs(root), proc(proc_root), sys(sysfs_root), dev(dev_root);
  ContainerSigns s;
  s.dockerenv = fs.Exists(".dockerenv");
  if (fs.Exists("run/.containerenv")) s.containerenv = fs.ReadFile("run/.containerenv").value_or("");
  const char* k8s = std::getenv("KUBERNETES_SERVICE_HOST");
  s.k8s_env = k8s != nullptr && *k8s != '\0';
  s.k8s_serviceaccount = fs.Exists("var/run/secrets/kubernetes.io/serviceaccount");
  s.pid1_environ = proc.ReadFile("1/environ");  // root only; absent otherwise
  s.pid1_cgroup = proc.ReadFile("1/cgroup");
  s.self_mountinfo = proc.ReadFile("self/mountinfo");
  s.proc_readable = s.self_mountinfo.has_value();
  s.sysfs_uverbs = UverbsIn(sys, "class/infiniband_verbs");
  s.dev_uverbs = UverbsIn(dev, "infiniband");
  return s;
}

std::vector<std::string> ContainerRunFlags(const std::vector<std::string>& uverbs) {
  std::vector<std::string> flags;
  for (const std::string& u : uverbs.empty() ? std::vector<std::string>{"uverbs0"} : uverbs)
    flags.push_back(absl::StrCat("--device=/dev/infiniband/", u));
  flags.push_back("--device=/dev/infiniband/rdma_cm");
  flags.push_back("--cap-add=IPC_LOCK");
  flags.push_back("--ulimit memlock=-1");
  flags.push_back("--network host");
  return flags;
}

std::vector<std::string> ContainerRemedies(const HostInfo& host, unsigned needs,
                                           const std::vector<std::string>& uverbs) {
  std::vector<std::string> out;
  if (needs == 0) return out;
  const std::string rt = host.container_runtime.value_or(kRuntimeGeneric);

  std::vector<std::string> missing;
  std::vector<std::string> flags = ContainerRunFlags(uverbs);
  for (const std::string& fl : flags) {
    bool need = (absl::StartsWith(fl, "--device") && (needs & kNeedDevices)) ||
                (fl == "--cap-add=IPC_LOCK" && (needs & kNeedIpcLock)) ||
                (fl == "--ulimit memlock=-1" && (needs & kNeedMemlock)) ||
                (fl == "--network host" && (needs & kNeedHostNetwork));
    if (need) missing.push_back(fl);
  }

  if (rt != kRuntimeKubernetes) {
    std::string engine = rt == kRuntimePodman ? "podman" : "docker";
    out.push_back(absl::StrCat(engine, " run ", absl::StrJoin(flags, " "), " IMAGE rdmacheck   # missing here: ",
                               absl::StrJoin(missing, " "),
                               rt == kRuntimeGeneric ? " (podman run takes the same flags)" : ""));
  }
  if (rt == kRuntimeKubernetes) {
    if (needs & kNeedDevices)
      out.push_back("Kubernetes: resources.limits: {rdma/hca_shared_devices_a: 1}   # an RDMA device plugin "
                    "(k8s-rdma-shared-dev-plugin) puts /dev/infiniband/* into the pod");
    if (needs & (kNeedIpcLock | kNeedMemlock))
      out.push_back("Kubernetes: securityContext.capabilities.add: [\"IPC_LOCK\"]   # a pod cannot set "
                    "ulimits: IPC_LOCK lets it pin past RLIMIT_MEMLOCK");
    if (needs & kNeedHostNetwork)
      out.push_back("Kubernetes: hostNetwork: true   # the pod sees the host's netdevs, addresses and RoCE GIDs");
  } else if (rt == kRuntimeGeneric) {
    out.push_back("Kubernetes: securityContext.capabilities.add: [\"IPC_LOCK\"], "
                  "resources.limits: {rdma/hca_shared_devices_a: 1}, hostNetwork: true");
  }
  return out;
}

bool NetdevOutsideNamespace(const DeviceView& view, absl::string_view netdev) {
  if (view.netdevs.empty()) return false;
  const NetdevInfo* n = view.Netdev(netdev);
  return n == nullptr || (!n->ifindex && !n->operstate && !n->mtu);
}

std::string DescribeContainer(const HostInfo& host) {
  if (!host.in_container) return "unknown";
  if (!*host.in_container) return "no container markers";
  std::string s = absl::StrCat("container (", host.container_runtime.value_or(kRuntimeGeneric));
  if (host.container_marker) absl::StrAppend(&s, ": ", *host.container_marker);
  return absl::StrCat(s, ")");
}

}  // namespace rdmacheck
