// `rdmacheck explain`: reads logs (files, or stdin for none or "-"), prints
// each distinct finding once with its diagnosis, causes, remediation and the
// check that confirms it. Its flags are parsed in cli/explain_flags.h.
//
//   ExplainCommandOptions o;
//   o.format = "json";
//   o.files = {"ib_write_bw.log"};
//   int rc = RunExplainCommand(o, std::cin, std::cout, std::cerr);
//   // rc: 0 no findings, 1 findings, 2 unreadable input or rules
#ifndef RDMACHECK_TOOLS_DIAG_EXPLAIN_COMMAND_H_
#define RDMACHECK_TOOLS_DIAG_EXPLAIN_COMMAND_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace rdmacheck {

struct ExplainCommandOptions {
  std::string format = "text";     // or "json"
  std::string rules_path;          // "": the built-in rules
  std::vector<std::string> files;  // none, or "-", reads `in`
  std::string program = "rdmacheck explain";  // names the command in errors
};

// The first of `files` that cannot be opened for reading, as the error the
// command would print ("cannot open 'F': No such file or directory");
// empty when all can. `report` asks before it runs any check.
std::string UnreadableLogFile(const std::vector<std::string>& files);

// confirm_ids, when given, receives the ids of the checks that confirm the
// findings (the union, in order of first appearance): `explain --live` runs them.
int RunExplainCommand(const ExplainCommandOptions& options, std::istream& in, std::ostream& out,
                      std::ostream& err, std::vector<std::string>* confirm_ids = nullptr);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_EXPLAIN_COMMAND_H_
