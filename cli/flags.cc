#include "cli/flags.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

absl::Status Bad(absl::string_view flag, absl::string_view value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": '", value, "' is not ", want));
}

absl::StatusOr<int> IntIn(absl::string_view flag, const std::string& v, int lo, int hi) {
  int n;
  if (!absl::SimpleAtoi(v, &n) || n < lo || n > hi)
    return Bad(flag, v, absl::StrCat("a whole number from ", lo, " to ", hi));
  return n;
}

}  // namespace

absl::StatusOr<CliFlags> ParseFlags(const std::vector<std::string>& args) {
  CliFlags f;
  size_t i = 0;
  // Subcommands that parse their own arguments take everything after them.
  if (!args.empty() && (args[0] == "explain" || args[0] == "diag" || args[0] == "watch" ||
                        args[0] == "serve")) {
    f.command = args[0];
    f.rest.assign(args.begin() + 1, args.end());
    return f;
  }
  if (!args.empty() && (args[0] == "capture" || args[0] == "list" || args[0] == "run" ||
                        args[0] == "report")) {
    f.command = args[0] == "run" ? "" : args[0];
    i = 1;
  }
  for (; i < args.size(); ++i) {
    std::string a = args[i];
    std::string name = a, value;
    bool has_inline = false;
    if (absl::StartsWith(a, "--")) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        has_inline = true;
      }
    } else if (!absl::StartsWith(a, "-") || a.size() < 2) {
      if (f.command == "report") {  // report's log files
        f.rest.push_back(a);
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", a, "'"));
    }
    auto take = [&]() -> absl::StatusOr<std::string> {
      if (has_inline) return value;
      if (i + 1 >= args.size())
        return absl::InvalidArgumentError(absl::StrCat(name, ": needs a value"));
      return args[++i];
    };
    auto need = [&](std::optional<std::string>& dst) -> absl::Status {
      absl::StatusOr<std::string> v = take();
      if (!v.ok()) return v.status();
      if (v->empty()) return absl::InvalidArgumentError(absl::StrCat(name, ": empty value"));
      dst = *v;
      return absl::OkStatus();
    };
    absl::Status st;
    if (name == "-h" || name == "--help") {
      f.help = true;
    } else if (name == "--version") {
      f.version = true;
    } else if (name == "-d" || name == "--ib-dev") {
      st = need(f.device);
    } else if (name == "-i" || name == "--ib-port") {
      std::optional<std::string> v;
      st = need(v);
      if (st.ok()) {
        absl::StatusOr<int> n = IntIn(name, *v, 1, 255);
        if (!n.ok()) return n.status();
        f.port = *n;
      }
    } else if (name == "-x" || name == "--gid-index") {
      std::optional<std::string> v;
      st = need(v);
      if (st.ok()) {
        absl::StatusOr<int> n = IntIn(name, *v, 0, 255);
        if (!n.ok()) return n.status();
        f.gid_index = *n;
      }
    } else if (name == "--profile") {
      st = need(f.profile);
    } else if (name == "--plan") {
      st = need(f.plan);
    } else if (name == "-o" || name == "--output") {
      st = need(f.output);
    } else if (name == "--format") {
      std::optional<std::string> v;
      st = need(v);
      if (st.ok()) {
        if (*v != "text" && *v != "json" && *v != "junit") return Bad(name, *v, "one of text, json, junit");
        f.format = *v;
      }
    } else if (name == "--color") {
      std::optional<std::string> v;
      st = need(v);
      if (st.ok()) {
        if (*v != "auto" && *v != "always" && *v != "never")
          return Bad(name, *v, "one of auto, always, never");
        f.color = *v;
      }
    } else if (name == "--checks" || name == "--skip") {
      std::optional<std::string> v;
      st = need(v);
      if (st.ok()) (name == "--checks" ? f.checks : f.skip) = *v;
    } else if (name == "--check-deadline") {
      std::optional<std::string> v;
      st = need(v);
      double d;
      if (st.ok() && (!absl::SimpleAtod(*v, &d) || !(d > 0 && d <= 3600)))
        return Bad(name, *v, "a number of seconds in (0, 3600]");
      if (st.ok()) f.check_deadline_s = d;
    } else if (name == "--peer") {
      st = need(f.peer);
    } else if (name == "--probe-deadline") {
      std::optional<std::string> v;
      st = need(v);
      double d;
      if (st.ok() && (!absl::SimpleAtod(*v, &d) || !(d > 0 && d <= 600)))
        return Bad(name, *v, "a number of seconds in (0, 600]");
      if (st.ok()) f.probe_deadline_s = d;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", a, "'"));
    }
    if (!st.ok()) return st;
  }
  return f;
}

std::string UsageText() {
  return R"(rdmacheck: checks an RDMA node against its deployment plan and says what to fix.

Usage:
  rdmacheck [FLAGS]                 run the checks on this host's devices (or --profile)
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
  rdmacheck serve [-d DEV] [--port P] [--bind ADDR] [--once]
                                    the far end for --peer (docs/peer-mode.md)

Flags:
  -d, --ib-dev DEV        only this RDMA device (e.g. rxe0, mlx5_0)
  -i, --ib-port PORT      only this port (1..255)
  -x, --gid-index N       the GID index traffic will use (0..255)
  --profile FILE          run against a recorded profile (rdmacheck capture output,
                          or `ibv_devinfo -v` text) instead of this host
  --plan FILE             the deployment plan (docs/plan-format.md); default: one
                          small RC QP (the checks that use it say so)
  --format FORMAT         text (default), json or junit
  -o, --output FILE       write the report there instead of stdout
  --checks GLOBS          only checks matching these comma-separated globs
  --skip GLOBS            leave out checks matching these globs
  --check-deadline SECS   stop waiting for a check after SECS (default 10)
  --probe-deadline SECS   hung-qp, sge-page-crossing: a work request without a
                          completion after SECS is hung (default 2)
  --peer HOST[:PORT]      compare with and probe across to `rdmacheck serve` on
                          HOST (default port 18516; docs/peer-mode.md)
  --color WHEN            auto (default: on a terminal), always, never
  --version, -h/--help

Exit status: 0 nothing FAILed, 1 something FAILed, 2 bad usage or bad input,
3 nothing could run (every check SKIPped).
)";
}

}  // namespace rdmacheck
