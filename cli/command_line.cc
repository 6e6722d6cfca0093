#include "cli/command_line.h"

#include <sstream>
#include <utility>

#include <CLI/CLI.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checks/exit_codes.h"
#include "util/numbers.h"

namespace rdmacheck {

struct CommandLine::Flag {
  CLI::Option* opt = nullptr;
  std::string raw;  // the value CLI11 collected (the last one given)
  std::string want;
  std::function<bool(const std::string&)> set;
};

namespace {

constexpr size_t kHelpColumn = 26;

// How the user spelled `opt` the last time before "--": "-i" or
// "--ib-port"; inline: given as --ib-port=VALUE. Error messages use it, so
// they name what the user typed.
struct Spelling {
  std::string name;
  bool inline_value = false;
};
Spelling SpellingOf(const std::vector<std::string>& args, const CLI::Option& opt) {
  size_t end = args.size();
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--") end = i;
  for (size_t i = end; i-- > 0;) {
    const std::string& a = args[i];
    for (const std::string& l : opt.get_lnames()) {
      const std::string flag = "--" + l;
      if (a == flag) return {flag, false};
      if (absl::StartsWith(a, flag + "=")) return {flag, true};
    }
    for (const std::string& s : opt.get_snames()) {
      const std::string flag = "-" + s;
      if (absl::StartsWith(a, flag) && !absl::StartsWith(a, "--")) return {flag, false};
    }
  }
  return {opt.get_name(), false};
}

// "-d, --ib-dev DEV", the way ibv_devinfo's and perftest's --help write it.
std::string HelpName(const CLI::Option& opt) {
  std::vector<std::string> names;
  for (const std::string& s : opt.get_snames()) names.push_back("-" + s);
  for (const std::string& l : opt.get_lnames()) names.push_back("--" + l);
  std::string out = absl::StrJoin(names, ", ");
  if (!opt.get_option_text().empty()) absl::StrAppend(&out, " ", opt.get_option_text());
  return out;
}

std::string Number(double d) { return absl::StrCat(d); }

// lo >= 0: every counted flag is a count, a port or an index.
std::optional<int> WholeNumberIn(const std::string& v, int lo, int hi) {
  std::optional<uint64_t> n = ParseUnsigned(v);
  if (!n || *n < static_cast<uint64_t>(lo) || *n > static_cast<uint64_t>(hi)) return std::nullopt;
  return static_cast<int>(*n);
}
std::string WholeNumberWant(int lo, int hi) { return absl::StrCat("a whole number from ", lo, " to ", hi); }

}  // namespace

CommandLine::CommandLine(std::string command, std::string usage, std::string about, std::string footer)
    : command_(std::move(command)),
      usage_(std::move(usage)),
      about_(std::move(about)),
      footer_(std::move(footer)),
      app_(std::make_unique<CLI::App>("", command_)) {
  // Unknown words are collected, not thrown, so Parse can say which one
  // in the common wording.
  app_->allow_extras(true);
  // As in perftest and the old parsers: a flag given twice takes the last.
  app_->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app_->set_help_flag("-h,--help", "print this help and exit");
}

CommandLine::~CommandLine() = default;
CommandLine::CommandLine(CommandLine&&) noexcept = default;
CommandLine& CommandLine::operator=(CommandLine&&) noexcept = default;

CommandLine& CommandLine::Value(const std::string& names, const std::string& value_name,
                                const std::string& help, std::string want,
                                std::function<bool(const std::string&)> set) {
  auto f = std::make_unique<Flag>();
  f->want = std::move(want);
  f->set = std::move(set);
  f->opt = app_->add_option(names, f->raw, help);
  f->opt->option_text(value_name);
  flags_.push_back(std::move(f));
  return *this;
}

CommandLine& CommandLine::Text(const std::string& names, std::optional<std::string>* dst,
                               const std::string& value_name, const std::string& help) {
  return Value(names, value_name, help, "", [dst](const std::string& v) {
    *dst = v;
    return true;
  });
}

CommandLine& CommandLine::Text(const std::string& names, std::string* dst, const std::string& value_name,
                               const std::string& help) {
  return Value(names, value_name, help, "", [dst](const std::string& v) {
    *dst = v;
    return true;
  });
}

CommandLine& CommandLine::Choice(const std::string& names, std::string* dst,
                                 std::vector<std::string> choices, const std::string& help) {
  std::string want = absl::StrCat("one of ", absl::StrJoin(choices, ", "));
  std::string value_name = absl::StrJoin(choices, "|");
  return Value(names, value_name, help, std::move(want), [dst, choices](const std::string& v) {
    for (const std::string& c : choices) {
      if (v == c) {
        *dst = v;
        return true;
      }
    }
    return false;
  });
}

CommandLine& CommandLine::Int(const std::string& names, int* dst, int lo, int hi, const std::string& value_name,
                              const std::string& help) {
  return Value(names, value_name, help, WholeNumberWant(lo, hi), [dst, lo, hi](const std::string& v) {
    std::optional<int> n = WholeNumberIn(v, lo, hi);
    if (n) *dst = *n;
    return n.has_value();
  });
}

CommandLine& CommandLine::Int(const std::string& names, std::optional<int>* dst, int lo, int hi,
                              const std::string& value_name, const std::string& help) {
  return Value(names, value_name, help, WholeNumberWant(lo, hi), [dst, lo, hi](const std::string& v) {
    *dst = WholeNumberIn(v, lo, hi);
    return dst->has_value();
  });
}

CommandLine& CommandLine::Uint32(const std::string& names, std::optional<uint32_t>* dst,
                                 const std::string& value_name, const std::string& help) {
  return Uint32(names, [dst](uint32_t v) { *dst = v; }, value_name, help);
}

CommandLine& CommandLine::Uint32(const std::string& names, std::function<void(uint32_t)> store,
                                 const std::string& value_name, const std::string& help) {
  return Value(names, value_name, help, "a whole number from 0 to 4294967295", [store](const std::string& v) {
    std::optional<uint64_t> n = ParseUnsigned(v);
    if (!n || *n > UINT32_MAX) return false;
    store(static_cast<uint32_t>(*n));
    return true;
  });
}

CommandLine& CommandLine::Seconds(const std::string& names, double* dst, SecondsRange r,
                                  const std::string& help) {
  std::string want = absl::StrCat("a number of seconds in ", r.low_open ? "(" : "[", Number(r.low), ", ",
                                  Number(r.high), "]");
  return Value(names, "SECS", help, std::move(want), [dst, r](const std::string& v) {
    double d;
    // Written so that NaN fails too.
    if (!absl::SimpleAtod(v, &d) || !((r.low_open ? d > r.low : d >= r.low) && d <= r.high)) return false;
    *dst = d;
    return true;
  });
}

CommandLine& CommandLine::Switch(const std::string& names, bool* dst, const std::string& help) {
  app_->add_flag(names, *dst, help);
  return *this;
}

CommandLine& CommandLine::List(const std::string& names, std::vector<std::string>* dst,
                               const std::string& value_name, const std::string& help) {
  CLI::Option* opt = app_->add_option(names, *dst, help);
  opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  opt->option_text(value_name);
  return *this;
}

CommandLine& CommandLine::Args(const std::string& name, std::vector<std::string>* dst, const std::string& help) {
  app_->add_option(name, *dst, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  return *this;
}

absl::StatusOr<ParseResult> CommandLine::Parse(const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return ParseResult::kHelp;
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--ib-dev: 1 required TEXT missing", for `-d` last and for `--plan=`.
    for (const auto& f : flags_) {
      if (!absl::StartsWith(e.what(), f->opt->get_name() + ":")) continue;
      Spelling s = SpellingOf(args, *f->opt);
      return absl::InvalidArgumentError(absl::StrCat(s.name, s.inline_value ? ": empty value" : ": needs a value"));
    }
    return absl::InvalidArgumentError(e.what());
  } catch (const CLI::ParseError& e) {
    return absl::InvalidArgumentError(e.what());
  }
  for (const std::string& r : app_->remaining()) {
    if (r == "--") continue;  // CLI11 keeps the separator among the extras
    if (r.size() > 1 && r[0] == '-')
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", r.substr(0, r.find('='))));
    return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", r, "'"));
  }
  for (const auto& f : flags_) {
    if (f->opt->count() == 0) continue;
    if (f->raw.empty())
      return absl::InvalidArgumentError(absl::StrCat(SpellingOf(args, *f->opt).name, ": empty value"));
    if (!f->set(f->raw))
      return absl::InvalidArgumentError(
          absl::StrCat(SpellingOf(args, *f->opt).name, ": '", f->raw, "' is not ", f->want));
  }
  return ParseResult::kRun;
}

std::optional<int> CommandLine::ParseOrExit(const std::vector<std::string>& args, std::ostream& out,
                                            std::ostream& err) {
  absl::StatusOr<ParseResult> r = Parse(args);
  if (!r.ok()) {
    err << UsageErrorLine(command_, r.status().message());
    return kExitUsage;
  }
  if (*r == ParseResult::kHelp) {
    out << Help();
    return kExitOk;
  }
  return std::nullopt;
}

std::string CommandLine::Help() const {
  std::ostringstream out;
  if (usage_.find('\n') == std::string::npos) {
    out << "Usage: " << command_ << " " << usage_ << "\n";
  } else {
    out << "Usage:\n" << usage_ << (absl::EndsWith(usage_, "\n") ? "" : "\n");
  }
  if (!about_.empty()) out << "\n" << about_ << "\n";
  const CLI::App& app = *app_;
  const CLI::Option* help = app.get_help_ptr();
  std::vector<const CLI::Option*> positionals =
      app.get_options([](const CLI::Option* o) { return o->get_positional(); });
  if (!positionals.empty()) {
    out << "\nArguments:\n";
    for (const CLI::Option* o : positionals)
      CLI::detail::format_help(out, o->get_name(true, false), o->get_description(), kHelpColumn);
  }
  out << "\nFlags:\n";
  for (const CLI::Option* o : app.get_options([help](const CLI::Option* o) { return o->nonpositional() && o != help; }))
    CLI::detail::format_help(out, HelpName(*o), o->get_description(), kHelpColumn);
  CLI::detail::format_help(out, HelpName(*help), help->get_description(), kHelpColumn);
  if (!footer_.empty()) out << "\n" << footer_ << "\n";
  return out.str();
}

std::string UsageErrorLine(absl::string_view command, absl::string_view message) {
  return absl::StrCat(command, ": ", message, " (see ", command, " --help)\n");
}

}  // namespace rdmacheck
