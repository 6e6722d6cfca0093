// The flags of `rdmacheck watch` (tools/watch/watch.h runs it).
//
//   int code = RunWatchCli({"--count", "2", "-d", "rxe0"}, std::cout, std::cerr);
#ifndef RDMACHECK_CLI_WATCH_FLAGS_H_
#define RDMACHECK_CLI_WATCH_FLAGS_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "tools/watch/watch.h"

namespace rdmacheck {

// The command line that fills *o; o must outlive it.
CommandLine WatchCommandLine(WatchOptions* o);

// args: the words after "watch". Exit codes of RunWatchCommand, 2 on bad usage.
int RunWatchCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_WATCH_FLAGS_H_
