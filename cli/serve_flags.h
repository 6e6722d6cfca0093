// The flags of `rdmacheck serve` (tools/peer/peer_mode.h runs it).
//
//   int code = RunServeCli({"--once", "-d", "rxe1"}, std::cout, std::cerr, gather, kToolVersion);
#ifndef RDMACHECK_CLI_SERVE_FLAGS_H_
#define RDMACHECK_CLI_SERVE_FLAGS_H_

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/command_line.h"
#include "facts/device_view.h"
#include "tools/peer/peer_mode.h"

namespace rdmacheck {

// The command line that fills *o; o must outlive it.
CommandLine ServeCommandLine(ServeOptions* o);

// args: the words after "serve". Exit codes of RunServeCommand, 2 on bad usage.
int RunServeCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const std::function<absl::StatusOr<DeviceView>(const std::optional<std::string>& profile)>& gather,
                const std::string& tool_version);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_SERVE_FLAGS_H_
