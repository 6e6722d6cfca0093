#include "cli/flags.h"

#include "cli/command_line.h"

namespace rdmacheck {
namespace {

constexpr char kUsage[] =
    R"(  rdmacheck [FLAGS]                 run the checks on this host's devices (or --profile)
  rdmacheck capture [FLAGS]         print this host's profile (save it: > node.profile)
  rdmacheck list                    every check with its one-line description
  rdmacheck explain [--live] [FILE...]  map error lines from logs to cause and remedy;
                                    --live also runs the checks that confirm them here
  rdmacheck report [FLAGS] [LOG...] one bundle for a support ticket: the capture,
                                    every check's result, explain's findings on LOGs
  rdmacheck diag create-qp [FLAGS]  find which QP attribute an EINVAL is about
  rdmacheck watch [--interval S] [--count N] [--format text|json] [-d DEV]
                                    every QP on this host with its process; flags QPs
                                    in error or not progressing (docs/watch.md)
  rdmacheck bench [FLAGS]           bandwidth or latency between two devices of this host,
                                    perftest's flags; --sweep, --advise (docs/bench.md)
  rdmacheck serve [-d DEV] [--port P] [--bind ADDR] [--once]
                                    the far end for --peer (docs/peer-mode.md)
  rdmacheck fleet [--format text|json|html] [-o FILE] FILE|DIR...
                                    many nodes' reports, bundles or profiles compared:
                                    the odd nodes and what is odd (docs/fleet.md)
  Each subcommand takes --help.)";

constexpr char kAbout[] =
    "rdmacheck: checks an RDMA node against its deployment plan and says what to fix.";

constexpr char kFooter[] =
    "Exit status: 0 nothing FAILed, 1 something FAILed, 2 bad usage or bad input,\n"
    "3 nothing could run (every check SKIPped).";

// The flags of a run, capture, list and report; `logs`: report's log files.
CommandLine MainCommandLine(CliFlags* f, bool logs) {
  CommandLine cl("rdmacheck", kUsage, kAbout, kFooter);
  cl.Text("-d,--ib-dev", &f->device, "DEV", "only this RDMA device (e.g. rxe0, mlx5_0)")
      .Int("-i,--ib-port", &f->port, 1, 255, "PORT", "only this port (1..255)")
      .Int("-x,--gid-index", &f->gid_index, 0, 255, "N", "the GID index traffic will use (0..255)")
      .Text("--profile", &f->profile, "FILE",
            "run against a recorded profile (rdmacheck capture output,\n"
            "or a paste: `ibv_devinfo -v` text or any --from format)\n"
            "instead of this host")
      .List("--from", &f->from, "FILE...",
            "pastes read as one partial profile: ibv_devinfo, ibstat,\n"
            "ibstatus, show_gids, rdma link, ibdev2netdev, ip addr,\n"
            "ulimit -a (docs/profile-format.md); the first to give a\n"
            "fact wins, disagreements are warned of")
      .Text("--plan", &f->plan, "FILE",
            "the deployment plan (docs/plan-format.md); default: one\n"
            "small RC QP (the checks that use it say so)")
      .Choice("--format", &f->format, {"text", "json", "junit", "npd", "prometheus"},
              "the report's format (default text); npd: one line for\n"
              "node-problem-detector, prometheus: node_exporter's textfile\n"
              "format (docs/output-formats.md)")
      .Text("-o,--output", &f->output, "FILE", "write the report there instead of stdout")
      .Text("--checks", &f->checks, "GLOBS", "only checks matching these comma-separated globs")
      .Text("--skip", &f->skip, "GLOBS", "leave out checks matching these globs")
      .Seconds("--check-deadline", &f->check_deadline_s, {0, true, 3600},
               "stop waiting for a check after SECS (default 10)")
      .Seconds("--probe-deadline", &f->probe_deadline_s, {0, true, 600},
               "hung-qp, sge-page-crossing: a work request without a\n"
               "completion after SECS is hung (default 2)")
      .Seconds("--window", &f->window_s, {0, true, 600},
               "link-health, pcie: watch counters and port events for SECS\n"
               "(default 2; capped by --check-deadline); capture: record\n"
               "such a window in the profile (none unless given)")
      .Text("--peer", &f->peer, "HOST[:PORT]",
            "compare with and probe across to `rdmacheck serve` on\n"
            "HOST (default port 18516; docs/peer-mode.md)")
      .Choice("--color", &f->color, {"auto", "always", "never"}, "auto (default: on a terminal), always, never")
      .Switch("--timing", &f->timing,
              "print to stderr where the time went: startup, each part\n"
              "of the gather, each check (also in --format=json: phases)")
      .Switch("--version", &f->version, "print the version and exit");
  if (logs) cl.Args("LOG", &f->rest, "report: logs for explain's findings");
  return cl;
}

}  // namespace

absl::StatusOr<CliFlags> ParseFlags(const std::vector<std::string>& args) {
  CliFlags f;
  // Subcommands with flags of their own get everything after their name
  // (cli/*_flags.h parse it).
  if (!args.empty() && (args[0] == "explain" || args[0] == "diag" || args[0] == "watch" ||
                        args[0] == "serve" || args[0] == "fleet" || args[0] == "bench")) {
    f.command = args[0];
    f.rest.assign(args.begin() + 1, args.end());
    return f;
  }
  std::vector<std::string> flags = args;
  if (!args.empty() && (args[0] == "capture" || args[0] == "list" || args[0] == "run" ||
                        args[0] == "report")) {
    f.command = args[0] == "run" ? "" : args[0];
    flags.erase(flags.begin());
  }
  CommandLine cl = MainCommandLine(&f, f.command == "report");
  absl::StatusOr<ParseResult> r = cl.Parse(flags);
  if (!r.ok()) return r.status();
  f.help = *r == ParseResult::kHelp;
  return f;
}

std::string UsageText() {
  CliFlags f;
  return MainCommandLine(&f, /*logs=*/false).Help();
}

}  // namespace rdmacheck
