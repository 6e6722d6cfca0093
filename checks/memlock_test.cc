#include "checks/memlock.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOnViewWithModel;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

Result RunModel(const DeviceView& v, Plan p) {
  p.device.reset();
  Options o;
  if (!v.devices.empty()) o.device = v.devices.at(0).name;
  return RunOnViewWithModel(MemlockCheck(), v, p, o);
}
Result RunModel(const char* profile, const char* plan) {
  return RunModel(FixtureProfile(profile), FixturePlan(plan));
}

struct Row {
  const char* profile;
  const char* plan;
  Verdict verdict;
  const char* actual;  // of the "memory the plan pins" row
};

TEST(Memlock, VerdictsOnFixtures) {
  const Row rows[] = {
      // rxe_guest.plan registers no memory and rxe's queues are kernel
      // memory: nothing is charged, so even 64 KiB passes (see the doc).
      {"rxe_mtu9000.profile", "rxe_guest.plan", Verdict::kPass, "0 B (0 B registered + 0 B queue"},
      {"rxe_memlock_64k.profile", "rxe_guest.plan", Verdict::kPass, "0 B"},
      // config_b registers 4 x 16 MiB: over 8 MiB and over 64 KiB.
      {"rxe_mtu9000.profile", "config_b.plan", Verdict::kFail, "64 MiB (64 MiB registered"},
      {"rxe_memlock_64k.profile", "config_b.plan", Verdict::kFail, "64 MiB"},
      // mlx5 with memlock unlimited: its pinned queue buffers do not matter.
      {"mlx5_cx6.profile", "config_b.plan", Verdict::kPass, "registered +"},
      // mlx4 with 32 GiB: 800 QPs' pinned rings fit.
      {"mlx4_cx3.profile", "incident_memory.plan", Verdict::kPass, "0 B registered +"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.profile) + " + " + row.plan);
    Result r = RunModel(row.profile, row.plan);
    EXPECT_EQ(r.verdict, row.verdict) << AllText(r);
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("memory the plan pins", row.actual, row.verdict)))
        << AllText(r);
  }
}

TEST(Memlock, FailStatesBothNumbersAndShellRemedies) {
  Result r = RunModel("rxe_memlock_64k.profile", "config_b.plan");
  ASSERT_EQ(r.verdict, Verdict::kFail);
  bool row = false;
  for (const Evidence& e : r.evidence)
    row = row || (e.subject == "memory the plan pins" && e.expected == "<= 64 KiB (RLIMIT_MEMLOCK soft)");
  EXPECT_TRUE(row) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("memory regions of QP class bulk", "64 MiB", Verdict::kPass)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ulimit -l unlimited")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ulimit -l 65536")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("/etc/security/limits.d/rdma.conf")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("* hard memlock unlimited")));
  // Not in a container: no Docker or Kubernetes lines.
  EXPECT_THAT(r.remediation, Not(Contains(HasSubstr("--ulimit memlock=-1"))));
  EXPECT_THAT(r.remediation.back(), HasSubstr("ulimit -l"));
  EXPECT_THAT(AllText(r), HasSubstr("this run is root"));
}

TEST(Memlock, ContainerGetsDockerAndKubernetesRemedies) {
  DeviceView v = FixtureProfile("rxe_memlock_64k.profile");
  v.host.in_container = true;
  Result r = RunModel(v, FixturePlan("config_b.plan"));
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.remediation, Contains(AllOf(HasSubstr("docker run "), HasSubstr("--ulimit memlock=-1"),
                                             HasSubstr("missing here: --cap-add=IPC_LOCK --ulimit memlock=-1"))));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("capabilities.add: [\"IPC_LOCK\"]")));
  EXPECT_THAT(r.remediation, Not(Contains(HasSubstr("limits.d"))));
}

TEST(Memlock, PinnedQueueBuffersCountOnMlx5) {
  DeviceView v = FixtureProfile("mlx5_cx6.profile");
  v.host.memlock_soft = 64 << 10;
  // config_a: 1000 QPs, no registered memory; mlx5 pins the rings in user
  // memory (SQ, RQ and a CQ of 1024 x 64 B per QP), 128.9 MiB in all.
  Result r = RunModel(v, FixturePlan("config_a.plan"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("memory the plan pins", "0 B registered + 128.9 MiB queue buffers", Verdict::kFail)));
  EXPECT_THAT(AllText(r), HasSubstr("ib_umem_get"));
}

TEST(Memlock, WarnsNearTheLimitAndSkipsWithoutIt) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.host.memlock_soft = 66 << 20;  // 64 of 66 MiB: 97%
  EXPECT_EQ(RunModel(v, FixturePlan("config_b.plan")).verdict, Verdict::kWarn);
  v.host.memlock_soft = HostInfo::kUnlimited;
  Result r = RunModel(v, FixturePlan("config_b.plan"));
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("memory the plan pins", "64 MiB", Verdict::kPass)));
  v.host.memlock_soft.reset();
  r = RunModel(v, FixturePlan("config_b.plan"));
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("fact missing: host memlock_soft"));
}

}  // namespace
}  // namespace rdmacheck
