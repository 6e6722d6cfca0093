// The flags of `rdmacheck bench` (tools/bench/bench_command.h runs it), in
// perftest's spelling: -d -i -x -s -q -l -m -I -t -n -D -Q/--cq-mod
// --report_gbits, plus --op, --lat, --peer-dev, --sweep, --advise, --plot,
// --pin and --format.
//
//   int code = RunBenchCli({"-d", "rxe0", "--peer-dev", "rxe1", "-s", "4096"}, std::cout, std::cerr);
#ifndef RDMACHECK_CLI_BENCH_FLAGS_H_
#define RDMACHECK_CLI_BENCH_FLAGS_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "tools/bench/bench_command.h"

namespace rdmacheck {

// The command line that fills *o; o must outlive it.
CommandLine BenchCommandLine(BenchOptions* o);

// args: the words after "bench". Exit codes of RunBenchCommand, 2 on bad usage.
int RunBenchCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_BENCH_FLAGS_H_
