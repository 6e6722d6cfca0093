#include "cli/watch_flags.h"

namespace rdmacheck {

CommandLine WatchCommandLine(WatchOptions* o) {
  CommandLine cl("rdmacheck watch", "[--interval SECS] [--count N] [--format text|json] [-d DEV]",
                 "Samples every QP on this host (rdma -j -d res show qp) COUNT times, INTERVAL\n"
                 "seconds apart, and flags QPs in error or not progressing (docs/watch.md).",
                 "Exit status: 0 none flagged, 1 some flagged, 2 bad usage, 3 no dump.");
  cl.Seconds("--interval", &o->interval_s, {0.05, false, 3600}, "seconds between samples (default 1)")
      .Int("--count", &o->count, 0, 100000, "N", "samples to take (default 3; 0: until Ctrl-C)")
      .Choice("--format", &o->format, {"text", "json"}, "the report's format (default text)")
      .Text("-d,--ib-dev", &o->device, "DEV", "only the QPs of this device");
  return cl;
}

int RunWatchCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  WatchOptions o;
  if (std::optional<int> code = WatchCommandLine(&o).ParseOrExit(args, out, err)) return *code;
  return RunWatchCommand(o, out, err);
}

}  // namespace rdmacheck
