// The `rdmacheck` program: flag parsing, then gather -> DeviceView -> checks
// -> report. RdmacheckMain is main() for //:rdmacheck and, with a check id
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
#include "cli/exit_codes.h"  // kExitOk ... kExitNothingRan
#include "cli/flags.h"
#include "facts/device_view.h"
#include "plan/plan.h"

namespace rdmacheck {

// only_check: when non-null, the program runs that one check (per-check
// binaries); --checks/--skip are then refused.
int RdmacheckMain(int argc, char** argv, const char* only_check = nullptr);

// What a run is made of, loaded from the flags: the view (live or profile)
// and the plan. Errors name the file (and line) and are exit code 2.
struct RunInputs {
  DeviceView view;
  Plan plan;
  Options options;
};
// read_rulesets: also read the firewall rulesets when gathering live (a few
// subprocesses; only firewall-4791, capture and report need them).
absl::StatusOr<RunInputs> LoadRunInputs(const CliFlags& flags, bool read_rulesets = true);

// The Device a check acts through: the real one when the view is live,
// the driver model of its profile otherwise.
std::unique_ptr<Device> DeviceFor(const DeviceView& view, const DeviceInfo& dev);

// Exit code for a finished run: 1 if any FAIL, 3 if every check SKIPped.
int ExitCodeFor(const std::vector<Result>& results);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_CLI_H_
