// `rdmacheck diag create-qp`: the EINVAL bisector (acts/create_qp.h) on the
// command line. Takes the QP attributes (parsed from flags by
// cli/diag_flags.h) or a plan class, tries the create on the real device
// (live) or on the profile's driver model, and prints the granted caps or
// the diagnosis.
//
// The CLI owns how a run's inputs are loaded (cli/cli.h LoadRunInputs,
// DeviceFor); this library must not depend on //cli (cli_lib depends on
// diag), so the caller hands those in as a DiagEnv:
//
//   DiagEnv env{[](const std::optional<std::string>& profile,
//                  const std::optional<std::string>& plan) -> absl::StatusOr<DiagInputs> {...},
//               [](const DeviceView& v, const DeviceInfo& d) { return DeviceFor(v, d); }};
//   CreateQpCommandOptions o;
//   o.device = "rxe0";
//   o.caps[QpField::kMaxSendSge] = 64;
//   int rc = RunCreateQpCommand(o, std::cout, std::cerr, env);
//   // rc: 0 the create succeeds, 1 it fails (diagnosis printed), 2 bad input
#ifndef RDMACHECK_TOOLS_DIAG_CREATE_QP_COMMAND_H_
#define RDMACHECK_TOOLS_DIAG_CREATE_QP_COMMAND_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "acts/create_qp.h"
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

struct CreateQpCommandOptions {
  std::optional<std::string> device;    // default: the plan's, else the first
  std::optional<std::string> profile;   // default: this host, live
  std::optional<std::string> plan;      // default: DefaultPlan()
  std::optional<std::string> qp_class;  // of the plan; needed when it has several
  std::optional<QpType> type;
  std::map<QpField, uint32_t> caps;     // given ones; the rest from the class
  std::optional<uint32_t> cqe;          // the CQ the QP completes into
  bool srq = false;
  std::string format = "text";          // or "json"
};

// Exit 0 the create succeeds, 1 it fails (diagnosis printed), 2 bad input:
// an unreadable profile or plan, no such device or QP class.
int RunCreateQpCommand(const CreateQpCommandOptions& options, std::ostream& out, std::ostream& err,
                       const DiagEnv& env);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_CREATE_QP_COMMAND_H_
