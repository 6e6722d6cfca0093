// Command-line flags of `rdmacheck` (a run, capture, list, report), in the
// conventions of ibv_devinfo and perftest (-d/--ib-dev, -i/--ib-port,
// -x/--gid-index), on the one parser (cli/command_line.h). Parsing only: no
// decisions, no I/O. explain, diag, watch, serve and fleet keep their words
// in `rest`; their flags are in cli/explain_flags.h, diag_flags.h,
// watch_flags.h, serve_flags.h and fleet_flags.h.
//
//   absl::StatusOr<CliFlags> f = ParseFlags({"-d", "rxe0", "--format=json"});
#ifndef RDMACHECK_CLI_FLAGS_H_
#define RDMACHECK_CLI_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rdmacheck {

struct CliFlags {
  // "" (run the checks), "capture", "list", "report", "explain", "diag",
  // "watch", "serve", "fleet".
  std::string command;
  std::optional<std::string> device;     // -d, --ib-dev
  std::optional<int> port;               // -i, --ib-port
  std::optional<int> gid_index;          // -x, --gid-index
  std::optional<std::string> profile;    // --profile FILE
  std::vector<std::string> from;         // --from FILE, repeated: pastes to merge
  std::optional<std::string> plan;       // --plan FILE
  std::optional<std::string> output;     // -o, --output FILE
  std::optional<std::string> peer;       // --peer HOST[:PORT] (rdmacheck serve there)
  std::string format = "text";           // --format text|json|junit|npd|prometheus
  std::string checks;                    // --checks GLOBS
  std::string skip;                      // --skip GLOBS
  std::string color = "auto";            // --color auto|always|never
  double check_deadline_s = 10;          // --check-deadline SECONDS
  double probe_deadline_s = 2;           // --probe-deadline SECONDS (traffic probes, per WR)
  // --window SECONDS; 0: not given (a run then watches for 2 s, a capture
  // takes no window).
  double window_s = 0;
  bool help = false;                     // -h, --help
  bool version = false;                  // --version
  bool timing = false;                   // --timing: where the time went, on stderr
  // Arguments after a subcommand that takes its own (explain, diag), or
  // report's log files.
  std::vector<std::string> rest;
};

// args excludes argv[0]. InvalidArgument names the flag as typed and what it
// takes ("-i: '0' is not a whole number from 1 to 255"); print it with
// UsageErrorLine.
absl::StatusOr<CliFlags> ParseFlags(const std::vector<std::string>& args);

// The --help text.
std::string UsageText();

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_FLAGS_H_
