#include "cli/command_line.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

struct Opts {
  std::optional<std::string> device;
  std::optional<int> port;
  int count = 3;
  std::optional<uint32_t> wr;
  double secs = 1;
  std::string format = "text";
  bool once = false;
  std::vector<std::string> files;
};

CommandLine Make(Opts* o, bool with_files = true) {
  CommandLine cl("rdmacheck demo", "[FLAGS] [FILE...]", "A demo.", "Exit status: 0 fine.");
  cl.Text("-d,--ib-dev", &o->device, "DEV", "the device")
      .Int("-i,--ib-port", &o->port, 1, 255, "PORT", "the port")
      .Int("--count", &o->count, 0, 100000, "N", "how many")
      .Uint32("--max-send-wr", &o->wr, "N", "send queue depth")
      .Seconds("--interval", &o->secs, {0.05, false, 3600}, "between samples")
      .Choice("--format", &o->format, {"text", "json"}, "output")
      .Switch("--once", &o->once, "one and done");
  if (with_files) cl.Args("FILE", &o->files, "log files");
  return cl;
}

TEST(CommandLine, PerftestSpellings) {
  Opts o;
  CommandLine cl = Make(&o);
  ASSERT_OK_AND_ASSIGN(ParseResult r, cl.Parse({"-d", "rxe0", "--ib-port=2", "--count", "7", "--format=json",
                                                "--max-send-wr", "65536", "--interval=0.5", "--once", "a.log",
                                                "-", "--", "-b.log"}));
  EXPECT_EQ(r, ParseResult::kRun);
  EXPECT_EQ(o.device, "rxe0");
  EXPECT_EQ(o.port, 2);
  EXPECT_EQ(o.count, 7);
  EXPECT_EQ(o.wr, 65536u);
  EXPECT_DOUBLE_EQ(o.secs, 0.5);
  EXPECT_EQ(o.format, "json");
  EXPECT_TRUE(o.once);
  EXPECT_THAT(o.files, ElementsAre("a.log", "-", "-b.log"));
}

TEST(CommandLine, DefaultsStayAndTheLastOfRepeatedFlagsWins) {
  Opts o;
  CommandLine cl = Make(&o);
  ASSERT_OK(cl.Parse({"--format", "json", "--format", "text", "-d", "a", "-d", "b"}).status());
  EXPECT_EQ(o.format, "text");
  EXPECT_EQ(o.device, "b");
  EXPECT_EQ(o.count, 3);
  EXPECT_EQ(o.port, std::nullopt);
  EXPECT_FALSE(o.once);
}

TEST(CommandLine, ErrorsNameTheFlagAsTyped) {
  struct Row {
    std::vector<std::string> args;
    const char* says;
  } rows[] = {
      {{"--foo"}, "unknown flag --foo"},
      {{"--foo=1"}, "unknown flag --foo"},
      {{"-z"}, "unknown flag -z"},
      {{"-i", "0"}, "-i: '0' is not a whole number from 1 to 255"},
      {{"--ib-port=x"}, "--ib-port: 'x' is not a whole number from 1 to 255"},
      {{"--count", "-1"}, "--count: '-1' is not a whole number from 0 to 100000"},
      {{"--max-send-wr", "4294967296"}, "--max-send-wr: '4294967296' is not a whole number from 0 to 4294967295"},
      {{"--interval", "0"}, "--interval: '0' is not a number of seconds in [0.05, 3600]"},
      {{"--interval", "nan"}, "--interval: 'nan' is not a number of seconds in [0.05, 3600]"},
      {{"--format=xml"}, "--format: 'xml' is not one of text, json"},
      {{"-d"}, "-d: needs a value"},
      {{"--ib-dev"}, "--ib-dev: needs a value"},
      {{"--ib-dev="}, "--ib-dev: empty value"},
      {{"-d", ""}, "-d: empty value"},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.says);
    Opts o;
    CommandLine cl = Make(&o);
    EXPECT_THAT(cl.Parse(r.args), StatusIs(absl::StatusCode::kInvalidArgument, r.says));
  }
  Opts o;
  CommandLine no_files = Make(&o, /*with_files=*/false);
  EXPECT_THAT(no_files.Parse({"stray"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "unexpected argument 'stray'"));
}

TEST(CommandLine, ParseOrExitPrintsHelpOrTheOneErrorLine) {
  Opts o;
  CommandLine cl = Make(&o);
  std::ostringstream out, err;
  EXPECT_EQ(cl.ParseOrExit({"--count", "2"}, out, err), std::nullopt);
  EXPECT_EQ(cl.ParseOrExit({"--bogus"}, out, err), 2);
  EXPECT_EQ(err.str(), "rdmacheck demo: unknown flag --bogus (see rdmacheck demo --help)\n");
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(cl.ParseOrExit({"--count", "2", "-h"}, out, err), 0);
  EXPECT_EQ(out.str(), cl.Help());
}

TEST(CommandLine, HelpLayout) {
  Opts o;
  std::string help = Make(&o).Help();
  EXPECT_THAT(help, HasSubstr("Usage: rdmacheck demo [FLAGS] [FILE...]\n\nA demo.\n"));
  EXPECT_THAT(help, HasSubstr("\nArguments:\n  FILE                    log files\n"));
  EXPECT_THAT(help, HasSubstr("\nFlags:\n  -d, --ib-dev DEV        the device\n"));
  EXPECT_THAT(help, HasSubstr("  --format text|json      output\n"));
  EXPECT_THAT(help, HasSubstr("  --interval SECS         between samples\n"));
  EXPECT_THAT(help, HasSubstr("  -h, --help              print this help and exit\n\nExit status: 0 fine.\n"));
  EXPECT_THAT(help, Not(HasSubstr("OPTIONS")));
}

TEST(CommandLine, UsageErrorLine) {
  EXPECT_EQ(UsageErrorLine("rdmacheck diag create-qp", "unknown flag --foo"),
            "rdmacheck diag create-qp: unknown flag --foo (see rdmacheck diag create-qp --help)\n");
}

}  // namespace
}  // namespace rdmacheck
