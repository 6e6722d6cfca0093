// `rdmacheck explain`: reads logs (files, or stdin for none or "-"), prints
// each distinct finding once with its diagnosis, causes, remediation and the
// check that confirms it. The CLI's main calls RunExplainCommand with the
// arguments after the word "explain".
//
//   std::vector<std::string> args = {"--format=json", "ib_write_bw.log"};
//   int rc = RunExplainCommand(args, std::cin, std::cout, std::cerr);
//   // rc: 0 no findings, 1 findings, 2 bad usage or unreadable input/rules
#ifndef RDMACHECK_TOOLS_DIAG_EXPLAIN_COMMAND_H_
#define RDMACHECK_TOOLS_DIAG_EXPLAIN_COMMAND_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace rdmacheck {

// Usage: rdmacheck explain [--format=text|json] [--rules FILE] [FILE...]
// confirm_ids, when given, receives the ids of the checks that confirm the
// findings (the union, in order of first appearance): `explain --live` runs them.
int RunExplainCommand(const std::vector<std::string>& args, std::istream& in,
                      std::ostream& out, std::ostream& err,
                      std::vector<std::string>* confirm_ids = nullptr);

// The usage text printed for --help and on bad usage.
const char* ExplainUsage();

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_EXPLAIN_COMMAND_H_
