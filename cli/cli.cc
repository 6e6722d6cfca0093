#include "cli/cli.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "checks/registry.h"
#include "checks/runner.h"
#include "cli/command_line.h"
#include "cli/diag_flags.h"
#include "cli/explain_flags.h"
#include "cli/fleet_flags.h"
#include "cli/bench_flags.h"
#include "cli/serve_flags.h"
#include "cli/watch_flags.h"
#include "report/support_bundle.h"
#include "acts/driver_model.h"
#include "facts/gather.h"
#include "acts/live_device.h"
#include "facts/profile.h"
#include "tools/diag/create_qp_command.h"
#include "tools/diag/explain_command.h"
#include "plan/plan_parser.h"
#include "nlohmann/json.hpp"
#include "tools/peer/peer_mode.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/npd.h"
#include "report/prometheus.h"
#include "checks/run_report.h"
#include "report/text.h"
#include "util/clock.h"
#include "util/stop_flag.h"
#include "util/output_file.h"
#include "util/phase_log.h"

namespace rdmacheck {
namespace {

int UsageError(const std::string& prog, const absl::Status& s) {
  std::cerr << UsageErrorLine(prog, s.message());
  return kExitUsage;
}

// Bad input (a plan, a profile, a device that cannot be read): the message
// names the file and line; no --help hint, the flags were fine.
int InputError(const std::string& prog, const absl::Status& s) {
  std::cerr << prog << ": " << s.message() << "\n";
  return kExitUsage;
}

// Writes `text` to --output or stdout; false (with a message) if it cannot.
// A file is replaced whole or not at all (util/output_file.h): a textfile
// collector or a script reading it never sees half a report.
bool Emit(const CliFlags& f, const std::string& prog, const std::string& text) {
  if (!f.output) {
    std::cout << text;
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  if (absl::Status s = WriteFileAtomically(*f.output, text); !s.ok()) {
    std::cerr << prog << ": --output: cannot write " << *f.output << ": " << s.message()
              << " (the file is as it was)\n";
    return false;
  }
  return true;
}

int RunList(const CliFlags& f, const std::string& prog, const char* only_check) {
  std::ostringstream out;
  for (const Check* c : AllChecks()) {
    if (only_check && c->id() != only_check) continue;
    out << c->id() << std::string(c->id().size() < 18 ? 18 - c->id().size() : 1, ' ')
        << c->summary() << (c->live_only() ? " [live]" : "") << "\n";
  }
  return Emit(f, prog, out.str()) ? kExitOk : kExitUsage;
}

// --timing's last lines: rendering and writing the output, and the process's
// age by then (what is left of the wall time after it is the exit).
std::string TimingTail(double output_s) {
  std::string out = absl::StrCat("timing: output ", absl::StrFormat("%.3f", output_s), " s\n");
  if (std::optional<double> age = ProcessAgeSeconds()) {
    absl::StrAppend(&out, "timing: exec to end of run ", absl::StrFormat("%.3f", *age), " s\n");
  }
  return out;
}

// When main began: the process's age then (exec to main, in the kernel's
// 10 ms ticks) and the monotonic clock's reading.
struct Started {
  std::optional<double> exec_to_main;
  double main_at;
};

// The run's phases with "startup" (exec to main) and "flags" (main until
// the inputs were read: parsing the command line, selecting the checks) in
// front. `inputs_at`: when reading the inputs began.
void AddStartup(const Started& started, double inputs_at, RunInputs* in) {
  PhaseLog phases;
  if (started.exec_to_main) phases.Add("startup", *started.exec_to_main);
  phases.Add("flags", inputs_at - started.main_at);
  phases.Append(in->phases);
  in->phases = std::move(phases);
}

// What an import could not read (a paste cut short), once, on stderr.
void WarnAboutInput(const std::string& prog, const DeviceView& view) {
  for (const std::string& w : view.warnings) std::cerr << prog << ": warning: " << w << "\n";
}

int RunCapture(const CliFlags& f, const std::string& prog, const Started& started) {
  // A capture records every fact, rulesets included, and a counter window
  // when asked for one.
  const double inputs_at = MonotonicSeconds();
  absl::StatusOr<RunInputs> in =
      LoadRunInputs(SourcesFrom(f), kNeedsRulesets | (f.window_s > 0 ? kNeedsWindow : 0u));
  if (!in.ok()) {
    return InputError(prog, in.status());
  }
  WarnAboutInput(prog, in->view);
  WatchWindowNow(&*in);
  if (!in->view.live()) {
    in->view.provenance.push_back(absl::StrCat("converted by rdmacheck ", kToolVersion, " from ",
                                               in->view.source));
    // The converted file keeps what the paste lacked, and where each
    // pasted fact came from.
    for (const std::string& w : in->view.warnings) {
      in->view.provenance.push_back(absl::StrCat("import warning: ", w));
    }
    for (const auto& [fact, where] : in->view.fact_sources) {
      in->view.provenance.push_back(absl::StrCat("fact ", fact, ": ", where));
    }
  }
  AddStartup(started, inputs_at, &*in);
  // -d: the file is about that device alone (docs/profile-format.md).
  const double t0 = MonotonicSeconds();
  const bool ok = Emit(f, prog, WriteProfile(f.device ? OnlyDevice(in->view, *f.device) : in->view));
  if (f.timing) std::cerr << RenderTiming(in->phases.phases(), {}) << TimingTail(MonotonicSeconds() - t0);
  return ok ? kExitOk : kExitUsage;
}

// Runs `checks` on the inputs with every device opened once for the run;
// *code gets the exit code.
RunReport RunAndReport(const Session& session, RunInputs& in, const std::vector<const Check*>& checks,
                       int* code, DeviceFactory device_for = nullptr) {
  RunReport rep = session.Run(in, checks, std::move(device_for));
  *code = ExitCodeFor(rep.results);
  return rep;
}

std::string RenderTextReport(const CliFlags& f, const RunReport& rep) {
  bool color = f.color == "always" || (f.color == "auto" && !f.output && isatty(1));
  std::ostringstream os;
  RenderText(rep, os, color);
  return os.str();
}

// `explain [--live] ...`: --live then runs, on this host, the checks that
// confirm the findings.
int RunExplain(const CliFlags& f, const std::string& prog) {
  ExplainFlags ef;
  if (std::optional<int> code = ParseExplainFlags(f.rest, &ef, std::cout, std::cerr)) return *code;
  if (!ef.live) return RunExplainCommand(ef.options, std::cin, std::cout, std::cerr);
  std::vector<std::string> ids;
  int code = RunExplainCommand(ef.options, std::cin, std::cout, std::cerr, &ids);
  if (code == kExitUsage) return code;
  std::vector<const Check*> checks;
  for (const std::string& id : ids)
    if (const Check* c = FindCheck(id)) checks.push_back(c);
  if (checks.empty()) {
    std::cout << "\n--live: no check in this build confirms these findings\n";
    return code;
  }
  Session session;
  absl::StatusOr<RunInputs> in = LoadRunInputs(InputSources{}, NeedsOf(checks));  // this host, default plan
  if (!in.ok()) {
    return InputError(prog, in.status());
  }
  std::cout << "\n== --live: the checks that confirm these findings, on this host ==\n";
  int run_code;
  RunReport rep = RunAndReport(session, *in, checks, &run_code);
  std::cout << RenderTextReport(f, rep);
  return std::max(code, run_code == kExitFail ? kExitFail : kExitOk);
}

// `report [FLAGS] [LOG...]`: one bundle for a support ticket.
int RunSupportReport(const CliFlags& f, const std::string& prog) {
  absl::StatusOr<std::vector<const Check*>> checks = SelectChecks(f.checks, f.skip);
  if (!checks.ok()) return UsageError(prog, checks.status());
  if (f.format != "text" && f.format != "json")
    return UsageError(prog, absl::InvalidArgumentError("report: --format is text or json"));
  // A log that cannot be read is a usage error before any check runs.
  if (std::string bad = UnreadableLogFile(f.rest); !bad.empty()) {
    std::cerr << prog << " report: " << bad << "\n";
    return kExitUsage;
  }
  Session session;
  // The bundle records every fact (its profile has the rulesets too).
  absl::StatusOr<RunInputs> in = LoadRunInputs(SourcesFrom(f), NeedsOf(*checks) | kNeedsRulesets);
  if (!in.ok()) {
    return InputError(prog, in.status());
  }
  WarnAboutInput(prog, in->view);
  int run_code;
  RunReport rep = RunAndReport(session, *in, *checks, &run_code);
  std::ostringstream explained;
  int explain_code = kExitOk;
  if (!f.rest.empty()) {
    ExplainCommandOptions eo;
    eo.format = f.format == "json" ? "json" : "text";
    eo.files = f.rest;
    eo.program = prog + " report";
    explain_code = RunExplainCommand(eo, std::cin, explained, std::cerr);
    if (explain_code == kExitUsage) return kExitUsage;
  }
  const std::string text = RenderSupportBundle(
      f.device ? OnlyDevice(in->view, *f.device) : in->view, rep, f.format == "json" ? "" : RenderTextReport(f, rep),
      f.rest.empty() ? std::nullopt : std::optional<std::string>(explained.str()),
      f.format == "json" ? SupportFormat::kJson : SupportFormat::kText);
  if (!Emit(f, prog, text)) return kExitUsage;
  return (run_code == kExitFail || explain_code == 1) ? kExitFail : kExitOk;
}

// --format=npd: NPD shows stdout as the condition's message, so a run that
// cannot start still prints its one line (the exit code, 2, is Unknown to
// NPD); the message stays on stderr for NPD's log.
int NpdAware(const CliFlags& f, int code, const absl::Status& s) {
  if (f.format == "npd") std::cout << NpdErrorLine(s.message()) << "\n";
  return code;
}

}  // namespace

InputSources SourcesFrom(const CliFlags& f) {
  InputSources src;
  src.profile = f.profile;
  src.pastes = f.from;
  src.plan = f.plan;
  src.options.device = f.device;
  src.options.port = f.port;
  src.options.gid_index = f.gid_index;
  src.options.check_deadline_s = f.check_deadline_s;
  src.options.probe_deadline_s = f.probe_deadline_s;
  if (f.window_s > 0) src.options.window_s = f.window_s;
  return src;
}

int RdmacheckMain(int argc, char** argv, const char* only_check) {
  const Started started{ProcessAgeSeconds(), MonotonicSeconds()};
  InstallStopSignals();
  std::string prog = argc > 0 ? argv[0] : "rdmacheck";
  if (size_t slash = prog.rfind('/'); slash != std::string::npos) prog = prog.substr(slash + 1);
  std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<CliFlags> flags = ParseFlags(args);
  if (!flags.ok()) return UsageError(prog, flags.status());
  const CliFlags& f = *flags;
  if (f.help) {
    std::cout << UsageText();
    return kExitOk;
  }
  if (f.version) {
    std::cout << "rdmacheck " << kToolVersion << "\n";
    return kExitOk;
  }
  if (only_check && (!f.checks.empty() || !f.skip.empty()))
    return UsageError(prog, absl::InvalidArgumentError(
                                absl::StrCat("this program runs only ", only_check,
                                             "; --checks and --skip belong to rdmacheck")));
  if (f.command == "list") return RunList(f, prog, only_check);
  if (f.command == "capture") return RunCapture(f, prog, started);
  if (f.command == "explain") return RunExplain(f, prog);
  if (f.command == "report") return RunSupportReport(f, prog);
  if (f.command == "watch") return RunWatchCli(f.rest, std::cout, std::cerr);
  if (f.command == "bench") return RunBenchCli(f.rest, std::cout, std::cerr);
  if (f.command == "fleet") return RunFleetCli(f.rest, std::cout, std::cerr);
  if (f.command == "serve") {
    return RunServeCli(
        f.rest, std::cout, std::cerr,
        [](const std::optional<std::string>& profile) -> absl::StatusOr<DeviceView> {
          InputSources src;
          src.profile = profile;
          absl::StatusOr<RunInputs> in = LoadRunInputs(src, /*needs=*/0);
          if (!in.ok()) return in.status();
          return std::move(in->view);
        },
        kToolVersion);
  }
  if (f.command == "diag") {
    DiagEnv env{
        [](const std::optional<std::string>& profile,
           const std::optional<std::string>& plan) -> absl::StatusOr<DiagInputs> {
          InputSources src;
          src.profile = profile;
          src.plan = plan;
          absl::StatusOr<RunInputs> in = LoadRunInputs(src, /*needs=*/0);
          if (!in.ok()) return in.status();
          return DiagInputs{std::move(in->view), std::move(in->plan)};
        },
        [](const DeviceView& v, const DeviceInfo& d) -> std::unique_ptr<Device> {
          absl::StatusOr<std::unique_ptr<Device>> dev = DeviceFor(v, d);
          return dev.ok() ? *std::move(dev) : nullptr;
        }};
    return RunDiagCli(f.rest, std::cout, std::cerr, env);
  }

  absl::StatusOr<std::vector<const Check*>> checks =
      only_check ? SelectChecks(only_check, "") : SelectChecks(f.checks, f.skip);
  if (!checks.ok()) return NpdAware(f, UsageError(prog, checks.status()), checks.status());

  Session session;  // before gathering: the devices it opens stay open for the checks
  const double inputs_at = MonotonicSeconds();
  absl::StatusOr<RunInputs> in = LoadRunInputs(SourcesFrom(f), NeedsOf(*checks));
  if (!in.ok()) {
    return NpdAware(f, InputError(prog, in.status()), in.status());
  }
  WarnAboutInput(prog, in->view);
  AddStartup(started, inputs_at, &*in);
  int code;
  RunReport rep;
  if (f.peer) {
    // Peer mode (docs/peer-mode.md): the far end's view, peer-match and the
    // probes across the link.
    absl::StatusOr<RunReport> peer_rep = RunPeerChecks(session, *in, *checks, *f.peer, kToolVersion);
    if (!peer_rep.ok()) return NpdAware(f, InputError(prog, peer_rep.status()), peer_rep.status());
    rep = *std::move(peer_rep);
    code = ExitCodeFor(rep.results);
  } else {
    rep = RunAndReport(session, *in, *checks, &code);
  }
  const double t_out = MonotonicSeconds();
  std::string text;
  if (f.format == "json") {
    text = RenderJson(rep);
  } else if (f.format == "junit") {
    text = RenderJunit(rep);
  } else if (f.format == "npd") {
    // The status NPD reads is the renderer's (docs/output-formats.md#npd).
    NpdStatus npd = RenderNpd(rep);
    text = npd.line + "\n";
    code = npd.exit_code;
  } else if (f.format == "prometheus") {
    text = RenderPrometheus(rep, in->view);
  } else {
    text = RenderTextReport(f, rep);
  }
  const bool ok = Emit(f, prog, text);
  if (f.timing) std::cerr << RenderTiming(rep.phases, rep.results) << TimingTail(MonotonicSeconds() - t_out);
  return ok ? code : kExitUsage;
}

}  // namespace rdmacheck
