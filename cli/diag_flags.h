// The flags of `rdmacheck diag TOOL` (tools/diag/create_qp_command.h runs
// create-qp).
//
//   int rc = RunDiagCli({"create-qp", "-d", "rxe0", "--max-send-sge", "64"}, std::cout, std::cerr, env);
#ifndef RDMACHECK_CLI_DIAG_FLAGS_H_
#define RDMACHECK_CLI_DIAG_FLAGS_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "tools/diag/create_qp_command.h"

namespace rdmacheck {

// The command line that fills *o; o must outlive it.
CommandLine CreateQpCommandLine(CreateQpCommandOptions* o);

// args: the words after "diag" (the tool, then its flags). Exit codes of
// the tool, 2 on bad usage.
int RunDiagCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const DiagEnv& env);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_DIAG_FLAGS_H_
