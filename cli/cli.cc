#include "cli/cli.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "checks/registry.h"
#include "checks/runner.h"
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
#include "checks/run_report.h"
#include "report/text.h"
#include "tools/watch/watch.h"

namespace rdmacheck {
namespace {

int UsageError(const std::string& prog, const absl::Status& s) {
  std::cerr << prog << ": " << s.message() << "\nTry '" << prog << " --help'.\n";
  return kExitUsage;
}

// Bad input (a plan, a profile, a device that cannot be read): the message
// names the file and line; no --help hint, the flags were fine.
int InputError(const std::string& prog, const absl::Status& s) {
  std::cerr << prog << ": " << s.message() << "\n";
  return kExitUsage;
}

// Writes `text` to --output or stdout; false (with a message) if it cannot.
bool Emit(const CliFlags& f, const std::string& prog, const std::string& text) {
  if (!f.output) {
    std::cout << text;
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  std::ofstream out(*f.output, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::cerr << prog << ": --output: cannot write " << *f.output << "\n";
    return false;
  }
  return true;
}

RunReport MakeReport(const RunInputs& in, std::vector<Result> results, absl::Time started,
                     double seconds) {
  RunReport rep;
  rep.host = in.view.host.hostname.value_or("");
  rep.kernel = in.view.host.kernel.value_or("");
  rep.source = in.view.source;
  rep.plan = in.plan.path;
  rep.started_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", started, absl::UTCTimeZone());
  rep.seconds = seconds;
  for (const DeviceInfo& d : in.view.devices) {
    rep.devices.push_back({d.name, d.driver.value_or(""), d.fw_ver.value_or(""),
                           d.node_guid.value_or("")});
  }
  rep.results = std::move(results);
  return rep;
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

int RunCapture(const CliFlags& f, const std::string& prog) {
  absl::StatusOr<RunInputs> in = LoadRunInputs(f);
  if (!in.ok()) {
    return InputError(prog, in.status());
  }
  if (!in->view.live()) {
    in->view.provenance.push_back(absl::StrCat("converted by rdmacheck ", kToolVersion, " from ",
                                               in->view.source));
  }
  return Emit(f, prog, WriteProfile(in->view)) ? kExitOk : kExitUsage;
}

// Runs `checks` on the inputs and makes the report; *code gets the exit code.
// `device_for` replaces DeviceFor (peer mode routes probes across the link).
RunReport RunAndReport(const RunInputs& in, const std::vector<const Check*>& checks, int* code,
                       std::function<std::unique_ptr<Device>(const DeviceInfo&)> device_for = nullptr) {
  absl::Time started = absl::Now();
  auto t0 = std::chrono::steady_clock::now();
  const DeviceView& view = in.view;
  if (!device_for) device_for = [&view](const DeviceInfo& d) { return DeviceFor(view, d); };
  CheckContext ctx{view, in.plan, in.options, device_for};
  std::vector<Result> results = RunChecks(checks, ctx);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *code = ExitCodeFor(results);
  return MakeReport(in, std::move(results), started, secs);
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
  std::vector<std::string> args;
  bool live = false;
  for (const std::string& a : f.rest) {
    if (a == "--live") {
      live = true;
    } else {
      args.push_back(a);
    }
  }
  if (!live) return RunExplainCommand(args, std::cin, std::cout, std::cerr);
  for (const std::string& a : args)
    if (absl::StartsWith(a, "--format") && a != "--format=text")
      return UsageError(prog, absl::InvalidArgumentError(
                                  "explain --live prints text; for one JSON with findings and "
                                  "check results use `rdmacheck report --format=json LOG...`"));
  std::vector<std::string> ids;
  int code = RunExplainCommand(args, std::cin, std::cout, std::cerr, &ids);
  if (code == kExitUsage) return code;
  std::vector<const Check*> checks;
  for (const std::string& id : ids)
    if (const Check* c = FindCheck(id)) checks.push_back(c);
  if (checks.empty()) {
    std::cout << "\n--live: no check in this build confirms these findings\n";
    return code;
  }
  CliFlags run_flags;  // this host, default plan
  absl::StatusOr<RunInputs> in = LoadRunInputs(run_flags);
  if (!in.ok()) {
    return InputError(prog, in.status());
  }
  std::cout << "\n== --live: the checks that confirm these findings, on this host ==\n";
  int run_code;
  RunReport rep = RunAndReport(*in, checks, &run_code);
  std::cout << RenderTextReport(f, rep);
  return std::max(code, run_code == kExitFail ? kExitFail : kExitOk);
}

// `report [FLAGS] [LOG...]`: one bundle for a support ticket.
int RunSupportReport(const CliFlags& f, const std::string& prog) {
  absl::StatusOr<std::vector<const Check*>> checks = SelectChecks(f.checks, f.skip);
  if (!checks.ok()) return UsageError(prog, checks.status());
  absl::StatusOr<RunInputs> in = LoadRunInputs(f);
  if (!in.ok()) {
    return InputError(prog, in.status());
  }
  int run_code;
  RunReport rep = RunAndReport(*in, *checks, &run_code);
  std::ostringstream explained;
  int explain_code = kExitOk;
  if (!f.rest.empty()) {
    std::vector<std::string> args = {f.format == "json" ? "--format=json" : "--format=text"};
    args.insert(args.end(), f.rest.begin(), f.rest.end());
    explain_code = RunExplainCommand(args, std::cin, explained, std::cerr);
    if (explain_code == kExitUsage) return kExitUsage;
  }
  std::string text;
  if (f.format == "json") {
    nlohmann::ordered_json j;
    j["schema"] = "rdmacheck.report/1";
    j["tool_version"] = kToolVersion;
    j["profile"] = WriteProfile(in->view);
    j["run"] = nlohmann::ordered_json::parse(RenderJson(rep));
    j["explain"] = f.rest.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(explained.str());
    text = j.dump(2) + "\n";
  } else if (f.format == "junit") {
    return UsageError(prog, absl::InvalidArgumentError("report: --format is text or json"));
  } else {
    text = absl::StrCat("==== rdmacheck report ", kToolVersion, " ====\n\n==== profile ====\n",
                        WriteProfile(in->view), "\n==== checks ====\n", RenderTextReport(f, rep));
    if (!f.rest.empty()) absl::StrAppend(&text, "\n==== explain ====\n", explained.str());
  }
  if (!Emit(f, prog, text)) return kExitUsage;
  return (run_code == kExitFail || explain_code == 1) ? kExitFail : kExitOk;
}

}  // namespace

absl::StatusOr<RunInputs> LoadRunInputs(const CliFlags& f, bool read_rulesets) {
  RunInputs in;
  if (f.profile) {
    absl::StatusOr<DeviceView> v = ReadProfileFile(*f.profile);
    if (!v.ok()) return v.status();
    in.view = *std::move(v);
  } else {
    GatherOptions g;
    g.read_rulesets = read_rulesets;
    absl::StatusOr<DeviceView> v = GatherLive(g);
    if (!v.ok()) return v.status();
    in.view = *std::move(v);
    in.view.provenance.push_back(absl::StrCat(
        "captured by rdmacheck ", kToolVersion, " on ", in.view.host.hostname.value_or("?"),
        ", kernel ", in.view.host.kernel.value_or("?"), ", ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone())));
  }
  if (f.plan) {
    absl::StatusOr<Plan> p = ReadPlanFile(*f.plan);
    if (!p.ok()) return p.status();
    in.plan = *std::move(p);
  } else {
    in.plan = DefaultPlan();
  }
  in.options.device = f.device;
  in.options.port = f.port;
  in.options.gid_index = f.gid_index;
  in.options.check_deadline_s = f.check_deadline_s;
  in.options.probe_deadline_s = f.probe_deadline_s;
  return in;
}

std::unique_ptr<Device> DeviceFor(const DeviceView& view, const DeviceInfo& dev) {
  if (view.live()) {
    absl::StatusOr<std::unique_ptr<LiveDevice>> live = LiveDevice::Open(dev.name, MakeDriverModel(dev));
    if (live.ok()) return *std::move(live);
    return nullptr;
  }
  return MakeDriverModel(dev);
}

int ExitCodeFor(const std::vector<Result>& results) {
  bool any_fail = false, all_skip = !results.empty();
  for (const Result& r : results) {
    any_fail = any_fail || r.verdict == Verdict::kFail;
    all_skip = all_skip && r.verdict == Verdict::kSkip;
  }
  if (any_fail) return kExitFail;
  if (all_skip) return kExitNothingRan;
  return kExitOk;
}

int RdmacheckMain(int argc, char** argv, const char* only_check) {
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
  if (f.command == "capture") return RunCapture(f, prog);
  if (f.command == "explain") return RunExplain(f, prog);
  if (f.command == "report") return RunSupportReport(f, prog);
  if (f.command == "watch") return RunWatchCommand(f.rest, std::cout, std::cerr);
  if (f.command == "serve") {
    return RunServeCommand(
        f.rest, std::cout, std::cerr,
        [](const std::optional<std::string>& profile) -> absl::StatusOr<DeviceView> {
          CliFlags lf;
          lf.profile = profile;
          absl::StatusOr<RunInputs> in = LoadRunInputs(lf, /*read_rulesets=*/false);
          if (!in.ok()) return in.status();
          return std::move(in->view);
        },
        kToolVersion);
  }
  if (f.command == "diag") {
    DiagEnv env{
        [](const std::optional<std::string>& profile,
           const std::optional<std::string>& plan) -> absl::StatusOr<DiagInputs> {
          CliFlags lf;
          lf.profile = profile;
          lf.plan = plan;
          absl::StatusOr<RunInputs> in = LoadRunInputs(lf, /*read_rulesets=*/false);
          if (!in.ok()) return in.status();
          return DiagInputs{std::move(in->view), std::move(in->plan)};
        },
        [](const DeviceView& v, const DeviceInfo& d) { return DeviceFor(v, d); }};
    return RunDiagCommand(f.rest, std::cout, std::cerr, env);
  }

  absl::StatusOr<std::vector<const Check*>> checks =
      only_check ? SelectChecks(only_check, "") : SelectChecks(f.checks, f.skip);
  if (!checks.ok()) return UsageError(prog, checks.status());

  bool need_rulesets = false;
  for (const Check* c : *checks) need_rulesets = need_rulesets || c->id() == "firewall-4791";
  absl::StatusOr<RunInputs> in = LoadRunInputs(f, need_rulesets);
  if (!in.ok()) {
    return InputError(prog, in.status());
  }
  int code;
  RunReport rep;
  if (f.peer) {
    // Peer mode (docs/peer-mode.md): the far end's view, peer-match and the
    // probes across the link, with this host's runner and Devices.
    PeerRunRequest peer_req{*f.peer, in->view, in->options, *checks, kToolVersion, DeviceFor,
                            [&in](const DeviceView& view, const Options& options,
                                  const std::vector<const Check*>& run, const DeviceMaker& device_for) {
                              RunInputs peer_in{view, in->plan, options};
                              int unused;
                              return RunAndReport(peer_in, run, &unused, device_for);
                            }};
    absl::StatusOr<RunReport> peer_rep = RunPeerChecks(peer_req);
    if (!peer_rep.ok()) return InputError(prog, peer_rep.status());
    rep = *std::move(peer_rep);
    code = ExitCodeFor(rep.results);
  } else {
    rep = RunAndReport(*in, *checks, &code);
  }
  std::string text;
  if (f.format == "json") {
    text = RenderJson(rep);
  } else if (f.format == "junit") {
    text = RenderJunit(rep);
  } else {
    text = RenderTextReport(f, rep);
  }
  if (!Emit(f, prog, text)) return kExitUsage;
  return code;
}

}  // namespace rdmacheck
