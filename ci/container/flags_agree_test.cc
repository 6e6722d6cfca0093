// The container examples use what rdmacheck tells users to add: every docker
// flag of ContainerRunFlags() in the Dockerfile's run line and the hosted-CI
// workflow, and every Kubernetes field of ContainerRemedies() in the Job and
// the DaemonSets. A flag changed in facts/container.cc and not here fails.
// The node-problem-detector config's command line parses with rdmacheck's
// own flag parser and selects no live probe.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/numbers.h"
#include "checks/registry.h"
#include "cli/flags.h"
#include "facts/container.h"
#include "report/npd.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

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

// The README's docker and podman lines are what run (the workflow and the
// guest stage run them through ci/container/run-checks.sh): each carries
// every flag the remediation prints, and so does the Dockerfile's comment.
TEST(FlagsAgree, DockerFlagsInTheDockerfileAndTheReadmeLinesTheWorkflowRuns) {
  std::vector<std::string> flags = ContainerRunFlags({"uverbs0"});
  ASSERT_EQ(flags.size(), 5u);
  const std::string dockerfile = Read("ci/container/Dockerfile");
  const std::string workflow = Read("ci/container/github-actions.yml");
  const std::string readme = absl::StrReplaceAll(Read("README.md"), {{" \\\n     ", ""}});
  EXPECT_THAT(workflow, HasSubstr("bash ci/container/run-checks.sh --engine docker"));
  for (const char* engine : {"docker", "podman"}) {
    size_t at = readme.find(absl::StrCat("\n    ", engine, " run "));
    ASSERT_NE(at, std::string::npos) << "README.md has no " << engine << " run line";
    std::string line = readme.substr(at + 1, readme.find('\n', at + 1) - at - 1);
    for (const std::string& f : flags) EXPECT_THAT(line, HasSubstr(f)) << "README's " << engine << " line";
  }
  for (const std::string& f : flags) EXPECT_THAT(dockerfile, HasSubstr(f)) << "Dockerfile lacks " << f;
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
  for (const char* file : {"ci/container/kubernetes/job.yaml", "ci/container/kubernetes/daemonset.yaml",
                           "ci/container/kubernetes/npd/node-problem-detector.yaml"}) {
    const std::string text = Read(file);
    for (const std::string& w : want) EXPECT_THAT(text, HasSubstr(w)) << file << " lacks " << w;
  }
}

// NPD durations as its configs write them here: whole seconds, "5s".
double Seconds(const nlohmann::json& v) {
  absl::string_view s = v.get_ref<const std::string&>();
  double out = -1;
  EXPECT_TRUE(absl::ConsumeSuffix(&s, "s") && absl::SimpleAtod(s, &out)) << v;
  return out;
}

TEST(FlagsAgree, NpdConfigRunsRdmacheckWithFlagsItsParserTakes) {
  const nlohmann::json cfg =
      nlohmann::json::parse(Read("ci/container/kubernetes/npd/rdmacheck-npd.json"));
  ASSERT_EQ(cfg["rules"].size(), 1u);
  const nlohmann::json& rule = cfg["rules"][0];
  // The path the Dockerfile installs rdmacheck to.
  EXPECT_EQ(rule["path"], "/usr/local/bin/rdmacheck");
  EXPECT_THAT(Read("ci/container/Dockerfile"), HasSubstr("COPY --from=build /out/rdmacheck /usr/local/bin/rdmacheck"));

  const std::vector<std::string> args = rule["args"];
  absl::StatusOr<CliFlags> f = ParseFlags(args);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->command, "");
  EXPECT_EQ(f->format, "npd");
  EXPECT_EQ(f->window_s, 1);

  // Static checks only: a live probe (hung-qp, sge-page-crossing,
  // cq-overrun) added to the registry later fails here until it is skipped.
  absl::StatusOr<std::vector<const Check*>> sel = SelectChecks(f->checks, f->skip);
  ASSERT_TRUE(sel.ok()) << sel.status();
  std::vector<std::string> ids;
  for (const Check* c : *sel) {
    ids.push_back(std::string(c->id()));
    EXPECT_FALSE(c->live_only()) << c->id() << " is a live probe: add it to the config's --skip";
  }
  EXPECT_THAT(ids, ::testing::Not(::testing::Contains("memory-budget")));
  EXPECT_THAT(ids, ::testing::IsSupersetOf({"link-health", "pcie", "port-active", "firewall-4791"}));

  // NPD refuses a rule timeout over the global one; one check at its
  // deadline plus the window must still end before NPD kills the run.
  const double timeout = Seconds(cfg["pluginConfig"]["timeout"]);
  EXPECT_LE(Seconds(rule["timeout"]), timeout);
  EXPECT_LT(f->window_s + f->check_deadline_s, Seconds(rule["timeout"]));
  EXPECT_EQ(cfg["pluginConfig"]["max_output_length"], kNpdMaxLineBytes);
  EXPECT_EQ(rule["type"], "permanent");
  ASSERT_EQ(cfg["conditions"].size(), 1u);
  EXPECT_EQ(cfg["conditions"][0]["type"], rule["condition"]);
  EXPECT_EQ(rule["condition"], "RDMAProblem");

  // The Slurm wrapper runs the same selection, one argument per line.
  const std::string slurm = Read("ci/container/slurm/rdmacheck-healthcheck.sh");
  for (const std::string& a : args) {
    const bool quoted = absl::StrContains(a, ',');  // shellcheck wants these quoted
    EXPECT_THAT(slurm, HasSubstr(absl::StrCat("\n  ", quoted ? "\"" : "", a, quoted ? "\"" : "", "\n")))
        << "rdmacheck-healthcheck.sh lacks " << a;
  }
}

}  // namespace
}  // namespace rdmacheck
