// Container detection and the remediation that fits the container's runtime.
//
// Detection reads a few markers once (ReadContainerSigns, used by the live
// gather) and classifies them (ClassifyContainer, a pure function the tests
// drive with made-up signs). ContainerRemedies() is the ONE place that spells
// the docker/podman flags and the Kubernetes fields: device-present,
// rxe-setup, memlock and gid-table call it, and ci/container/'s examples are
// tested against its output (ci/container/flags_agree_test.sh).
//
//   ContainerSigns s = ReadContainerSigns("/", "/proc", "/sys", "/dev");
//   ContainerFacts f = ClassifyContainer(s);      // f.runtime == "docker", ...
//   for (const std::string& line :
//        ContainerRemedies(view.host, ContainerNeed::kMemlock, {"uverbs0"}))
//     r.Remedy(line);
#ifndef RDMACHECK_FACTS_CONTAINER_H_
#define RDMACHECK_FACTS_CONTAINER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "facts/device_view.h"

namespace rdmacheck {

// Runtime names as HostInfo::container_runtime and profiles spell them.
inline constexpr char kRuntimeDocker[] = "docker";
inline constexpr char kRuntimePodman[] = "podman";
inline constexpr char kRuntimeKubernetes[] = "kubernetes";
// A container whose engine no marker names (runc/crun/containerd/LXC...).
inline constexpr char kRuntimeGeneric[] = "generic";

// What the markers are, as read; every field optional so a test can state
// only the ones it cares about.
struct ContainerSigns {
  bool dockerenv = false;                       // /.dockerenv exists
  std::optional<std::string> containerenv;      // /run/.containerenv text (podman, buildah)
  bool k8s_env = false;                         // KUBERNETES_SERVICE_HOST set
  bool k8s_serviceaccount = false;              // /var/run/secrets/kubernetes.io/serviceaccount
  std::optional<std::string> pid1_environ;      // /proc/1/environ, NUL-separated
  std::optional<std::string> pid1_cgroup;       // /proc/1/cgroup
  std::optional<std::string> self_mountinfo;    // /proc/self/mountinfo
  // uverbs character devices the kernel has (/sys/class/infiniband_verbs/
  // uverbsN) and the ones present under /dev/infiniband.
  std::vector<std::string> sysfs_uverbs;
  std::vector<std::string> dev_uverbs;
  bool proc_readable = false;                   // /proc/self/mountinfo could be read
};

struct ContainerFacts {
  std::optional<bool> in_container;             // nullopt: nothing could be read
  std::optional<std::string> runtime;           // kRuntime*; set when in_container
  std::optional<std::string> marker;            // the sign that decided, for evidence
};

// The markers, strongest first:
//   /.dockerenv -> docker; /run/.containerenv -> podman (its engine= line
//   names it); KUBERNETES_SERVICE_HOST or the serviceaccount directory ->
//   kubernetes; `container=` in PID 1's environment (podman, systemd-nspawn,
//   LXC set it); a cgroup v1 path of PID 1 naming docker, kubepods, libpod,
//   containerd, crio or lxc; the root mount being overlayfs or a bind mount
//   of a subdirectory (mountinfo field 4 not "/"; btrfs subvolumes excepted);
//   uverbs devices in sysfs with none of their /dev/infiniband nodes.
// Not used: cgroup v2's "0::/" (the same on a host's PID 1 and in a
// container with its own cgroup namespace) and /proc/1/sched (namespaced
// PIDs since Linux 4.x print the container's own numbers).
ContainerFacts ClassifyContainer(const ContainerSigns& s);

// Reads the signs under the given roots (tests point them at a fixture).
ContainerSigns ReadContainerSigns(absl::string_view root, absl::string_view proc_root,
                                  absl::string_view sysfs_root, absl::string_view dev_root);

// What a container lacks; a bit set.
enum ContainerNeed : unsigned {
  kNeedDevices = 1u << 0,      // /dev/infiniband/uverbsN and rdma_cm
  kNeedIpcLock = 1u << 1,      // CAP_IPC_LOCK
  kNeedMemlock = 1u << 2,      // RLIMIT_MEMLOCK unlimited
  kNeedHostNetwork = 1u << 3,  // the host's network namespace (RoCE GIDs, rdma_cm)
};

// The flags a `docker run` / `podman run` for RDMA needs, in the order
// printed; uverbs names the device nodes ("uverbs0"), empty -> uverbs0.
std::vector<std::string> ContainerRunFlags(const std::vector<std::string>& uverbs);

// Remediation lines for a container lacking `needs`, tailored to
// host.container_runtime: docker/podman -> one `<engine> run` line with the
// full flag set ("# missing here: ..." names the needed ones); kubernetes ->
// the pod spec fields for each need; generic or unknown -> the docker/podman
// line and a one-line Kubernetes summary. Empty when needs == 0. The caller
// adds its own verification command after these.
std::vector<std::string> ContainerRemedies(const HostInfo& host, unsigned needs,
                                           const std::vector<std::string>& uverbs = {});

// True when `netdev` is not in this process's network namespace as the view
// shows it: the view lists netdevs, and this one is absent or has none of the
// facts /sys/class/net gives (ifindex, operstate, mtu); rxe's GIDs still name
// it, the kernel sharing RDMA devices between namespaces.
bool NetdevOutsideNamespace(const DeviceView& view, absl::string_view netdev);

// "container (docker, /.dockerenv)" for evidence; "no container markers" or
// "unknown" otherwise.
std::string DescribeContainer(const HostInfo& host);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_CONTAINER_H_
