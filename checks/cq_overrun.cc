#include "checks/cq_overrun.h"

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "acts/probe/gid_choice.h"
#include "util/side_by_side.h"

namespace rdmacheck {
namespace {

int CqErrCount(const CqOverrunResult& r) {
  int n = 0;
  for (const TimedEvent& e : r.events) n += e.what.rfind("IBV_EVENT_CQ_ERR", 0) == 0 ? 1 : 0;
  return n;
}

std::string Statuses(const CqOverrunResult& r) {
  std::vector<std::string> parts;
  for (const auto& [status, n] : r.statuses) parts.push_back(absl::StrCat(n, " ", status));
  return parts.empty() ? "none" : absl::StrJoin(parts, ", ");
}

// The plan's CQs, for the note that says what the finding means for them.
std::string PlanCqs(const Plan& plan) {
  std::vector<std::string> cqs;
  for (const CqSpec& c : plan.cqs) cqs.push_back(absl::StrCat(c.name, " (cqe ", c.cqe, " x", c.count, ")"));
  return absl::StrJoin(cqs, ", ");
}

}  // namespace

std::string CqOverrunFinding(const CqOverrunResult& r) {
  std::string s = r.cq_err_seconds ? absl::StrCat(r.device, " signals a CQ overrun with IBV_EVENT_CQ_ERR after ",
                                                  Ms(*r.cq_err_seconds))
                                   : absl::StrCat(r.device, " raised no IBV_EVENT_CQ_ERR");
  absl::StrAppend(&s, "; QP ", r.qp_state_after == "RTS" ? "stayed in RTS" : absl::StrCat("moved to ", r.qp_state_after),
                  "; ", r.polled, " completion", r.polled == 1 ? "" : "s", " kept, ", r.Lost(), " lost");
  return s;
}

Result CqOverrunCheck::Run(const CheckContext& ctx) const {
  const std::string title = "A CQ overrun is signalled (IBV_EVENT_CQ_ERR), not silent";
  if (!ctx.view.live()) return ResultBuilder::Skip(*this, title, "needs a live device");
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) return ResultBuilder::Skip(*this, title, "no RDMA device");
  if (!ctx.device_for) return ResultBuilder::CouldNotRun(*this, title, "no Device to run the probe on");
  ResultBuilder b(*this, title);
  std::vector<std::string> findings;
  bool silent = false;
  struct Job {
    const DeviceInfo* dev;
    std::unique_ptr<Device> d;
    CqOverrunRequest req;
    absl::StatusOr<CqOverrunResult> got = absl::UnknownError("not run");
  };
  std::vector<Job> jobs;
  for (const DeviceInfo* dev : devs) {
    std::vector<const PortInfo*> ports = ctx.SelectedPorts(*dev);
    const int port = ports.empty() ? 1 : ports[0]->port_num;
    std::unique_ptr<Device> d = OpenOrWarn(ctx, *dev, "CQ overrun probe", b);
    if (d == nullptr) continue;
    CqOverrunRequest req;
    req.device = dev->name;
    req.port = port;
    req.cqe = kSmallCqe;
    req.deadline_s = ctx.options.probe_deadline_s;
    req.gid_index = ctx.options.gid_index;
    if (!req.gid_index) {
      // The GID an operator would pick, from the facts already gathered.
      const PortInfo* p = dev->Port(port);
      if (p && p->gids_known) {
        absl::StatusOr<GidEntry> g =
            ChooseGid(p->gids, std::nullopt, dev->name, ctx.plan.ip_version.value_or(4) == 6);
        if (g.ok()) req.gid_index = g->index;
      }
    }
    jobs.push_back({dev, std::move(d), req});
  }
  // Each probe is loopback on its own device, and most of its time is quiet
  // periods (events settling, the CQ draining): side by side, they overlap.
  std::vector<std::string> thrown =
      SideBySide(jobs.size(), [&jobs](size_t i) { jobs[i].got = jobs[i].d->RunCqOverrunProbe(jobs[i].req); });
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!thrown[i].empty()) jobs[i].got = absl::InternalError(absl::StrCat("internal error: ", thrown[i]));
  for (Job& job : jobs) {
    const DeviceInfo* dev = job.dev;
    const absl::StatusOr<CqOverrunResult>& got = job.got;
    if (absl::IsUnimplemented(got.status())) {
      return ResultBuilder::Skip(*this, title, std::string(got.status().message()));
    }
    if (!got.ok()) {
      b.Expect(absl::StrCat(dev->name, " CQ overrun probe setup"), "RC QP pair on a CQ of 4",
               std::string(got.status().message()), Verdict::kWarn);
      b.Note(absl::StrCat("could not carry out the CQ overrun probe on ", dev->name));
      if (absl::IsFailedPrecondition(got.status()))
        b.Remedy(absl::StrCat("rdmacheck --checks port-active -d ", dev->name));
      continue;
    }
    const CqOverrunResult& r = *got;
    const std::string n = r.device + " ";
    b.Expect(n + "small CQ and burst",
             absl::StrCat("cqe ", r.requested_cqe, " asked, more signaled WRs than it holds"),
             absl::StrCat("cqe ", r.granted_cqe, " granted; ", r.posted, " signaled RDMA WRITEs of 64 B posted in ",
                          Ms(r.post_seconds), " (send queue ", r.granted_send_wr, ", loopback on ", r.device,
                          " GID ", r.gid_index, " ", r.gid, ", set up in ", Ms(r.setup_seconds), ")"));
    if (!r.post_error.empty()) b.Note(absl::StrCat("the burst stopped early: ", r.post_error));
    if (r.interrupted) {
      b.Note("interrupted (SIGINT): every resource was released");
      b.Raise(Verdict::kWarn);
    }
    const int cq_errs = CqErrCount(r);
    const bool lost = r.Lost() > 0;
    const bool detected = r.cq_err_seconds.has_value();
    b.Expect(n + "CQ overrun event", "IBV_EVENT_CQ_ERR",
             detected ? absl::StrCat("IBV_EVENT_CQ_ERR after ", Ms(*r.cq_err_seconds), " (", cq_errs,
                                     " CQ_ERR event", cq_errs == 1 ? "" : "s", " in all)")
                      : absl::StrCat("none within ", absl::StrFormat("%g", ctx.options.probe_deadline_s), " s"),
             detected || r.interrupted ? Verdict::kPass : Verdict::kWarn);
    b.Expect(n + "sender QP state after the overrun", "reported (ibv_query_qp)", r.qp_state_after);
    b.Expect(n + "completions polled after the burst",
             absl::StrCat(r.posted, " posted, at most ", r.granted_cqe, " fit"),
             absl::StrCat(r.polled, " of ", r.posted, " (", Statuses(r), "); ", r.Lost(), " lost"),
             lost && !detected && !r.interrupted ? Verdict::kWarn : Verdict::kPass);
    b.Expect(n + "a WR posted after the drain", "reported", absl::StrCat(r.next_wr, "; QP ", r.qp_state_final));
    std::vector<std::string> others;
    for (const TimedEvent& e : r.events)
      if (e.what.rfind("IBV_EVENT_CQ_ERR", 0) != 0) others.push_back(absl::StrCat(e.what, " at ", Ms(e.seconds)));
    if (!others.empty()) b.Note(absl::StrCat("other async events: ", absl::StrJoin(others, "; ")));
    if (!detected && !lost && !r.interrupted) {
      b.Note(absl::StrCat(r.device, " kept all ", r.posted, " completions in a CQ granted ", r.granted_cqe,
                          " entries: no overrun could be made here"));
      b.Raise(Verdict::kWarn);
    }
    if (!detected && lost && !r.interrupted) silent = true;
    findings.push_back(CqOverrunFinding(r));
  }
  for (const std::string& f : findings) b.Note(f);
  const std::string plan_cqs = PlanCqs(ctx.plan);
  const std::string plan_arg = ctx.plan.is_default ? "" : absl::StrCat(" --plan ", ctx.plan.path);
  const std::string dev_arg = devs.size() == 1 ? absl::StrCat(" -d ", devs[0]->name) : "";
  b.Note(absl::StrCat(
      "for the plan", plan_cqs.empty() ? "" : absl::StrCat("'s CQs ", plan_cqs),
      ": a CQ smaller than the granted send + receive WRs of the QPs completing into it overruns like this "
      "under load; cq-depth checks each (rdmacheck", plan_arg, dev_arg, " --checks cq-depth)"));
  if (silent) {
    b.Remedy(absl::StrCat("size every CQ for the granted max_send_wr + max_recv_wr of its QPs and SRQs: rdmacheck",
                          plan_arg, dev_arg, " --checks cq-depth   # gives the cqe to ask for"));
    b.Remedy("do not rely on IBV_EVENT_CQ_ERR on this device: count posted signaled WRs against polled "
             "completions in the application");
    b.Remedy(absl::StrCat("rdmacheck", plan_arg, dev_arg, " --checks cq-depth,cq-overrun   # shows the fix took"));
  }
  if (!findings.empty()) b.Title(absl::StrJoin(findings, "; "));
  return b.Build();
}

}  // namespace rdmacheck
