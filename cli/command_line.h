// The one flag parser of rdmacheck: every subcommand defines its flags on a
// CommandLine, so all of them share the --help layout, the spellings of
// ibv_devinfo and perftest (-d rxe0, --format=json, --format json) and the
// error text. CLI11 does the parsing; this wrapper checks the values, so a
// bad one is named as the user typed it:
//
//   rdmacheck watch: unknown flag --foo (see rdmacheck watch --help)
//   rdmacheck watch: --count: 'x' is not a whole number from 0 to 100000 (see rdmacheck watch --help)
//
//   WatchOptions o;
//   CommandLine cl("rdmacheck watch", "[FLAGS]", "Samples every QP ...");
//   cl.Int("--count", &o.count, 0, 100000, "N", "samples to take (0: until Ctrl-C)");
//   if (std::optional<int> code = cl.ParseOrExit(args, out, err)) return *code;
#ifndef RDMACHECK_CLI_COMMAND_LINE_H_
#define RDMACHECK_CLI_COMMAND_LINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace CLI {
class App;
}  // namespace CLI

namespace rdmacheck {

// A range of seconds; `low_open`: the low end itself is refused.
struct SecondsRange {
  double low;
  bool low_open;
  double high;
};

enum class ParseResult { kRun, kHelp };

class CommandLine {
 public:
  // command: what the user typed to get here ("rdmacheck diag create-qp").
  // usage: what follows it on the Usage line ("[FLAGS] [FILE...]"), or
  // several lines, each a whole synopsis. about and footer: paragraphs
  // before and after the flag list in --help.
  CommandLine(std::string command, std::string usage, std::string about, std::string footer = "");
  ~CommandLine();
  CommandLine(CommandLine&&) noexcept;
  CommandLine& operator=(CommandLine&&) noexcept;

  // names: CLI11's spelling, "-d,--ib-dev". value_name is shown in --help.
  // Every value flag refuses an empty value; the last of repeated ones wins.
  //
  // The general one: `set` stores the value and says whether it is valid;
  // `want` completes "'<value>' is not <want>".
  CommandLine& Value(const std::string& names, const std::string& value_name, const std::string& help,
                     std::string want, std::function<bool(const std::string&)> set);

  CommandLine& Text(const std::string& names, std::optional<std::string>* dst,
                    const std::string& value_name, const std::string& help);
  CommandLine& Text(const std::string& names, std::string* dst, const std::string& value_name,
                    const std::string& help);
  // One of `choices` (--format text|json).
  CommandLine& Choice(const std::string& names, std::string* dst, std::vector<std::string> choices,
                      const std::string& help);
  // A whole number in [lo, hi].
  CommandLine& Int(const std::string& names, std::optional<int>* dst, int lo, int hi,
                   const std::string& value_name, const std::string& help);
  CommandLine& Int(const std::string& names, int* dst, int lo, int hi, const std::string& value_name,
                   const std::string& help);
  CommandLine& Uint32(const std::string& names, std::optional<uint32_t>* dst,
                      const std::string& value_name, const std::string& help);
  CommandLine& Uint32(const std::string& names, std::function<void(uint32_t)> store,
                      const std::string& value_name, const std::string& help);
  CommandLine& Seconds(const std::string& names, double* dst, SecondsRange range,
                       const std::string& help);
  // A flag without a value (--once).
  CommandLine& Switch(const std::string& names, bool* dst, const std::string& help);
  // A flag that may be given again, each value kept in order
  // (`--from a --from b`, or `--from a b`).
  CommandLine& List(const std::string& names, std::vector<std::string>* dst,
                    const std::string& value_name, const std::string& help);
  // The words that are not flags (files); without this, one is an error.
  CommandLine& Args(const std::string& name, std::vector<std::string>* dst, const std::string& help);

  // InvalidArgument with the complaint alone ("unknown flag --foo"); kHelp
  // when -h/--help was given (print Help()).
  absl::StatusOr<ParseResult> Parse(const std::vector<std::string>& args);

  // Parse, for a subcommand's entry: nullopt to go on; else the exit code
  // after printing Help() to `out` (0) or the error line to `err` (2).
  std::optional<int> ParseOrExit(const std::vector<std::string>& args, std::ostream& out,
                                 std::ostream& err);

  std::string Help() const;
  const std::string& command() const { return command_; }

 private:
  struct Flag;
  std::string command_, usage_, about_, footer_;
  std::unique_ptr<CLI::App> app_;
  std::vector<std::unique_ptr<Flag>> flags_;
};

// "<command>: <message> (see <command> --help)\n": every usage error, so a
// user sees where the flags are explained.
std::string UsageErrorLine(absl::string_view command, absl::string_view message);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_COMMAND_LINE_H_
