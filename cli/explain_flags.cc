#include "cli/explain_flags.h"

#include "checks/exit_codes.h"

namespace rdmacheck {

CommandLine ExplainCommandLine(ExplainFlags* f) {
  CommandLine cl("rdmacheck explain", "[--live] [--format text|json] [--rules FILE|DIR] [FILE...]",
                 "Maps error lines of perftest, rdma-core tools, rdma_cm, UCX, NCCL, Open MPI and\n"
                 "the kernel (rdma_rxe) to cause and remedy (docs/explain.md).",
                 "Exit status: 0 no findings, 1 findings, 2 bad usage or unreadable input.");
  cl.Switch("--live", &f->live, "then run, on this host, the checks that confirm the findings")
      .Choice("--format", &f->options.format, {"text", "json"}, "the findings' format (default text)")
      .Text("--rules", &f->options.rules_path, "PATH", "use this rule file, or this directory of *.rules files, instead of the built-in rules")
      .Args("FILE", &f->options.files, "a log file; none or \"-\" reads stdin");
  return cl;
}

std::optional<int> ParseExplainFlags(const std::vector<std::string>& args, ExplainFlags* f,
                                     std::ostream& out, std::ostream& err) {
  CommandLine cl = ExplainCommandLine(f);
  if (std::optional<int> code = cl.ParseOrExit(args, out, err)) return code;
  if (f->live && f->options.format != "text") {
    err << UsageErrorLine(cl.command(),
                          "--live prints text; for one JSON with findings and check results use "
                          "`rdmacheck report --format=json LOG...`");
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace rdmacheck
