#include "cli/fleet_flags.h"

#include "checks/exit_codes.h"

namespace rdmacheck {

CommandLine FleetCommandLine(FleetOptions* o) {
  CommandLine cl("rdmacheck fleet", "[--format text|json|html] [-o FILE] [-x N] FILE|DIR...",
                 "Compares many nodes' outputs, one file per node: JSON reports (rdmacheck\n"
                 "--format=json), support bundles (rdmacheck report --format=json) and profiles\n"
                 "(rdmacheck capture). Directories are read recursively. Prints each check's\n"
                 "verdicts across the nodes, the facts that differ from the fleet's majority, the\n"
                 "figures far from their peers', and the odd nodes grouped by what is wrong with\n"
                 "them (docs/fleet.md).",
                 "Exit status: 0 nothing FAILed or differs, 1 some node FAILs or differs or a file\n"
                 "could not be read, 2 bad usage or no file readable.");
  cl.Choice("--format", &o->format, {"text", "json", "html"}, "the report's format (default text; html needs -o)")
      .Text("-o,--output", &o->output, "FILE", "write the report there instead of stdout")
      .Int("-x,--gid-index", &o->facts.gid_index, 0, 255, "N",
           "the GID index the deployment uses: compare its type\n"
           "(default: compare the index of the IPv4 RoCE v2 entry)")
      .Args("FILE|DIR", &o->paths, "a node's report, bundle or profile, or a directory of them");
  return cl;
}

int RunFleetCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  FleetOptions o;
  CommandLine cl = FleetCommandLine(&o);
  if (std::optional<int> code = cl.ParseOrExit(args, out, err)) return *code;
  if (o.paths.empty()) {
    err << UsageErrorLine(cl.command(), "give the nodes' files or a directory of them");
    return kExitUsage;
  }
  if (o.format == "html" && !o.output) {
    err << UsageErrorLine(cl.command(), "--format=html needs -o FILE (a page, not terminal text)");
    return kExitUsage;
  }
  return RunFleetCommand(o, out, err);
}

}  // namespace rdmacheck
