// The `rdmacheck` program: parses the flags and dispatches to the subcommand
// or to a checklist run (checks/session.h: gather -> DeviceView -> checks ->
// report). RdmacheckMain is main() for //:rdmacheck and, with a check id
// fixed, for every per-check binary //checks:<name>.
//
//   int main(int argc, char** argv) { return rdmacheck::RdmacheckMain(argc, argv); }
#ifndef RDMACHECK_CLI_CLI_H_
#define RDMACHECK_CLI_CLI_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checks/check.h"
#include "checks/session.h"
#include "cli/flags.h"
#include "facts/device_view.h"
#include "plan/plan.h"

namespace rdmacheck {

// only_check: when non-null, the program runs that one check (per-check
// binaries); --checks/--skip are then refused.
int RdmacheckMain(int argc, char** argv, const char* only_check = nullptr);

// Where the flags say the run's facts come from (--profile, --plan, -d ...).
InputSources SourcesFrom(const CliFlags& flags);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_CLI_H_
