#include "checks/memory_budget.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {
namespace {

std::string Pct(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  return absl::StrFormat("%.0f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// The CQ specs a class completes into, each once.
std::vector<std::string> CqsOf(const QpClass& q) {
  std::vector<std::string> out;
  if (!q.send_cq.empty()) out.push_back(q.send_cq);
  if (!q.recv_cq.empty() && q.recv_cq != q.send_cq) out.push_back(q.recv_cq);
  return out;
}

}  // namespace

PlanMemory ModelPlanMemory(const Plan& plan, Device& dev) {
  PlanMemory m;
  for (const CqSpec& c : plan.cqs) {
    CqMemoryRow row;
    row.cq = &c;
    absl::StatusOr<uint32_t> g = dev.CreateCq(c.cqe);
    if (g.ok()) {
      row.granted_cqe = *g;
    } else {
      // Sized as asked, so the budget still sees it; device-limits FAILs it.
      row.create_ok = false;
      row.create_error = std::string(g.status().message());
      row.granted_cqe = c.cqe;
    }
    row.bytes_each = dev.CqMemory(row.granted_cqe);
    m.cqs.push_back(row);
  }
  // How many QPs complete into each CQ spec: a CQ's bytes are shared among
  // the classes in proportion to their QP counts.
  std::map<std::string, uint64_t> qps_on_cq;
  for (const QpClass& q : plan.qp_classes)
    for (const std::string& c : CqsOf(q)) qps_on_cq[c] += q.count;

  for (const QpClass& q : plan.qp_classes) {
    QpClassMemory cm;
    cm.qp = &q;
    QpRequest req{q.type, q.caps, !q.srq.empty()};
    absl::StatusOr<QpCaps> g = dev.CreateQp(req);
    if (g.ok()) {
      cm.granted = *g;
    } else {
      cm.create_ok = false;
      cm.create_error = std::string(g.status().message());
      cm.granted = q.caps;
    }
    cm.per_qp = dev.QpMemory(req, cm.granted);
    for (const std::string& c : CqsOf(q)) {
      for (const CqMemoryRow& row : m.cqs) {
        if (row.cq->name != c || qps_on_cq[c] == 0) continue;
        cm.cq_share += row.total() * q.count / qps_on_cq[c];
      }
    }
    m.classes.push_back(cm);
  }
  for (const SrqSpec& s : plan.srqs) {
    // No Device call sizes an SRQ: it is sized as the receive queue of a QP
    // with the same depth and SGEs (rxe and mlx5 build both the same way).
    SrqMemoryRow row;
    row.srq = &s;
    QpRequest req{QpType::kRc, QpCaps{}, false};
    req.caps.max_send_wr = 1;
    req.caps.max_send_sge = 1;
    req.caps.max_recv_wr = s.max_wr;
    req.caps.max_recv_sge = s.max_sge;
    absl::StatusOr<QpCaps> g = dev.CreateQp(req);
    row.bytes_each = dev.QpMemory(req, g.ok() ? *g : req.caps).rq_bytes;
    m.srqs.push_back(row);
  }
  for (const QpClassMemory& c : m.classes) {
    m.total += c.per_qp.total() * c.qp->count;
    m.queue_buffers += (c.per_qp.sq_bytes + c.per_qp.rq_bytes) * c.qp->count;
  }
  for (const CqMemoryRow& c : m.cqs) {
    m.total += c.total();
    m.queue_buffers += c.total();
  }
  for (const SrqMemoryRow& s : m.srqs) {
    m.total += s.total();
    m.queue_buffers += s.total();
  }
  return m;
}

namespace {

// "+292 KiB", or "not reported" when the kernel lacks the field.
std::string PerQpText(const QpMemoryMeasurement& m, const std::optional<uint64_t>& b,
                      const std::optional<uint64_t>& a) {
  std::optional<uint64_t> d = m.PerQp(b, a);
  return d ? absl::StrCat("+", HumanBytes(*d)) : "not reported";
}

// Live only: create a bounded number of QPs of each class and show the
// process's memory growth per QP beside the model's per-QP bytes.
void MeasureClasses(const CheckContext& ctx, const DeviceInfo& info, Device& dev, const PlanMemory& m,
                    ResultBuilder& r) {
  const std::string d = info.name + ": ";
  // The whole measurement stays well inside the check's deadline.
  const double budget_s = std::max(0.5, std::min(5.0, ctx.options.check_deadline_s / 2));
  for (const QpClassMemory& c : m.classes) {
    const QpClass& q = *c.qp;
    if (!c.create_ok) continue;  // the create fails: nothing to measure
    const uint64_t model = c.per_qp.total();
    uint64_t n = std::min<uint64_t>(q.count, QpMemoryRequest::kMaxQps);
    // Bound the memory it takes, by the model's own estimate.
    if (model > 0) n = std::max<uint64_t>(1, std::min<uint64_t>(n, MemoryBudgetCheck::kMeasureBytes / model));
    QpMemoryRequest req;
    req.device = info.name;
    req.type = q.type;
    req.caps = q.caps;
    req.with_srq = !q.srq.empty();
    req.count = static_cast<uint32_t>(n);
    req.deadline_s = budget_s;
    absl::StatusOr<QpMemoryMeasurement> got = dev.MeasureQpMemory(req);
    if (absl::IsUnimplemented(got.status())) {
      r.Note(absl::StrCat(std::string(got.status().message()), ": these are model numbers"));
      return;
    }
    const std::string s = absl::StrCat(d, "QP class ", q.name, " measured");
    const std::string expected = absl::StrCat("model ", HumanBytes(model), " per QP (queues + context)");
    if (!got.ok()) {
      r.Expect(s, expected, absl::StrCat("could not measure: ", got.status().message()), Verdict::kWarn);
      continue;
    }
    const QpMemoryMeasurement& mm = *got;
    std::string actual = absl::StrCat("VmRSS ", PerQpText(mm, mm.before.vm_rss, mm.after.vm_rss), ", VmPin ",
                                      PerQpText(mm, mm.before.vm_pin, mm.after.vm_pin), ", VmLck ",
                                      PerQpText(mm, mm.before.vm_lck, mm.after.vm_lck), " per QP over ",
                                      mm.created, " QP", mm.created == 1 ? "" : "s");
    if (std::optional<uint64_t> u = mm.PerQp(mm.before.uverbs_mapped, mm.after.uverbs_mapped))
      absl::StrAppend(&actual, "; mapped from uverbs +", HumanBytes(*u), " per QP");
    if (std::optional<uint64_t> k = mm.PerQp(mm.before.vmalloc_used, mm.after.vmalloc_used))
      absl::StrAppend(&actual, "; kernel VmallocUsed +", HumanBytes(*k), " per QP (system-wide)");
    absl::StrAppend(&actual, absl::StrFormat(" (%.2f s)", mm.seconds));
    r.Expect(s, expected, actual);
    // The process's own growth: resident (rxe maps its queues in) or pinned
    // (mlx5 pins user-space queue buffers), whichever is larger.
    const uint64_t rss = mm.PerQp(mm.before.vm_rss, mm.after.vm_rss).value_or(0);
    const uint64_t pin = mm.PerQp(mm.before.vm_pin, mm.after.vm_pin).value_or(0);
    const uint64_t mapped = mm.PerQp(mm.before.uverbs_mapped, mm.after.uverbs_mapped).value_or(0);
    const uint64_t measured = std::max({rss, pin, mapped});
    const char* which = measured == mapped ? "uverbs mappings" : measured == pin ? "VmPin" : "VmRSS";
    if (model > 0 && measured > 0) {
      r.Note(absl::StrFormat("QP class %s: model %s per QP, measured %s +%s per QP over %u QPs (%.0f%% of the model)",
                             q.name, HumanBytes(model), which, HumanBytes(measured),
                             mm.created, 100.0 * static_cast<double>(measured) / static_cast<double>(model)));
    }
    if (mm.created < mm.requested)
      r.Note(absl::StrCat("QP class ", q.name, ": measured over ", mm.created, " of ", mm.requested,
                          " QPs (stopped: ", mm.stopped, ")"));
    if (n < q.count)
      r.Note(absl::StrCat("QP class ", q.name, ": measured ", n, " of its ", q.count,
                          " QPs (at most ", QpMemoryRequest::kMaxQps, " and ",
                          HumanBytes(MemoryBudgetCheck::kMeasureBytes), " by the model)"));
  }
}

void CheckDevice(const CheckContext& ctx, const DeviceInfo& info, Device& dev, ResultBuilder& r) {
  const Plan& plan = ctx.plan;
  const std::string d = info.name + ": ";
  PlanMemory m = ModelPlanMemory(plan, dev);
  r.Note(absl::StrCat(info.name, " sized by the ", dev.Describe()));
  std::set<std::string> bases;
  const QpClassMemory* biggest = nullptr;
  for (const QpClassMemory& c : m.classes) {
    const QpClass& q = *c.qp;
    const std::string s = absl::StrCat(d, "QP class ", q.name, " x", q.count, " ");
    const uint64_t n = q.count;
    if (!c.create_ok)
      r.Note(absl::StrCat("QP class ", q.name, ": the create would fail (", c.create_error,
                          "); sized with the requested caps (see device-limits)"));
    r.Expect(s + "send queue",
             absl::StrCat(c.granted.max_send_wr, " WRs x ", c.granted.max_send_sge, " SGE(s) granted"),
             absl::StrCat(HumanBytes(c.per_qp.sq_bytes), " per QP, ", HumanBytes(c.per_qp.sq_bytes * n),
                          " in all"));
    r.Expect(s + "receive queue",
             q.srq.empty() ? absl::StrCat(c.granted.max_recv_wr, " WRs x ", c.granted.max_recv_sge,
                                          " SGE(s) granted")
                           : absl::StrCat("from SRQ ", q.srq),
             absl::StrCat(HumanBytes(c.per_qp.rq_bytes), " per QP, ", HumanBytes(c.per_qp.rq_bytes * n),
                          " in all"));
    r.Expect(s + "CQ share", absl::StrCat("CQ ", q.send_cq.empty() ? q.recv_cq : q.send_cq),
             absl::StrCat(HumanBytes(n ? c.cq_share / n : 0), " per QP, ", HumanBytes(c.cq_share),
                          " in all"));
    r.Expect(s + "driver context", "driver estimate",
             absl::StrCat(HumanBytes(c.per_qp.context_bytes), " per QP, ",
                          HumanBytes(c.per_qp.context_bytes * n), " in all"));
    r.Expect(s + "total", "share of the plan",
             absl::StrCat(HumanBytes(c.total()), " (", Pct(c.total(), m.total), ")"));
    if (bases.insert(c.per_qp.basis).second)
      r.Note(absl::StrCat("QP class ", q.name, ": ", c.per_qp.basis));
    if (biggest == nullptr || c.total() > biggest->total()) biggest = &c;
  }
  for (const CqMemoryRow& c : m.cqs) {
    if (!c.create_ok)
      r.Note(absl::StrCat("CQ ", c.cq->name, ": the create would fail (", c.create_error,
                          "); sized with the requested cqe"));
  }
  for (const SrqMemoryRow& s : m.srqs) {
    r.Expect(absl::StrCat(d, "SRQ ", s.srq->name, " x", s.srq->count),
             absl::StrCat(s.srq->max_wr, " WRs x ", s.srq->max_sge, " SGEs (sized as a receive queue)"),
             absl::StrCat(HumanBytes(s.bytes_each), " each, ", HumanBytes(s.total()), " in all"));
  }

  MeasureClasses(ctx, info, dev, m, r);

  const std::string total = absl::StrCat(HumanBytes(m.total), " (", plan.TotalQps(), " QPs)");
  bool over = false;
  if (plan.memory_budget) {
    const uint64_t b = *plan.memory_budget;
    Verdict v = m.total > b ? Verdict::kFail
                : static_cast<double>(m.total) > MemoryBudgetCheck::kWarnRatio * b ? Verdict::kWarn
                                                                                   : Verdict::kPass;
    r.Expect(d + "plan queue memory", absl::StrCat("<= ", HumanBytes(b), " (memory_budget)"),
             absl::StrCat(HumanBytes(m.total), ", ", Pct(m.total, b), " of the budget"), v);
    over = over || v != Verdict::kPass;
  }
  if (ctx.view.host.mem_total) {
    const uint64_t t = *ctx.view.host.mem_total;
    Verdict v = m.total > t ? Verdict::kFail
                : static_cast<double>(m.total) > MemoryBudgetCheck::kWarnRatio * t ? Verdict::kWarn
                                                                                   : Verdict::kPass;
    r.Expect(d + "plan queue memory against the host",
             absl::StrCat("<= ", HumanBytes(t), " (MemTotal)"),
             absl::StrCat(HumanBytes(m.total), ", ", Pct(m.total, t), " of MemTotal"), v);
    over = over || v != Verdict::kPass;
  }
  if (!plan.memory_budget && !ctx.view.host.mem_total) {
    r.Expect(d + "plan queue memory", "a memory_budget or host MemTotal to compare with", total,
             Verdict::kPass);
  }
  if (over && biggest != nullptr) {
    const QpClass& q = *biggest->qp;
    uint64_t limit = plan.memory_budget.value_or(ctx.view.host.mem_total.value_or(0));
    if (ctx.view.host.mem_total) limit = std::min(limit, *ctx.view.host.mem_total);
    const uint64_t cut = m.total > limit ? m.total - limit : m.total - limit * 9 / 10;
    r.Remedy(absl::StrCat("in ", plan.path, ": cut [qp ", q.name, "] (", HumanBytes(biggest->total()),
                          " of ", HumanBytes(m.total), ") by at least ", HumanBytes(cut),
                          ": lower max_send_wr/max_send_sge (each QP pays for ", biggest->granted.max_send_wr,
                          " WRs x ", biggest->granted.max_send_sge, " SGE(s)), or split it into a few deep "
                          "QPs and many of depth 256 and 4 SGEs (docs/checks/memory-budget.md)"));
    if (plan.memory_budget && m.total > *plan.memory_budget)
      r.Remedy(absl::StrCat("or, if the container/host allows it, raise memory_budget in ", plan.path,
                            " to ", HumanBytes(m.total), " or more"));
    r.Remedy(absl::StrCat("rdmacheck --plan ", plan.path, " -d ", info.name,
                          " --checks memory-budget   # shows the new total"));
  }
}

}  // namespace

Result MemoryBudgetCheck::Run(const CheckContext& ctx) const {
  const char* title = "The plan's queue memory fits its memory_budget and the host's memory";
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty())
    return ResultBuilder::Skip(*this, title, "no RDMA device to size the queues for (see device-present)");
  if (ctx.plan.qp_classes.empty() && ctx.plan.cqs.empty())
    return ResultBuilder::Skip(*this, title, "the plan has no QP classes or CQs");
  ResultBuilder r(*this, title);
  if (ctx.plan.is_default)
    r.Note("no --plan given: sized the default plan (one RC QP 128/128 WRs, CQ 256); pass --plan for "
           "the deployment's numbers");
  if (!ctx.plan.memory_budget)
    r.Note(absl::StrCat("the plan sets no memory_budget: compared with the host's memory only"));
  int sized = 0;
  for (const DeviceInfo* info : devs) {
    absl::StatusOr<std::unique_ptr<Device>> opened = ctx.OpenDevice(*info);
    if (!opened.ok()) {
      r.Note(absl::StrCat(info->name, ": no driver model or live device to size the queues with (",
                          opened.status().message(), ")"));
      continue;
    }
    std::unique_ptr<Device> dev = *std::move(opened);
    CheckDevice(ctx, *info, *dev, r);
    ++sized;
  }
  if (sized == 0)
    return ResultBuilder::CouldNotRun(*this, title,
                                      "no Device (driver model or live device) to size the queues with");
  if (!ctx.view.host.mem_total) r.Note(MissingFact("host", "mem_total"));
  return r.Build();
}

}  // namespace rdmacheck
