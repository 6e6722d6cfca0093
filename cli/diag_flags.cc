#include "cli/diag_flags.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "checks/exit_codes.h"
#include "facts/rdma_types.h"

namespace rdmacheck {
namespace {

constexpr char kDiag[] = "rdmacheck diag";

// `rdmacheck diag --help`: the tools there are.
CommandLine DiagCommandLine() {
  return CommandLine(kDiag, "TOOL [FLAGS]",
                     "TOOL: create-qp, which QP attribute an EINVAL from ibv_create_qp is about\n"
                     "(rdmacheck diag create-qp --help; docs/diag-create-qp.md).");
}

}  // namespace

CommandLine CreateQpCommandLine(CreateQpCommandOptions* o) {
  CommandLine cl("rdmacheck diag create-qp", "[FLAGS]",
                 "Tries ibv_create_qp with these caps on DEV (live, or the driver model of\n"
                 "--profile) and, when it fails, names the field(s) at fault and the largest\n"
                 "value of each that the device accepts with the others fixed. Caps not given\n"
                 "come from --class of --plan, else 128/128 WRs, 1/1 SGE, 0 inline (the\n"
                 "default plan).",
                 "Exit status: 0 the create succeeds, 1 it fails (diagnosis printed), 2 bad\n"
                 "usage or input.");
  cl.Text("-d,--ib-dev", &o->device, "DEV", "the device to create on (default: the plan's, else the first)")
      .Text("--profile", &o->profile, "FILE", "create on the driver model of this profile's device")
      .Text("--plan", &o->plan, "FILE", "take the caps of a QP class of this plan")
      .Text("--class", &o->qp_class, "NAME", "that class (needed when the plan has several)")
      .Value("--type", "RC|UC|UD", "the QP type (default: the class's, else RC)", "one of RC, UC, UD",
             [o](const std::string& v) {
               o->type = ParseQpType(v);
               return o->type.has_value();
             });
  const std::pair<const char*, QpField> caps[] = {
      {"--max-send-wr", QpField::kMaxSendWr},   {"--max-recv-wr", QpField::kMaxRecvWr},
      {"--max-send-sge", QpField::kMaxSendSge}, {"--max-recv-sge", QpField::kMaxRecvSge},
      {"--max-inline-data", QpField::kMaxInlineData}};
  for (const auto& [flag, field] : caps) {
    cl.Uint32(flag, [o, f = field](uint32_t v) { o->caps[f] = v; }, "N",
              absl::StrCat("ibv_qp_cap.", QpFieldName(field)));
  }
  cl.Uint32("--cqe", &o->cqe, "N", "the CQ the QP completes into (send and receive)")
      .Switch("--srq", &o->srq, "the QP receives from an SRQ")
      .Choice("--format", &o->format, {"text", "json"}, "the diagnosis' format (default text)");
  return cl;
}

int RunDiagCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const DiagEnv& env) {
  if (args.empty()) {
    err << UsageErrorLine(kDiag, "name a tool: create-qp");
    return kExitUsage;
  }
  if (args[0] == "-h" || args[0] == "--help") {
    out << DiagCommandLine().Help();
    return kExitOk;
  }
  if (args[0] != "create-qp") {
    err << UsageErrorLine(kDiag, absl::StrCat("unknown tool '", args[0], "'"));
    return kExitUsage;
  }
  CreateQpCommandOptions o;
  CommandLine cl = CreateQpCommandLine(&o);
  if (std::optional<int> code = cl.ParseOrExit({args.begin() + 1, args.end()}, out, err)) return *code;
  if (o.qp_class && !o.plan) {
    err << UsageErrorLine(cl.command(), "--class needs --plan");
    return kExitUsage;
  }
  return RunCreateQpCommand(o, out, err, env);
}

}  // namespace rdmacheck
