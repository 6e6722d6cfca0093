// The flags of `rdmacheck fleet` (tools/fleet/fleet_command.h runs it).
//
//   int code = RunFleetCli({"--format=html", "-o", "fleet.html", "out/"}, std::cout, std::cerr);
#ifndef RDMACHECK_CLI_FLEET_FLAGS_H_
#define RDMACHECK_CLI_FLEET_FLAGS_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "tools/fleet/fleet_command.h"

namespace rdmacheck {

// The command line that fills *o; o must outlive it.
CommandLine FleetCommandLine(FleetOptions* o);

// args: the words after "fleet". Exit codes of RunFleetCommand, 2 on bad
// usage (no FILE or DIR; --format=html without -o).
int RunFleetCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_FLEET_FLAGS_H_
