#include "facts/container.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Optional;

// Mountinfo lines as the kernel prints them (proc(5)): a host's ext4 root, a
// docker overlay root, a crun bundle whose rootfs is a directory on tmpfs (what
// ci/guest/scenarios/container-lib.bash builds) and a btrfs host's subvolume.
constexpr char kHostRoot[] =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "23 22 0:5 / /proc rw,nosuid - proc proc rw\n";
constexpr char kOverlayRoot[] =
    "612 540 0:53 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X\n";
constexpr char kBindRoot[] =
    "120 90 0:25 /ctr/rootfs / ro,relatime - tmpfs tmpfs rw\n"
    "121 120 0:60 / /proc rw - proc proc rw\n";
constexpr char kBtrfsHost[] = "30 1 0:28 /@ / rw,relatime shared:1 - btrfs /dev/nvme0n1p2 rw,subvol=/@\n";

struct Case {
  const char* name;
  ContainerSigns signs;
  std::optional<bool> in_container;
  const char* runtime;  // nullptr: none
  const char* marker;   // substring
};

ContainerSigns Signs() {
  ContainerSigns s;
  s.proc_readable = true;
  s.self_mountinfo = kHostRoot;
  s.pid1_cgroup = "0::/init.scope\n";
  return s;
}

TEST(ClassifyContainerTest, Markers) {
  std::vector<Case> cases;
  cases.push_back({"host", Signs(), false, nullptr, ""});
  {
    Case c{"dockerenv", Signs(), true, kRuntimeDocker, "/.dockerenv"};
    c.signs.dockerenv = true;
    c.signs.self_mountinfo = kOverlayRoot;
    cases.push_back(c);
  }
  {
    Case c{"podman", Signs(), true, kRuntimePodman, "/run/.containerenv"};
    c.signs.containerenv = "engine=\"podman-4.3.1\"\nname=\"x\"\n";
    cases.push_back(c);
  }
  {
    Case c{"containerenv other engine", Signs(), true, kRuntimeGeneric, "/run/.containerenv"};
    c.signs.containerenv = "engine=\"buildah-1.28\"\n";
    cases.push_back(c);
  }
  {
    Case c{"k8s env", Signs(), true, kRuntimeKubernetes, "KUBERNETES_SERVICE_HOST"};
    c.signs.k8s_env = true;
    c.signs.self_mountinfo = kOverlayRoot;
    cases.push_back(c);
  }
  {
    Case c{"k8s serviceaccount", Signs(), true, kRuntimeKubernetes, "serviceaccount"};
    c.signs.k8s_serviceaccount = true;
    cases.push_back(c);
  }
  {
    Case c{"container= env", Signs(), true, kRuntimeGeneric, "container=lxc"};
    c.signs.pid1_environ = std::string("PATH=/bin\0container=lxc\0", 24);
    cases.push_back(c);
  }
  {
    Case c{"cgroup v1 docker", Signs(), true, kRuntimeDocker, "/proc/1/cgroup"};
    c.signs.pid1_cgroup = "12:memory:/docker/3f1c2a\n";
    cases.push_back(c);
  }
  {
    Case c{"cgroup v1 kubepods", Signs(), true, kRuntimeKubernetes, "/proc/1/cgroup"};
    c.signs.pid1_cgroup = "11:cpu:/kubepods/besteffort/pod1/abc\n";
    cases.push_back(c);
  }
  {
    // cgroup v2 inside a cgroup namespace looks like a host: not a marker.
    Case c{"cgroup v2 0::/ alone", Signs(), false, nullptr, ""};
    c.signs.pid1_cgroup = "0::/\n";
    cases.push_back(c);
  }
  {
    Case c{"overlay root", Signs(), true, kRuntimeGeneric, "overlayfs"};
    c.signs.self_mountinfo = kOverlayRoot;
    cases.push_back(c);
  }
  {
    Case c{"bind-mounted rootfs (crun bundle)", Signs(), true, kRuntimeGeneric, "bind mount of /ctr/rootfs"};
    c.signs.self_mountinfo = kBindRoot;
    cases.push_back(c);
  }
  {
    Case c{"btrfs subvolume host", Signs(), false, nullptr, ""};
    c.signs.self_mountinfo = kBtrfsHost;
    cases.push_back(c);
  }
  {
    Case c{"uverbs in sysfs, none in /dev", Signs(), true, kRuntimeGeneric, "/dev/infiniband has none"};
    c.signs.sysfs_uverbs = {"uverbs0", "uverbs1"};
    cases.push_back(c);
  }
  {
    Case c{"uverbs in sysfs and /dev", Signs(), false, nullptr, ""};
    c.signs.sysfs_uverbs = {"uverbs0"};
    c.signs.dev_uverbs = {"uverbs0"};
    cases.push_back(c);
  }
  {
    Case c{"nothing readable", ContainerSigns{}, std::nullopt, nullptr, ""};
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ContainerFacts f = ClassifyContainer(c.signs);
    EXPECT_EQ(f.in_container, c.in_container);
    if (c.runtime) {
      EXPECT_THAT(f.runtime, Optional(std::string(c.runtime)));
      EXPECT_THAT(f.marker, Optional(HasSubstr(c.marker)));
    } else {
      EXPECT_EQ(f.runtime, std::nullopt);
    }
  }
}

TEST(ReadContainerSignsTest, ReadsAFakeTree) {
  std::string t = ::testing::TempDir();
  std::string root = t + "/ctr_root";
  ASSERT_EQ(system(("rm -rf " + root + " && mkdir -p " + root + "/run " + root + "/proc/1 " + root +
                    "/proc/self " + root + "/sys/class/infiniband_verbs/uverbs0 " + root + "/dev")
                       .c_str()),
            0);
  std::ofstream(root + "/run/.containerenv") << "engine=\"podman-4.3.1\"\n";
  std::ofstream(root + "/proc/self/mountinfo") << kOverlayRoot;
  std::ofstream(root + "/proc/1/cgroup") << "0::/\n";
  ContainerSigns s = ReadContainerSigns(root, root + "/proc", root + "/sys", root + "/dev");
  EXPECT_FALSE(s.dockerenv);
  EXPECT_THAT(s.containerenv, Optional(HasSubstr("podman-4.3.1")));
  EXPECT_TRUE(s.proc_readable);
  EXPECT_THAT(s.sysfs_uverbs, ElementsAre("uverbs0"));
  EXPECT_THAT(s.dev_uverbs, IsEmpty());
  ContainerFacts f = ClassifyContainer(s);
  EXPECT_THAT(f.runtime, Optional(std::string(kRuntimePodman)));
}

HostInfo Host(const char* runtime) {
  HostInfo h;
  h.in_container = true;
  if (runtime) h.container_runtime = runtime;
  return h;
}

TEST(ContainerRemediesTest, DockerLineHasEveryFlagAndNamesTheMissingOnes) {
  std::vector<std::string> lines = ContainerRemedies(Host(kRuntimeDocker), kNeedMemlock, {"uverbs1"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], AllOf(HasSubstr("docker run --device=/dev/infiniband/uverbs1 "
                                        "--device=/dev/infiniband/rdma_cm --cap-add=IPC_LOCK "
                                        "--ulimit memlock=-1 --network host IMAGE rdmacheck"),
                              HasSubstr("# missing here: --ulimit memlock=-1")));
}

TEST(ContainerRemediesTest, PodmanSaysPodman) {
  std::vector<std::string> lines = ContainerRemedies(Host(kRuntimePodman), kNeedDevices);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], AllOf(HasSubstr("podman run --device=/dev/infiniband/uverbs0"),
                              HasSubstr("missing here: --device=/dev/infiniband/uverbs0 "
                                        "--device=/dev/infiniband/rdma_cm")));
}

TEST(ContainerRemediesTest, KubernetesGivesPodSpecFieldsPerNeed) {
  struct Row {
    unsigned needs;
    std::vector<std::string> want;
  };
  const Row rows[] = {
      {kNeedDevices, {"rdma/hca_shared_devices_a: 1"}},
      {kNeedIpcLock, {"capabilities.add: [\"IPC_LOCK\"]"}},
      {kNeedMemlock, {"capabilities.add: [\"IPC_LOCK\"]"}},
      {kNeedHostNetwork, {"hostNetwork: true"}},
      {kNeedDevices | kNeedHostNetwork, {"rdma/hca_shared_devices_a: 1", "hostNetwork: true"}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.needs);
    std::vector<std::string> lines = ContainerRemedies(Host(kRuntimeKubernetes), row.needs);
    ASSERT_EQ(lines.size(), row.want.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_THAT(lines[i], HasSubstr(row.want[i]));
      EXPECT_THAT(lines[i], Not(HasSubstr("docker run")));
    }
  }
}

TEST(ContainerRemediesTest, GenericGivesBothAndNothingWhenNothingNeeded) {
  std::vector<std::string> lines = ContainerRemedies(Host(nullptr), kNeedHostNetwork);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], AllOf(HasSubstr("docker run "), HasSubstr("missing here: --network host"),
                              HasSubstr("podman run takes the same flags")));
  EXPECT_THAT(lines[1], AllOf(HasSubstr("IPC_LOCK"), HasSubstr("hostNetwork: true")));
  EXPECT_THAT(ContainerRemedies(Host(kRuntimeDocker), 0), IsEmpty());
}

TEST(DescribeContainerTest, Texts) {
  HostInfo h;
  EXPECT_EQ(DescribeContainer(h), "unknown");
  h.in_container = false;
  EXPECT_EQ(DescribeContainer(h), "no container markers");
  h = Host(kRuntimeDocker);
  h.container_marker = "/.dockerenv";
  EXPECT_EQ(DescribeContainer(h), "container (docker: /.dockerenv)");
}

}  // namespace
}  // namespace rdmacheck
