#include "tools/diag/create_qp_command.h"

#include <cstdint>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "acts/create_qp.h"

namespace rdmacheck {

const char* DiagUsage() {
  return "usage: rdmacheck diag create-qp [-d DEV] [--profile FILE] [--plan FILE [--class NAME]]\n"
         "         [--type RC|UC|UD] [--max-send-wr N] [--max-recv-wr N] [--max-send-sge N]\n"
         "         [--max-recv-sge N] [--max-inline-data N] [--cqe N] [--srq]\n"
         "         [--format text|json]\n"
         "  Tries ibv_create_qp with these caps on DEV (live, or the driver model of\n"
         "  --profile) and, when it fails, names the field(s) at fault and the\n"
         "  largest value of each that the device accepts with the others fixed.\n"
         "  Caps not given come from --class of --plan, else 128/128 WRs, 1/1 SGE,\n"
         "  0 inline (the default plan). --cqe: the CQ the QP completes into.\n"
         "  exit: 0 the create succeeds, 1 it fails (diagnosis printed), 2 bad usage\n";
}

namespace {

constexpr int kOk = 0, kFails = 1, kUsage = 2;

int Usage(std::ostream& err, const std::string& why) {
  err << "rdmacheck diag: " << why << "\n" << DiagUsage();
  return kUsage;
}

struct Args {
  std::optional<std::string> device, profile, plan, cls;
  std::optional<QpType> type;
  std::map<QpField, uint32_t> caps;
  std::optional<uint32_t> cqe;
  bool srq = false;
  std::string format = "text";
};

const std::map<std::string, QpField>& CapFlags() {
  static const auto* m = new std::map<std::string, QpField>{
      {"--max-send-wr", QpField::kMaxSendWr},   {"--max-recv-wr", QpField::kMaxRecvWr},
      {"--max-send-sge", QpField::kMaxSendSge}, {"--max-recv-sge", QpField::kMaxRecvSge},
      {"--max-inline-data", QpField::kMaxInlineData}};
  return *m;
}

// Parses the flags after "create-qp"; "" when fine, else the complaint.
std::string Parse(const std::vector<std::string>& args, Args& a) {
  for (size_t i = 1; i < args.size(); ++i) {
    std::string flag = args[i], value;
    bool has_value = false;
    if (size_t eq = flag.find('='); absl::StartsWith(flag, "--") && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    if (flag == "--srq") {
      a.srq = true;
      continue;
    }
    if (!has_value) {
      if (i + 1 == args.size()) return absl::StrCat(flag, " needs a value");
      value = args[++i];
    }
    uint32_t n = 0;
    auto number = [&]() { return absl::SimpleAtoi(value, &n); };
    if (flag == "-d" || flag == "--ib-dev") {
      a.device = value;
    } else if (flag == "--profile") {
      a.profile = value;
    } else if (flag == "--plan") {
      a.plan = value;
    } else if (flag == "--class") {
      a.cls = value;
    } else if (flag == "--type") {
      a.type = ParseQpType(value);
      if (!a.type) return absl::StrCat("--type takes RC, UC or UD, got '", value, "'");
    } else if (flag == "--format") {
      if (value != "text" && value != "json")
        return absl::StrCat("--format takes text or json, got '", value, "'");
      a.format = value;
    } else if (flag == "--cqe") {
      if (!number()) return absl::StrCat("--cqe takes a count, got '", value, "'");
      a.cqe = n;
    } else if (auto it = CapFlags().find(flag); it != CapFlags().end()) {
      if (!number()) return absl::StrCat(flag, " takes a number 0..4294967295, got '", value, "'");
      a.caps[it->second] = n;
    } else {
      return absl::StrCat("unknown option '", args[i], "'");
    }
  }
  if (a.cls && !a.plan) return "--class needs --plan";
  return "";
}

int CreateQp(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const DiagEnv& env) {
  Args a;
  if (std::string why = Parse(args, a); !why.empty()) return Usage(err, why);
  absl::StatusOr<DiagInputs> in = env.load(a.profile, a.plan);
  if (!in.ok()) {
    err << "rdmacheck diag create-qp: " << in.status().message() << "\n";
    return kUsage;
  }
  const Plan& plan = in->plan;
  QpRequest req;
  DiagnoseOptions opts;
  std::vector<std::string> notes;
  const QpClass* qc = nullptr;
  if (a.plan) {
    if (a.cls) {
      for (const QpClass& q : plan.qp_classes)
        if (q.name == *a.cls) qc = &q;
    } else if (plan.qp_classes.size() == 1) {
      qc = &plan.qp_classes[0];
    }
    if (!qc) {
      std::vector<std::string> names;
      for (const QpClass& q : plan.qp_classes) names.push_back(q.name);
      return Usage(err, absl::StrCat(a.cls ? absl::StrCat("no QP class '", *a.cls, "' in ")
                                           : std::string("name a class with --class; "),
                                     *a.plan, " (classes: ", absl::StrJoin(names, ", "), ")"));
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
      err << "rdmacheck diag create-qp: no RDMA device named " << *dev_name << " in "
          << view.source << " (found: " << (names.empty() ? "none" : absl::StrJoin(names, ", "))
          << ")\n";
      return kUsage;
    }
  } else if (!view.devices.empty()) {
    info = &view.devices[0];
  } else {
    err << "rdmacheck diag create-qp: no RDMA device in " << view.source << "\n";
    return kUsage;
  }
  std::unique_ptr<Device> dev = env.device_for(view, *info);
  if (!dev) {
    err << "rdmacheck diag create-qp: cannot open " << info->name << " to create on\n";
    return kUsage;
  }
  absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(*dev, *info, req, opts);
  if (!d.ok()) {
    err << "rdmacheck diag create-qp: the create fails for a reason no cap explains: "
        << d.status().message() << "\n";
    return kFails;
  }
  d->relations.insert(d->relations.end(), notes.begin(), notes.end());
  out << (a.format == "json" ? FormatDiagnosisJson(*d) : FormatDiagnosisText(*d));
  return d->ok() ? kOk : kFails;
}

}  // namespace

int RunDiagCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                   const DiagEnv& env) {
  if (args.empty()) return Usage(err, "name a tool: create-qp");
  if (args[0] == "-h" || args[0] == "--help") {
    out << DiagUsage();
    return kOk;
  }
  if (args[0] != "create-qp") return Usage(err, absl::StrCat("unknown tool '", args[0], "'"));
  for (const std::string& s : args)
    if (s == "-h" || s == "--help") {
      out << DiagUsage();
      return kOk;
    }
  return CreateQp(args, out, err, env);
}

}  // namespace rdmacheck
