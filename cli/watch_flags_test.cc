#include "cli/watch_flags.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

TEST(WatchFlags, CountIntervalFormatDevice) {
  WatchOptions o;
  ASSERT_OK(WatchCommandLine(&o).Parse({"--count", "2", "--interval=0.5", "--format", "json", "-d", "rxe1"}).status());
  EXPECT_EQ(o.count, 2);
  EXPECT_DOUBLE_EQ(o.interval_s, 0.5);
  EXPECT_EQ(o.format, "json");
  EXPECT_EQ(o.device, "rxe1");
  WatchOptions def;
  ASSERT_OK(WatchCommandLine(&def).Parse({"--ib-dev=rxe0", "--count=0"}).status());
  EXPECT_EQ(def.device, "rxe0");
  EXPECT_EQ(def.count, 0);
  EXPECT_DOUBLE_EQ(def.interval_s, 1);
}

// Bad usage never reaches the dump: exit 2 and one line naming the flag.
TEST(WatchFlags, UsageIsTwo) {
  struct Row {
    std::vector<std::string> args;
    const char* says;
  } rows[] = {
      {{"--count", "-1"}, "rdmacheck watch: --count: '-1' is not a whole number from 0 to 100000 (see rdmacheck watch --help)\n"},
      {{"--interval", "0"}, "rdmacheck watch: --interval: '0' is not a number of seconds in [0.05, 3600] (see rdmacheck watch --help)\n"},
      {{"--format", "xml"}, "rdmacheck watch: --format: 'xml' is not one of text, json (see rdmacheck watch --help)\n"},
      {{"--bogus"}, "rdmacheck watch: unknown flag --bogus (see rdmacheck watch --help)\n"},
      {{"--count"}, "rdmacheck watch: --count: needs a value (see rdmacheck watch --help)\n"},
      {{"-d", ""}, "rdmacheck watch: -d: empty value (see rdmacheck watch --help)\n"},
  };
  for (const Row& r : rows) {
    std::ostringstream out, err;
    EXPECT_EQ(RunWatchCli(r.args, out, err), 2) << r.says;
    EXPECT_EQ(err.str(), r.says);
    EXPECT_EQ(out.str(), "");
  }
}

TEST(WatchFlags, Help) {
  std::ostringstream out, err;
  EXPECT_EQ(RunWatchCli({"--help"}, out, err), 0);
  EXPECT_THAT(out.str(), HasSubstr("Usage: rdmacheck watch [--interval SECS]"));
  EXPECT_THAT(out.str(), HasSubstr("-d, --ib-dev DEV"));
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace rdmacheck
