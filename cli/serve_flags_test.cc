#include "cli/serve_flags.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

TEST(ServeFlags, EveryFlag) {
  ServeOptions o;
  ASSERT_OK(ServeCommandLine(&o)
                .Parse({"-d", "rxe1", "--port=18600", "--bind", "198.18.0.2", "--once", "--wait", "5",
                        "--client-deadline=30", "--profile", "p.profile", "--max-clients", "3",
                        "--max-connections=40"})
                .status());
  EXPECT_EQ(o.device, "rxe1");
  EXPECT_EQ(o.port, 18600);
  EXPECT_EQ(o.bind, "198.18.0.2");
  EXPECT_TRUE(o.once);
  EXPECT_DOUBLE_EQ(o.wait_s, 5);
  EXPECT_DOUBLE_EQ(o.client_deadline_s, 30);
  EXPECT_EQ(o.profile, "p.profile");
  EXPECT_EQ(o.limits.max_sessions, 3);
  EXPECT_EQ(o.limits.max_connections, 40);
  ServeOptions def;
  ASSERT_OK(ServeCommandLine(&def).Parse({}).status());
  EXPECT_EQ(def.port, kDefaultPeerPort);
  EXPECT_FALSE(def.once);
  EXPECT_DOUBLE_EQ(def.wait_s, 0);
  EXPECT_DOUBLE_EQ(def.client_deadline_s, 120);
  EXPECT_EQ(def.limits.max_sessions, 8);
  EXPECT_EQ(def.limits.max_connections, 256);
}

// Bad usage is exit 2 before any device is read or port opened.
TEST(ServeFlags, UsageIsTwo) {
  int gathered = 0;
  auto gather = [&](const std::optional<std::string>&) -> absl::StatusOr<DeviceView> {
    ++gathered;
    return absl::UnavailableError("not in this test");
  };
  struct Row {
    std::vector<std::string> args;
    const char* says;
  } rows[] = {
      {{"--port", "0"}, "rdmacheck serve: --port: '0' is not a whole number from 1 to 65535 (see rdmacheck serve --help)\n"},
      {{"--wait", "0"}, "rdmacheck serve: --wait: '0' is not a number of seconds in (0, 86400] (see rdmacheck serve --help)\n"},
      {{"--client-deadline=x"}, "rdmacheck serve: --client-deadline: 'x' is not a number of seconds in (0, 86400] (see rdmacheck serve --help)\n"},
      {{"--bogus"}, "rdmacheck serve: unknown flag --bogus (see rdmacheck serve --help)\n"},
      {{"--max-clients", "0"}, "rdmacheck serve: --max-clients: '0' is not a whole number from 1 to 256 (see rdmacheck serve --help)\n"},
      {{"--bind"}, "rdmacheck serve: --bind: needs a value (see rdmacheck serve --help)\n"},
  };
  for (const Row& r : rows) {
    std::ostringstream out, err;
    EXPECT_EQ(RunServeCli(r.args, out, err, gather, "test"), 2) << r.says;
    EXPECT_EQ(err.str(), r.says);
  }
  EXPECT_EQ(gathered, 0);
  std::ostringstream out, err;
  EXPECT_EQ(RunServeCli({"--help"}, out, err, gather, "test"), 0);
  EXPECT_THAT(out.str(), HasSubstr("Usage: rdmacheck serve [-d DEV]"));
  EXPECT_THAT(out.str(), HasSubstr("--client-deadline SECS"));
  EXPECT_EQ(gathered, 0);
}

}  // namespace
}  // namespace rdmacheck
