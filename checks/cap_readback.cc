#include "checks/cap_readback.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "acts/create_qp.h"

namespace rdmacheck {
namespace {

constexpr QpField kFields[] = {QpField::kMaxSendWr, QpField::kMaxRecvWr, QpField::kMaxSendSge,
                               QpField::kMaxRecvSge, QpField::kMaxInlineData};

bool IsDepth(QpField f) { return f == QpField::kMaxSendWr || f == QpField::kMaxRecvWr; }
bool IsRecv(QpField f) { return f == QpField::kMaxRecvWr || f == QpField::kMaxRecvSge; }

std::string Arrow(uint32_t asked, uint32_t got) {
  if (asked == got) return absl::StrCat(asked, " -> ", got, " (as asked)");
  std::string s = absl::StrCat(asked, " -> ", got, " (", got > asked ? "+" : "-",
                               got > asked ? got - asked : asked - got);
  if (asked > 0) absl::StrAppend(&s, absl::StrFormat(", %.2fx", static_cast<double>(got) / asked));
  return s + ")";
}

std::string PlanWhere(const Plan& plan) {
  return plan.is_default ? std::string("the plan") : plan.path;
}

// The CQ the class completes into when it has one CQ of its own per QP, for
// the bisector's CQ relation; shared CQs are cq-depth's business.
std::optional<uint32_t> OwnCqe(const Plan& plan, const QpClass& q) {
  const std::string& name = q.send_cq.empty() ? q.recv_cq : q.send_cq;
  const CqSpec* cq = plan.Cq(name);
  bool one = q.recv_cq.empty() || q.send_cq.empty() || q.recv_cq == q.send_cq;
  if (cq && one && cq->count >= q.count) return cq->cqe;
  return std::nullopt;
}

void Refused(const CheckContext& ctx, const DeviceInfo& info, Device& dev, const QpClass& q,
             const QpRequest& req, const absl::Status& st, const std::string& prefix,
             ResultBuilder& r) {
  r.Expect(prefix + " ibv_create_qp", "succeeds", std::string(st.message()), Verdict::kFail);
  DiagnoseOptions o;
  o.cqe = OwnCqe(ctx.plan, q);
  if (const SrqSpec* s = ctx.plan.Srq(q.srq)) {
    o.srq_max_wr = s->max_wr;
    o.srq_max_sge = s->max_sge;
  }
  absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(dev, info, req, o);
  const std::string sec = absl::StrCat("[qp ", q.name, "] ");
  if (!d.ok()) {
    r.Note(absl::StrCat("bisector: the failure is not about the caps: ", d.status().message()));
    return;
  }
  for (const CreateQpFinding& fd : d->findings) {
    const std::string field(QpFieldName(fd.field));
    const bool cause = fd.over_limit || (fd.searched && fd.largest_accepted &&
                                         *fd.largest_accepted < fd.requested);
    if (!cause) continue;
    std::string expected =
        fd.over_limit ? absl::StrCat("<= ", *fd.limit, " (", fd.limit_name, ")")
                      : std::string("accepted together with the other caps");
    std::string actual = absl::StrCat(fd.requested);
    if (fd.largest_accepted)
      absl::StrAppend(&actual, "; largest accepted ", *fd.largest_accepted);
    r.Expect(absl::StrCat(prefix, " ", field), expected, actual, Verdict::kFail);
    if (fd.largest_accepted) {
      r.Remedy(absl::StrCat("in ", PlanWhere(ctx.plan), ": set ", sec, field, " to ",
                            *fd.largest_accepted, " or less"));
    }
  }
  std::vector<std::string> lines = d->Verdict();
  for (size_t i = 1; i < lines.size(); ++i) r.Note(absl::StrCat("bisector: ", lines[i]));
  r.Remedy(absl::StrCat("rdmacheck diag create-qp -d ", info.name,
                        ctx.plan.is_default ? std::string()
                                            : absl::StrCat(" --plan ", ctx.plan.path,
                                                           " --class ", q.name),
                        "   # exits 0 once the create succeeds"));
}

void Granted(const CheckContext& ctx, const DeviceInfo& info, Device& dev, const QpClass& q,
             const QpRequest& req, const QpCaps& got, const std::string& prefix,
             ResultBuilder& r) {
  std::vector<QpField> over;
  for (QpField f : kFields) {
    if (req.with_srq && IsRecv(f)) continue;
    const uint32_t a = GetField(req.caps, f), g = GetField(got, f);
    Verdict v = Verdict::kPass;
    if (IsDepth(f) && a > 0 && g >= CapReadbackCheck::kWarnRatio * a) {
      v = Verdict::kWarn;
      over.push_back(f);
    }
    r.Expect(absl::StrCat(prefix, " ", QpFieldName(f)),
             IsDepth(f) ? absl::StrFormat("%u requested, granted < %.1fx", a,
                                          CapReadbackCheck::kWarnRatio)
                        : absl::StrCat(a, " requested"),
             Arrow(a, g), v);
  }
  const QueueMemory mem = dev.QpMemory(req, got);
  const QueueMemory asked_mem = dev.QpMemory(req, req.caps);
  if (over.empty()) {
    r.Expect(absl::StrCat(prefix, " queue memory per QP"),
             absl::StrCat(HumanBytes(asked_mem.total()), " for the requested caps"),
             absl::StrCat(HumanBytes(mem.total()), " for the granted caps; x", q.count, " = ",
                          HumanBytes(mem.total() * q.count)));
    return;
  }
  // The request that gets exactly what it needs, computed from the device:
  // for each overshooting depth the largest request whose grant fits.
  QpRequest fit = req;
  std::vector<std::string> sets;
  for (QpField f : over) {
    std::optional<uint32_t> v = LargestExactRequest(dev, req, f);
    if (v) {
      SetField(fit.caps, f, *v);
      sets.push_back(absl::StrCat(QpFieldName(f), " = ", *v));
    }
  }
  absl::StatusOr<QpCaps> fit_got = dev.CreateQp(fit);
  std::string expected = absl::StrCat(HumanBytes(asked_mem.total()), " for the requested caps");
  if (fit_got.ok() && !sets.empty()) {
    const QueueMemory fm = dev.QpMemory(fit, *fit_got);
    expected = absl::StrCat(HumanBytes(fm.total()), " asking ", absl::StrJoin(sets, ", "));
    std::vector<std::string> grants;
    for (QpField f : over)
      grants.push_back(absl::StrCat(QpFieldName(f), " ", GetField(*fit_got, f)));
    r.Remedy(absl::StrCat("in ", PlanWhere(ctx.plan), ": set [qp ", q.name, "] ",
                          absl::StrJoin(sets, " and "), " (granted ", absl::StrJoin(grants, ", "),
                          ": at most what was asked)"));
    if (mem.total() > fm.total()) {
      r.Note(absl::StrCat(prefix, ": the overshoot costs ", HumanBytes(mem.total() - fm.total()),
                          " per QP, ", HumanBytes((mem.total() - fm.total()) * q.count),
                          " for ", q.count, " QPs (", mem.basis, ")"));
    }
  }
  r.Expect(absl::StrCat(prefix, " queue memory per QP"), expected,
           absl::StrCat(HumanBytes(mem.total()), " for the granted caps; x", q.count, " = ",
                        HumanBytes(mem.total() * q.count)),
           Verdict::kWarn);
  r.Note(absl::StrCat(prefix, ": size CQs and buffer pools from the granted depths, not the "
                      "requested ones (docs/checks/cap-readback.md)"));
  r.Remedy(absl::StrCat("rdmacheck diag create-qp -d ", info.name,
                        ctx.plan.is_default ? std::string()
                                            : absl::StrCat(" --plan ", ctx.plan.path,
                                                           " --class ", q.name),
                        "   # prints the granted caps"));
}

}  // namespace

Result CapReadbackCheck::Run(const CheckContext& ctx) const {
  const char* title = "The driver grants each plan QP class its caps as asked";
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty())
    return ResultBuilder::Skip(*this, title, "no RDMA device to look at (see device-present)");
  if (ctx.plan.qp_classes.empty())
    return ResultBuilder::Skip(*this, title, "the plan has no QP class to create");
  ResultBuilder r(*this, title);
  if (ctx.plan.is_default)
    r.Note("no --plan given: created the default plan's QP (RC, 128/128 WRs, 1/1 SGE); pass "
           "--plan for the deployment's caps");
  int created_on = 0;
  for (const DeviceInfo* info : devs) {
    absl::StatusOr<std::unique_ptr<Device>> opened = ctx.OpenDevice(*info);
    if (!opened.ok()) {
      r.Note(absl::StrCat("could not open ", info->name, " (or no driver model for it) to create on: ",
                          opened.status().message()));
      continue;
    }
    std::unique_ptr<Device> dev = *std::move(opened);
    ++created_on;
    r.Note(absl::StrCat(info->name, ": created on ", dev->Describe()));
    for (const QpClass& q : ctx.plan.qp_classes) {
      QpRequest req{q.type, q.caps, !q.srq.empty()};
      const std::string prefix =
          absl::StrCat(info->name, ": QP class ", q.name, " (", QpTypeName(q.type), ")");
      absl::StatusOr<QpCaps> got = dev->CreateQp(req);
      if (got.ok()) {
        Granted(ctx, *info, *dev, q, req, *got, prefix, r);
      } else {
        Refused(ctx, *info, *dev, q, req, got.status(), prefix, r);
      }
    }
  }
  if (created_on == 0) {
    if (ctx.view.live())
      return ResultBuilder::CouldNotRun(*this, title, "could not open any selected device");
    return ResultBuilder::Skip(*this, title, "no Device to create QPs on for this profile");
  }
  return r.Build();
}

}  // namespace rdmacheck
