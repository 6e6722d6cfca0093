// `rdmacheck fleet FILE|DIR...`: reads the nodes' files one at a time
// (ReadNodeFile: bounded, summarised, dropped), compares the nodes
// (AnalyzeFleet) and prints the findings. Its flags are parsed in
// cli/fleet_flags.h; docs/fleet.md is the user's page.
//
//   FleetOptions o;
//   o.paths = {"/var/log/rdmacheck/"};
//   o.format = "html";
//   o.output = "fleet.html";
//   int rc = RunFleetCommand(o, std::cout, std::cerr);   // 0, 1 or 2: FleetExitCode
#ifndef RDMACHECK_TOOLS_FLEET_FLEET_COMMAND_H_
#define RDMACHECK_TOOLS_FLEET_FLEET_COMMAND_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tools/fleet/fleet.h"
#include "tools/fleet/node_summary.h"

namespace rdmacheck {

struct FleetOptions {
  std::vector<std::string> paths;       // files and directories
  std::string format = "text";          // "json", "html"
  std::optional<std::string> output;    // -o: write there instead of `out`
  FactOptions facts;
};

// Reads every file of `paths` into a FleetInput: one NodeSummary per node,
// the rest as unreadable or duplicate (a node name read already: the
// message names both files).
FleetInput ReadFleet(const std::vector<std::string>& paths, const FactOptions& options);

// Exit code of FleetExitCode; 2 as well when -o cannot be written. With -o,
// the files left out are named on `err` too (the report is not on screen).
int RunFleetCommand(const FleetOptions& options, std::ostream& out, std::ostream& err);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_FLEET_FLEET_COMMAND_H_
