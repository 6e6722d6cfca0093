// The flags of `rdmacheck explain` (tools/diag/explain_command.h runs it;
// cli.cc runs the --live checks after it).
//
//   ExplainFlags f;
//   if (std::optional<int> code = ParseExplainFlags(args, &f, std::cout, std::cerr)) return *code;
#ifndef RDMACHECK_CLI_EXPLAIN_FLAGS_H_
#define RDMACHECK_CLI_EXPLAIN_FLAGS_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "tools/diag/explain_command.h"

namespace rdmacheck {

struct ExplainFlags {
  ExplainCommandOptions options;
  bool live = false;  // --live: then run the confirming checks on this host
};

// The command line that fills *f; f must outlive it.
CommandLine ExplainCommandLine(ExplainFlags* f);

// args: the words after "explain". nullopt to go on; else the exit code
// after --help (0) or a usage error (2), printed. --live with --format json
// is a usage error: the live checks print text.
std::optional<int> ParseExplainFlags(const std::vector<std::string>& args, ExplainFlags* f,
                                     std::ostream& out, std::ostream& err);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_EXPLAIN_FLAGS_H_
