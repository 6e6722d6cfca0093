// The container examples use what rdmacheck tells users to add: every docker
// flag of ContainerRunFlags() in the Dockerfile's run line and the hosted-CI
// workflow, and every Kubernetes field of ContainerRemedies() in the Job and
// the DaemonSet. A flag changed in facts/container.cc and not here fails.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/container.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "Kubernetes: resources.limits: {rdma/hca_shared_devices_a: 1}   # ..." ->
// "rdma/hca_shared_devices_a: 1"; "...capabilities.add: [\"IPC_LOCK\"]" ->
// "add: [\"IPC_LOCK\"]"; "hostNetwork: true" stays. That is how the field is
// spelled in block-style YAML.
std::string YamlForm(absl::string_view line) {
  absl::string_view s = line;
  EXPECT_TRUE(absl::ConsumePrefix(&s, "Kubernetes: ")) << line;
  s = s.substr(0, s.find("   #"));
  size_t colon = s.find(": ");
  absl::string_view path = s.substr(0, colon);
  absl::string_view value = s.substr(colon + 2);
  if (absl::ConsumePrefix(&value, "{")) {
    absl::ConsumeSuffix(&value, "}");
    return std::string(value);
  }
  std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  return absl::StrCat(parts.back(), ": ", value);
}

TEST(FlagsAgree, DockerFlagsInTheDockerfileAndTheWorkflow) {
  std::vector<std::string> flags = ContainerRunFlags({"uverbs0"});
  ASSERT_EQ(flags.size(), 5u);
  const std::string dockerfile = Read("ci/container/Dockerfile");
  std::string workflow = Read("ci/container/github-actions.yml");
  // The workflow picks rxe0's node at run time.
  workflow = absl::StrReplaceAll(workflow, {{"/dev/infiniband/${uverbs:-uverbs0}", "/dev/infiniband/uverbs0"},
                                            {"--device=\"", "--device="}});
  for (const std::string& f : flags) {
    EXPECT_THAT(dockerfile, HasSubstr(f)) << "Dockerfile lacks " << f;
    EXPECT_THAT(workflow, HasSubstr(f)) << "github-actions.yml lacks " << f;
  }
}

TEST(FlagsAgree, KubernetesFieldsInTheJobAndTheDaemonSet) {
  HostInfo h;
  h.in_container = true;
  h.container_runtime = kRuntimeKubernetes;
  std::vector<std::string> lines =
      ContainerRemedies(h, kNeedDevices | kNeedIpcLock | kNeedMemlock | kNeedHostNetwork);
  ASSERT_EQ(lines.size(), 3u);
  std::vector<std::string> want;
  for (const std::string& l : lines) want.push_back(YamlForm(l));
  EXPECT_THAT(want, ::testing::ElementsAre("rdma/hca_shared_devices_a: 1", "add: [\"IPC_LOCK\"]",
                                           "hostNetwork: true"));
  for (const char* file : {"ci/container/kubernetes/job.yaml", "ci/container/kubernetes/daemonset.yaml"}) {
    const std::string text = Read(file);
    for (const std::string& w : want) EXPECT_THAT(text, HasSubstr(w)) << file << " lacks " << w;
  }
}

}  // namespace
}  // namespace rdmacheck
