#include "cli/flags.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Flags, PerftestStyleShortAndLong) {
  ASSERT_OK_AND_ASSIGN(CliFlags f, ParseFlags({"-d", "rxe0", "-i", "1", "-x", "3", "--plan=p.plan",
                                               "--profile", "n.profile", "--format=json", "-o",
                                               "out.json", "--checks", "port-*", "--skip=x"}));
  EXPECT_EQ(f.command, "");
  EXPECT_EQ(f.device, "rxe0");
  EXPECT_EQ(f.port, 1);
  EXPECT_EQ(f.gid_index, 3);
  EXPECT_EQ(f.plan, "p.plan");
  EXPECT_EQ(f.profile, "n.profile");
  EXPECT_EQ(f.format, "json");
  EXPECT_EQ(f.output, "out.json");
  EXPECT_EQ(f.checks, "port-*");
  EXPECT_EQ(f.skip, "x");
}

TEST(Flags, Subcommands) {
  ASSERT_OK_AND_ASSIGN(CliFlags cap, ParseFlags({"capture", "-d", "rxe0"}));
  EXPECT_EQ(cap.command, "capture");
  EXPECT_EQ(cap.device, "rxe0");
  ASSERT_OK_AND_ASSIGN(CliFlags ex, ParseFlags({"explain", "--format=json", "a.log"}));
  EXPECT_EQ(ex.command, "explain");
  EXPECT_THAT(ex.rest, ElementsAre("--format=json", "a.log"));
  ASSERT_OK_AND_ASSIGN(CliFlags l, ParseFlags({"list"}));
  EXPECT_EQ(l.command, "list");
}

TEST(Flags, BadInputNamesTheFlag) {
  struct Row {
    std::vector<std::string> args;
    const char* says;
  } rows[] = {
      {{"-i", "0"}, "-i: '0' is not a whole number from 1 to 255"},
      {{"--ib-port=x"}, "--ib-port: 'x' is not a whole number"},
      {{"-x", "256"}, "-x: '256' is not a whole number from 0 to 255"},
      {{"--format=xml"}, "--format: 'xml' is not one of text, json, junit"},
      {{"-d"}, "-d: needs a value"},
      {{"--plan="}, "--plan: empty value"},
      {{"--frobnicate"}, "unknown flag --frobnicate"},
      {{"stray"}, "unexpected argument 'stray'"},
      {{"--check-deadline", "0"}, "--check-deadline: '0' is not a number of seconds"},
      {{"--probe-deadline", "-1"}, "--probe-deadline: '-1' is not a number of seconds in (0, 600]"},
      {{"--color=sometimes"}, "--color: 'sometimes' is not one of auto, always, never"},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.says);
    EXPECT_THAT(ParseFlags(r.args), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(r.says)));
  }
}

TEST(Flags, HelpAndVersion) {
  ASSERT_OK_AND_ASSIGN(CliFlags h, ParseFlags({"-d", "rxe0", "--help"}));
  EXPECT_TRUE(h.help);
  ASSERT_OK_AND_ASSIGN(CliFlags v, ParseFlags({"--version"}));
  EXPECT_TRUE(v.version);
  EXPECT_FALSE(v.help);
}

TEST(Flags, ReportTakesLogsAndTheOthersNone) {
  ASSERT_OK_AND_ASSIGN(CliFlags r, ParseFlags({"report", "--format", "json", "a.log", "b.log"}));
  EXPECT_EQ(r.command, "report");
  EXPECT_EQ(r.format, "json");
  EXPECT_THAT(r.rest, ElementsAre("a.log", "b.log"));
  EXPECT_THAT(ParseFlags({"capture", "a.log"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unexpected argument 'a.log'")));
}

TEST(Flags, ProbeDeadline) {
  ASSERT_OK_AND_ASSIGN(CliFlags def, ParseFlags({}));
  EXPECT_DOUBLE_EQ(def.probe_deadline_s, 2.0);
  ASSERT_OK_AND_ASSIGN(CliFlags f, ParseFlags({"--probe-deadline", "0.5"}));
  EXPECT_DOUBLE_EQ(f.probe_deadline_s, 0.5);
}

TEST(Flags, Window) {
  ASSERT_OK_AND_ASSIGN(CliFlags def, ParseFlags({}));
  EXPECT_DOUBLE_EQ(def.window_s, 0) << "not given: a run watches 2 s, a capture none";
  ASSERT_OK_AND_ASSIGN(CliFlags f, ParseFlags({"capture", "--window", "5"}));
  EXPECT_DOUBLE_EQ(f.window_s, 5);
  EXPECT_THAT(ParseFlags({"--window", "0"}), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--window")));
}

TEST(Flags, UsageMentionsEveryFlag) {
  std::string u = UsageText();
  for (const char* flag : {"--ib-dev", "--ib-port", "--gid-index", "--profile", "--plan", "--format",
                           "--output", "--checks", "--skip", "--window", "capture", "list", "explain"})
    EXPECT_THAT(u, HasSubstr(flag));
}

TEST(FlagsTest, FromTakesSeveralPastesInOrder) {
  ASSERT_OK_AND_ASSIGN(CliFlags a, ParseFlags({"capture", "--from", "devinfo.txt", "ibstat.txt"}));
  EXPECT_EQ(a.command, "capture");
  EXPECT_EQ(a.from, (std::vector<std::string>{"devinfo.txt", "ibstat.txt"}));
  ASSERT_OK_AND_ASSIGN(CliFlags b, ParseFlags({"--from", "x.txt", "-d", "mlx5_0", "--from", "y.txt"}));
  EXPECT_EQ(b.from, (std::vector<std::string>{"x.txt", "y.txt"}));
  EXPECT_EQ(b.device, "mlx5_0");
}

}  // namespace
}  // namespace rdmacheck
