#include "tools/diag/create_qp_command.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "acts/create_qp.h"
#include "tools/diag/create_qp_output.h"

namespace rdmacheck {
namespace {

constexpr int kOk = 0, kFails = 1, kBadInput = 2;
constexpr char kPrefix[] = "rdmacheck diag create-qp: ";

}  // namespace

int RunCreateQpCommand(const CreateQpCommandOptions& a, std::ostream& out, std::ostream& err,
                       const DiagEnv& env) {
  absl::StatusOr<DiagInputs> in = env.load(a.profile, a.plan);
  if (!in.ok()) {
    err << kPrefix << in.status().message() << "\n";
    return kBadInput;
  }
  const Plan& plan = in->plan;
  QpRequest req;
  DiagnoseOptions opts;
  std::vector<std::string> notes;
  const QpClass* qc = nullptr;
  if (a.plan) {
    if (a.qp_class) {
      for (const QpClass& q : plan.qp_classes)
        if (q.name == *a.qp_class) qc = &q;
    } else if (plan.qp_classes.size() == 1) {
      qc = &plan.qp_classes[0];
    }
    if (!qc) {
      std::vector<std::string> names;
      for (const QpClass& q : plan.qp_classes) names.push_back(q.name);
      err << kPrefix
          << (a.qp_class ? absl::StrCat("no QP class '", *a.qp_class, "' in ")
                         : std::string("name a class with --class; "))
          << *a.plan << " (classes: " << absl::StrJoin(names, ", ") << ")\n";
      return kBadInput;
    }
  } else {
    static const Plan* def = new Plan(DefaultPlan());
    qc = &def->qp_classes[0];
  }
  req.type = qc->type;
  req.caps = qc->caps;
  req.with_srq = !qc->srq.empty();
  if (a.plan) {
    if (const SrqSpec* s = plan.Srq(qc->srq)) {
      opts.srq_max_wr = s->max_wr;
      opts.srq_max_sge = s->max_sge;
    }
    const std::string& cq = qc->send_cq.empty() ? qc->recv_cq : qc->send_cq;
    const CqSpec* spec = plan.Cq(cq);
    bool one_cq = qc->recv_cq.empty() || qc->send_cq.empty() || qc->recv_cq == qc->send_cq;
    if (spec && one_cq && spec->count >= qc->count) {
      opts.cqe = spec->cqe;
    } else if (spec) {
      notes.push_back(absl::StrCat("CQ ", cq, " is shared by several QPs or split send/recv: ",
                                   "run `rdmacheck --checks cq-depth --plan ", *a.plan, "`"));
    }
  }
  if (a.type) req.type = *a.type;
  if (a.srq) req.with_srq = true;
  for (const auto& [f, v] : a.caps) SetField(req.caps, f, v);
  if (a.cqe) opts.cqe = a.cqe;

  const DeviceView& view = in->view;
  std::optional<std::string> dev_name = a.device;
  if (!dev_name && plan.device) dev_name = plan.device;
  const DeviceInfo* info = nullptr;
  if (dev_name) {
    info = view.Device(*dev_name);
    if (!info) {
      std::vector<std::string> names;
      for (const DeviceInfo& d : view.devices) names.push_back(d.name);
      err << kPrefix << "no RDMA device named " << *dev_name << " in "
          << view.source << " (found: " << (names.empty() ? "none" : absl::StrJoin(names, ", "))
          << ")\n";
      return kBadInput;
    }
  } else if (!view.devices.empty()) {
    info = &view.devices[0];
  } else {
    err << kPrefix << "no RDMA device in " << view.source << "\n";
    return kBadInput;
  }
  std::unique_ptr<Device> dev = env.device_for(view, *info);
  if (!dev) {
    err << kPrefix << "cannot open " << info->name << " to create on\n";
    return kBadInput;
  }
  absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(*dev, *info, req, opts);
  if (!d.ok()) {
    err << kPrefix << "the create fails for a reason no cap explains: "
        << d.status().message() << "\n";
    return kFails;
  }
  d->relations.insert(d->relations.end(), notes.begin(), notes.end());
  out << (a.format == "json" ? FormatDiagnosisJson(*d) : FormatDiagnosisText(*d));
  return d->ok() ? kOk : kFails;
}

}  // namespace rdmacheck
