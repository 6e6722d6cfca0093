// `rdmacheck diag create-qp`: the EINVAL bisector (acts/create_qp.h) on the
// command line. Takes the QP attributes as flags or from a plan class, tries
// the create on the real device (live) or on the profile's driver model, and
// prints the granted caps or the diagnosis.
//
// The CLI owns how a run's inputs are loaded (cli/cli.h LoadRunInputs,
// DeviceFor); this library must not depend on //cli (cli_lib depends on
// diag), so the caller hands those in as a DiagEnv:
//
//   DiagEnv env{[](const std::optional<std::string>& profile,
//                  const std::optional<std::string>& plan) -> absl::StatusOr<DiagInputs> {...},
//               [](const DeviceView& v, const DeviceInfo& d) { return DeviceFor(v, d); }};
//   int rc = RunDiagCommand({"create-qp", "-d", "rxe0", "--max-send-sge", "64"},
//                           std::cout, std::cerr, env);
//   // rc: 0 the create succeeds, 1 it fails (diagnosis printed), 2 bad usage
#ifndef RDMACHECK_TOOLS_DIAG_CREATE_QP_COMMAND_H_
#define RDMACHECK_TOOLS_DIAG_CREATE_QP_COMMAND_H_

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/device.h"
#include "facts/device_view.h"
#include "plan/plan.h"

namespace rdmacheck {

struct DiagInputs {
  DeviceView view;
  Plan plan;  // DefaultPlan() when no --plan
};

struct DiagEnv {
  // Loads the view from `profile` (live when nullopt) and the plan from
  // `plan` (DefaultPlan when nullopt). Errors name the file.
  std::function<absl::StatusOr<DiagInputs>(const std::optional<std::string>& profile,
                                           const std::optional<std::string>& plan)>
      load;
  // The Device to create on: live device or driver model. Null: cannot open.
  std::function<std::unique_ptr<Device>(const DeviceView&, const DeviceInfo&)> device_for;
};

// args: the words after "diag" ("create-qp", flags...). Usage in DiagUsage().
int RunDiagCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                   const DiagEnv& env);

const char* DiagUsage();

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_CREATE_QP_COMMAND_H_
