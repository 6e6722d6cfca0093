#include "checks/memory_budget.h"

#include "checks/check_test_util.h"
#include "acts/driver_model.h"
#include "acts/testing/fake_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOnView;
using ::rdmacheck::testing::RunOnViewWithModel;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// Runs on `profile` with the plan's device cleared (fixture plans may name
// rxe0) and only the first device selected, with its driver model.
Result RunModel(const char* profile, const char* plan) {
  Plan p = FixturePlan(plan);
  p.device.reset();
  DeviceView v = FixtureProfile(profile);
  Options o;
  o.device = v.devices.at(0).name;
  return RunOnViewWithModel(MemoryBudgetCheck(), v, p, o);
}

// The generic model's worked example (qib has no driver model, so it gets the
// rule of thumb of docs/driver-models.md): 4096 x (64 + 8 x 16) = 768 KiB send
// queue, 4096 x 80 = 320 KiB receive queue per QP.
TEST(MemoryBudget, WorkedExampleUnderGenericModel) {
  Result r = RunModel("qib_legacy.profile", "config_b.plan");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class bulk x4 send queue", "768 KiB per QP",
                                               Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class bulk x4 receive queue", "320 KiB per QP",
                                               Verdict::kPass)));
  // CQ of 8192 x 64 B each, one per QP.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class bulk x4 CQ share", "512 KiB per QP",
                                               Verdict::kPass)));
  // The formula is shown as an assumption.
  EXPECT_THAT(AllText(r), HasSubstr("4096 x (64 + 16 x 8) = 786432 B"));
  EXPECT_THAT(AllText(r), HasSubstr("generic model (assumption, not a driver fact"));
  // 4 x (768 + 320 + 1088 context + 512 CQ) KiB = 10.5 MiB of 64 MiB.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("plan queue memory", "10.5 MiB, 16% of the budget",
                                               Verdict::kPass)));
}

TEST(MemoryBudget, GenericModelIsTheSeedFormulaForEveryField) {
  DeviceInfo d;
  d.name = "x0";
  std::unique_ptr<Device> dev = MakeGenericModel(d);
  Plan p = FixturePlan("config_b.plan");
  PlanMemory m = ModelPlanMemory(p, *dev);
  ASSERT_EQ(m.classes.size(), 1u);
  EXPECT_EQ(m.classes[0].per_qp.sq_bytes, 4096u * (64 + 8 * 16));
  EXPECT_EQ(m.classes[0].per_qp.rq_bytes, 4096u * 80);
  EXPECT_EQ(m.classes[0].cq_share, 4u * 8192 * 64);
  EXPECT_EQ(m.queue_buffers, 4u * (4096 * 192 + 4096 * 80 + 8192 * 64));
  EXPECT_EQ(m.total, m.queue_buffers + 4u * (4096 * 192 + 4096 * 80));
}

// The memory incident: 800 QPs of 4096 x 16 SGEs in a 1 GiB container, and
// its fix. Verdicts on the generic model and on the rxe model.
TEST(MemoryBudget, IncidentMemoryFailsAndItsFixPasses) {
  struct Row {
    const char* profile;
    const char* plan;
    Verdict verdict;
    const char* total;
  };
  const Row rows[] = {
      // generic: 800 x (1.25 MiB + 320 KiB) x 2 + 800 x 512 KiB = 2.8 GiB
      {"qib_legacy.profile", "incident_memory.plan", Verdict::kFail, "2.8 GiB, 283% of the budget"},
      // generic: 32 x 1.6 MiB + 768 x 104 KiB + CQs 16 + 24 MiB = 170 MiB
      {"qib_legacy.profile", "incident_memory_fixed.plan", Verdict::kPass, "17% of the budget"},
      // rxe: 8191 x 464 B WQEs pad to 512 B: 4 MiB send queue per QP
      {"rxe_mtu9000.profile", "incident_memory.plan", Verdict::kFail, "of the budget"},
      {"rxe_mtu9000.profile", "incident_memory_fixed.plan", Verdict::kPass, "of the budget"},
      {"mlx5_cx6.profile", "incident_memory.plan", Verdict::kFail, "of the budget"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.profile) + " + " + row.plan);
    Result r = RunModel(row.profile, row.plan);
    EXPECT_EQ(r.verdict, row.verdict) << AllText(r);
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("plan queue memory", row.total, row.verdict)))
        << AllText(r);
  }
}

TEST(MemoryBudget, FailNamesTheBiggestClassAndTheCommandToRecheck) {
  Result r = RunModel("rxe_mtu9000.profile", "incident_memory.plan");
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class conn x800 send queue", "4.0 MiB per QP",
                                               Verdict::kPass)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("cut [qp conn]")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("raise memory_budget")));
  EXPECT_THAT(r.remediation.back(), HasSubstr("--checks memory-budget"));
}

TEST(MemoryBudget, WarnsAboveNinetyPercentAndFailsOverHostMemory) {
  Plan p = FixturePlan("config_b.plan");
  p.device.reset();
  DeviceView v = FixtureProfile("qib_legacy.profile");
  Options o;
  o.device = "qib0";
  p.memory_budget = 11u << 20;  // total is 10.5 MiB: 95%
  Result r = RunOnViewWithModel(MemoryBudgetCheck(), v, p, o);
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  p.memory_budget.reset();
  v.host.mem_total = 8u << 20;  // 8 MiB of RAM
  r = RunOnViewWithModel(MemoryBudgetCheck(), v, p, o);
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("against the host", "131% of MemTotal", Verdict::kFail)));
}

TEST(MemoryBudget, SkipsOrSaysWhyWhenItCannotSize) {
  EXPECT_EQ(RunModel("mlx5_cx6.profile", "config_c.plan").verdict, Verdict::kPass);
  Result r = RunOnView(MemoryBudgetCheck(), FixtureProfile("rxe_mtu9000.profile"), FixturePlan("config_a.plan"));
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(AllText(r), HasSubstr("could not carry out"));
  r = RunOnViewWithModel(MemoryBudgetCheck(), FixtureProfile("no_device.profile"), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("no RDMA device"));
}

// The rxe model for sizing, plus a canned measurement as a live device
// gives; *seen gets every measurement request.
Result RunMeasured(const char* plan, absl::StatusOr<QpMemoryMeasurement> canned,
                   std::vector<QpMemoryRequest>* seen) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.source = "live";
  Plan p = FixturePlan(plan);
  Options o;
  o.device = "rxe0";
  testing::FakeDevice fake("live rxe0");
  fake.FallBackTo(MakeDriverModel(*v.Device("rxe0")));
  fake.measure_qp_memory.Always(std::move(canned));
  Result r = testing::RunOnViewWithFake(MemoryBudgetCheck(), v, p, fake, o);
  const std::vector<QpMemoryRequest>& asked = fake.measure_qp_memory.requests();
  seen->insert(seen->end(), asked.begin(), asked.end());
  return r;
}

TEST(MemoryBudget, LiveShowsMeasuredMemoryBesideTheModel) {
  // 2 QPs of rxe_guest.plan's class; the process grew by 2 x 1 MiB resident,
  // the kernel's vmalloc area by the same.
  QpMemoryMeasurement m;
  m.created = 2;
  m.requested = 2;
  m.before.vm_rss = 10u << 20;
  m.after.vm_rss = 12u << 20;
  m.before.vm_pin = 0;
  m.after.vm_pin = 0;
  m.before.vm_lck = 0;
  m.after.vm_lck = 0;
  m.before.vmalloc_used = 100u << 20;
  m.after.vmalloc_used = 102u << 20;
  m.seconds = 0.01;
  std::vector<QpMemoryRequest> seen;
  Result r = RunMeasured("rxe_guest.plan", m, &seen);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].count, 2u);  // min(count, 64)
  EXPECT_EQ(seen[0].caps.max_send_wr, 256u);
  EXPECT_LE(seen[0].deadline_s, 5.0);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0: QP class probe measured",
                                               "VmRSS +1 MiB, VmPin +0 B, VmLck +0 B per QP over 2 QPs; kernel "
                                               "VmallocUsed +1 MiB per QP",
                                               Verdict::kPass)));
  // The model rows stay, and the note compares the two.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class probe x2 send queue", "per QP", Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("measured VmRSS +1 MiB per QP over 2 QPs"));
  EXPECT_THAT(AllText(r), Not(HasSubstr("these are model numbers")));

  // rxe in the guest: VmRSS does not move, the uverbs mappings do.
  m.after.vm_rss = m.before.vm_rss;
  m.before.uverbs_mapped = 4096;
  m.after.uverbs_mapped = 4096 + 2 * 155648;
  r = RunMeasured("rxe_guest.plan", m, &seen);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class probe measured", "; mapped from uverbs +152 KiB per QP",
                                               Verdict::kPass)));
  EXPECT_THAT(AllText(r), HasSubstr("measured uverbs mappings +152 KiB per QP over 2 QPs"));
}

TEST(MemoryBudget, LiveMeasurementIsBoundedInCountAndBytes) {
  // incident_memory.plan: 800 QPs of 4 MiB+ each by the rxe model: at most
  // 256 MiB of them, far under 64.
  QpMemoryMeasurement m;
  m.created = 1;
  m.requested = 1;
  std::vector<QpMemoryRequest> seen;
  Result r = RunMeasured("incident_memory.plan", m, &seen);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_GE(seen[0].count, 1u);
  EXPECT_LT(seen[0].count, 64u);
  EXPECT_THAT(AllText(r), HasSubstr("of its 800 QPs (at most 64 and 256 MiB by the model)"));
}

TEST(MemoryBudget, MeasurementErrorWarnsAndProfileSaysModelOnly) {
  std::vector<QpMemoryRequest> seen;
  Result r = RunMeasured("rxe_guest.plan", absl::ResourceExhaustedError("ibv_create_qp(dev=rxe0): Cannot allocate memory"),
                         &seen);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("QP class probe measured",
                                               "could not measure: ibv_create_qp(dev=rxe0): Cannot allocate memory",
                                               Verdict::kWarn)));
  Result p = RunModel("rxe_mtu9000.profile", "rxe_guest.plan");
  EXPECT_THAT(AllText(p), HasSubstr("measured QP memory needs a live device: these are model numbers"));
}

}  // namespace
}  // namespace rdmacheck
