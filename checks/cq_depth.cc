#include "checks/cq_depth.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }

// What the busiest CQ of a spec must hold, and who puts it there.
struct Load {
  uint64_t need = 0;       // completions outstanding on the busiest CQ of the spec
  uint64_t all = 0;        // over every CQ of the spec, for the count remedy
  std::vector<std::string> parts;  // "QPs worker x1 can have 4095 send + 4095 recv"
};

Load LoadOf(const Plan& plan, const CqSpec& cq, Device& dev, ResultBuilder& r,
            const std::string& devname) {
  Load l;
  for (const QpClass& q : plan.qp_classes) {
    const bool send = q.send_cq == cq.name;
    const bool recv = q.recv_cq == cq.name && q.srq.empty();
    if (!send && !recv) continue;
    QpRequest req{q.type, q.caps, !q.srq.empty()};
    absl::StatusOr<QpCaps> g = dev.CreateQp(req);
    QpCaps caps = q.caps;
    if (g.ok()) {
      caps = *g;
    } else {
      r.Note(absl::StrCat(devname, ": QP class ", q.name, ": the create would fail (",
                          g.status().message(), "); counted with the requested caps"));
    }
    const uint64_t per_qp = (send ? uint64_t{caps.max_send_wr} : 0) + (recv ? uint64_t{caps.max_recv_wr} : 0);
    // The QPs of a class are spread evenly over the CQs of the spec; the
    // busiest CQ gets ceil(count / cq count) of them.
    const uint64_t qps = CeilDiv(q.count, cq.count);
    l.need += qps * per_qp;
    l.all += uint64_t{q.count} * per_qp;
    std::vector<std::string> terms;
    if (send) terms.push_back(absl::StrCat(caps.max_send_wr, " send"));
    if (recv) terms.push_back(absl::StrCat(caps.max_recv_wr, " recv"));
    l.parts.push_back(absl::StrCat("QPs ", q.name, " x", qps, " can have ", qps > 1 ? absl::StrCat(qps, " x (") : "",
                                   absl::StrJoin(terms, " + "), qps > 1 ? ")" : ""));
  }
  // SRQs whose receives complete here: an SRQ's WRs may all complete into
  // one CQ (whichever QP takes them), so each CQ of the spec is charged a
  // whole SRQ (or more when there are more SRQs than CQs). SRQ depth is taken
  // as asked: no Device call models SRQ rounding.
  for (const SrqSpec& s : plan.srqs) {
    bool here = false;
    for (const QpClass& q : plan.qp_classes) here = here || (q.srq == s.name && q.recv_cq == cq.name);
    if (!here) continue;
    const uint64_t n = CeilDiv(s.count, cq.count);
    l.need += n * s.max_wr;
    l.all += uint64_t{s.count} * s.max_wr;
    l.parts.push_back(absl::StrCat("SRQ ", s.name, " x", n, " can have ", s.max_wr, " recv (as asked)"));
  }
  return l;
}

void CheckDevice(const CheckContext& ctx, const DeviceInfo& info, Device& dev, ResultBuilder& r,
                 int& rows) {
  const Plan& plan = ctx.plan;
  for (const CqSpec& cq : plan.cqs) {
    Load l = LoadOf(plan, cq, dev, r, info.name);
    const std::string subject = absl::StrCat(info.name, ": CQ ", cq.name, cq.count > 1 ? absl::StrCat(" (each of ", cq.count, ")") : "");
    if (l.parts.empty()) {
      r.Note(absl::StrCat("CQ ", cq.name, ": no QP or SRQ of the plan completes into it"));
      continue;
    }
    ++rows;
    const std::string expected =
        absl::StrCat(">= ", l.need, " completions: ", absl::StrJoin(l.parts, ", "), " outstanding");
    absl::StatusOr<uint32_t> g = dev.CreateCq(cq.cqe);
    if (!g.ok()) {
      r.Expect(subject, expected, absl::StrCat("cannot be created: ", g.status().message()), Verdict::kFail);
    } else {
      const bool ok = *g >= l.need;
      r.Expect(subject, expected,
               absl::StrCat("holds ", *g, " completions",
                            *g != cq.cqe ? absl::StrCat(" (cqe ", cq.cqe, " asked, ", *g, " granted)") : ""),
               ok ? Verdict::kPass : Verdict::kFail);
      if (ok) continue;
    }
    // The cqe to ask for: the need itself, if the driver grants at least
    // that for it (rxe, mlx4, mlx5 round up to 2^k - 1); else more CQs.
    absl::StatusOr<uint32_t> fit = l.need <= UINT32_MAX ? dev.CreateCq(static_cast<uint32_t>(l.need))
                                                         : absl::StatusOr<uint32_t>(absl::OutOfRangeError("over 2^32"));
    if (fit.ok() && *fit >= l.need) {
      r.Remedy(absl::StrCat("in ", plan.path, ": set [cq ", cq.name, "] cqe = ", l.need, "   # ", info.name,
                            " grants ", *fit, " for it"));
    } else {
      std::optional<uint64_t> max_cqe = info.Attr("max_cqe");
      absl::StatusOr<uint32_t> biggest = max_cqe ? dev.CreateCq(static_cast<uint32_t>(*max_cqe))
                                                 : absl::StatusOr<uint32_t>(absl::NotFoundError("max_cqe"));
      if (biggest.ok() && *biggest > 0) {
        r.Remedy(absl::StrCat("in ", plan.path, ": one CQ of ", info.name, " holds at most ", *biggest,
                              " completions: set [cq ", cq.name, "] count = ", CeilDiv(l.all, *biggest),
                              " and cqe = ", *biggest, " (more CQs, the QPs spread over them), or lower the "
                              "QPs' max_send_wr/max_recv_wr"));
      } else {
        r.Remedy(absl::StrCat("in ", plan.path, ": lower the max_send_wr/max_recv_wr of the QPs on [cq ",
                              cq.name, "] or spread them over more CQs ([cq ", cq.name, "] count)"));
      }
    }
    r.Remedy(absl::StrCat("rdmacheck --plan ", plan.path, " -d ", info.name, " --checks cq-depth   # shows the new sizes"));
  }
}

}  // namespace

Result CqDepthCheck::Run(const CheckContext& ctx) const {
  const char* title = "Every CQ holds the completions of the queues that share it";
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty())
    return ResultBuilder::Skip(*this, title, "no RDMA device to size the CQs for (see device-present)");
  if (ctx.plan.cqs.empty()) return ResultBuilder::Skip(*this, title, "the plan declares no CQ");
  ResultBuilder r(*this, title);
  if (ctx.plan.is_default)
    r.Note("no --plan given: checked the default plan (one RC QP 128/128 WRs on a CQ of 256)");
  int rows = 0, asked = 0;
  for (const DeviceInfo* info : devs) {
    absl::StatusOr<std::unique_ptr<Device>> opened = ctx.OpenDevice(*info);
    if (!opened.ok()) {
      r.Note(absl::StrCat(info->name, ": no driver model or live device to read granted sizes from (",
                          opened.status().message(), ")"));
      continue;
    }
    std::unique_ptr<Device> dev = *std::move(opened);
    ++asked;
    r.Note(absl::StrCat(info->name, ": granted sizes from the ", dev->Describe()));
    CheckDevice(ctx, *info, *dev, r, rows);
  }
  if (asked == 0)
    return ResultBuilder::CouldNotRun(*this, title, "no Device (driver model or live device) to ask for granted sizes");
  if (rows == 0) return ResultBuilder::Skip(*this, title, "no QP or SRQ of the plan completes into a CQ");
  if (r.verdict() == Verdict::kFail)
    r.Note("no driver checked here (rxe, mlx5, mlx4) refuses such a QP: the create succeeds and the CQ "
           "overflows under load (measured on rxe, kernel 6.1: IBV_EVENT_CQ_ERR per lost completion, "
           "the completions that do not fit are lost, the QP stays in RTS; see cq-overrun)");
  return r.Build();
}

}  // namespace rdmacheck
