#include "checks/memlock.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "checks/memory_budget.h"
#include "facts/container.h"

namespace rdmacheck {

QueuePinning QueuePinningOf(absl::string_view driver) {
  // Per-driver deviation as data. ib_umem_get (drivers/infiniband/core/umem.c)
  // charges pinned pages to mm->pinned_vm and refuses past RLIMIT_MEMLOCK
  // unless the process has CAP_IPC_LOCK.
  struct Entry {
    const char* driver;
    QueuePinning p;
  };
  static const Entry kTable[] = {
      {"rxe", {false, "rxe allocates QP and CQ rings in the kernel (vmalloc_user, rxe_queue.c) and maps "
                      "them: not charged to RLIMIT_MEMLOCK"}},
      {"mlx5", {true, "the mlx5 provider allocates QP/CQ buffers in user memory and the kernel pins them "
                      "(ib_umem_get): charged to RLIMIT_MEMLOCK"}},
      {"mlx4", {true, "the mlx4 provider allocates QP/CQ buffers in user memory and the kernel pins them "
                      "(ib_umem_get): charged to RLIMIT_MEMLOCK"}},
  };
  for (const Entry& e : kTable)
    if (driver == e.driver) return e.p;
  return {true, "driver without a model: queue buffers assumed pinned in user memory (as mlx4/mlx5)"};
}

namespace {

std::string Limit(uint64_t v) { return v == HostInfo::kUnlimited ? "unlimited" : HumanBytes(v); }

void Remedies(const CheckContext& ctx, uint64_t need, ResultBuilder& r) {
  const HostInfo& h = ctx.view.host;
  const uint64_t kib = (need + 1023) / 1024;
  const bool container = h.in_container.value_or(false);
  if (!h.in_container || !container) {
    r.Remedy(absl::StrCat("ulimit -l unlimited   # this shell, before starting the service (needs at least ",
                          kib, " KiB: ulimit -l ", kib, ")"));
    r.Remedy("printf '* soft memlock unlimited\\n* hard memlock unlimited\\n' > "
             "/etc/security/limits.d/rdma.conf   # every login (a systemd service: LimitMEMLOCK=infinity)");
  }
  if (container) {
    // Without IPC_LOCK the limit must go; with it the kernel pins past it.
    unsigned needs = kNeedMemlock | (h.cap_ipc_lock.value_or(false) ? 0u : unsigned{kNeedIpcLock});
    for (const std::string& line : ContainerRemedies(h, needs)) r.Remedy(line);
  } else if (!h.in_container) {
    // Not known whether this is a container: the docker flag too.
    r.Remedy("docker run --ulimit memlock=-1 ...   # if this runs in a container (Kubernetes: "
             "securityContext.capabilities.add: [\"IPC_LOCK\"])");
  }
  r.Remedy("ulimit -l   # in the service's shell or container: shows unlimited (or the new KiB)");
}

}  // namespace

Result MemlockCheck::Run(const CheckContext& ctx) const {
  const char* title = "RLIMIT_MEMLOCK covers the memory the plan pins";
  const HostInfo& h = ctx.view.host;
  if (!h.memlock_soft) return ResultBuilder::Skip(*this, title, MissingFact("host", "memlock_soft"));
  const Plan& plan = ctx.plan;
  ResultBuilder r(*this, title);
  if (plan.is_default)
    r.Note("no --plan given: the default plan registers no memory; pass --plan for the deployment's "
           "buffers");

  uint64_t mrs = plan.mr_bytes.value_or(0);
  for (const QpClass& q : plan.qp_classes) {
    if (q.mr_bytes == 0) continue;
    r.Expect(absl::StrCat("memory regions of QP class ", q.name),
             absl::StrCat(q.count, " x mr_bytes ", HumanBytes(q.mr_bytes)), HumanBytes(q.mr_bytes * q.count));
    mrs += q.mr_bytes * q.count;
  }
  if (plan.mr_bytes)
    r.Expect("memory regions of the plan ([plan] mr_bytes)", "shared pools", HumanBytes(*plan.mr_bytes));

  // Queue buffers: the largest over the selected devices (the plan runs on
  // one of them).
  uint64_t queues = 0;
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  for (const DeviceInfo* info : devs) {
    QueuePinning pin = QueuePinningOf(info->driver.value_or(""));
    if (!pin.charged) {
      r.Expect(absl::StrCat(info->name, ": pinned queue buffers"), "not charged", "0 B");
      r.Note(absl::StrCat(info->name, ": ", pin.why));
      continue;
    }
    absl::StatusOr<std::unique_ptr<Device>> opened = ctx.OpenDevice(*info);
    if (!opened.ok()) {
      r.Note(absl::StrCat(info->name, ": no driver model or live device: queue buffers not counted (",
                          opened.status().message(), ")"));
      continue;
    }
    PlanMemory m = ModelPlanMemory(plan, **opened);
    r.Expect(absl::StrCat(info->name, ": pinned queue buffers"), "QP and CQ rings (driver model)",
             HumanBytes(m.queue_buffers));
    r.Note(absl::StrCat(info->name, ": ", pin.why));
    queues = std::max(queues, m.queue_buffers);
  }
  const uint64_t need = mrs + queues;
  const uint64_t lim = *h.memlock_soft;
  Verdict v = Verdict::kPass;
  if (lim != HostInfo::kUnlimited) {
    if (need > lim) {
      v = Verdict::kFail;
    } else if (static_cast<double>(need) > kWarnRatio * static_cast<double>(lim)) {
      v = Verdict::kWarn;
    }
  }
  r.Expect("memory the plan pins", absl::StrCat("<= ", Limit(lim), " (RLIMIT_MEMLOCK soft)"),
           absl::StrCat(HumanBytes(need), " (", HumanBytes(mrs), " registered + ", HumanBytes(queues),
                        " queue buffers)"),
           v);
  if (v != Verdict::kPass) {
    if (h.memlock_hard && *h.memlock_hard != HostInfo::kUnlimited && need > *h.memlock_hard)
      r.Note(absl::StrCat("the hard limit is ", Limit(*h.memlock_hard),
                          " too: only root (or limits.d and a new login) can raise it"));
    if (h.is_root.value_or(false) && !h.in_container.value_or(false))
      r.Note("this run is root: root holds CAP_IPC_LOCK and the kernel (ib_umem_get) lets it pin past the "
             "limit, but a service running as another user gets this limit");
    r.Note("past the limit ibv_reg_mr (and on mlx4/mlx5 ibv_create_qp/cq) fails with \"Cannot allocate "
           "memory\" (ENOMEM)");
    Remedies(ctx, need, r);
  }
  return r.Build();
}

}  // namespace rdmacheck
