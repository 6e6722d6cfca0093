#include "tools/bench/bench_command.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(BenchCommand, CpuLists) {
  ASSERT_OK_AND_ASSIGN(std::vector<int> a, ParseCpuList("0,2-4"));
  EXPECT_THAT(a, ElementsAre(0, 2, 3, 4));
  EXPECT_THAT(std::string(ParseCpuList("1,x").status().message()), HasSubstr("'x' is not a CPU number"));
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("-1").ok());
  EXPECT_FALSE(ParseCpuList("").ok());
}

TEST(BenchCommand, UsageErrorsComeBeforeAnyDevice) {
  std::ostringstream out, err;
  BenchOptions o;
  o.advise = true;
  EXPECT_EQ(RunBenchCommand(o, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("--advise needs --sweep"));
  err.str("");
  o.advise = false;
  o.pin = "a";
  EXPECT_EQ(RunBenchCommand(o, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("--pin: 'a' is not a CPU number"));
  err.str("");
  o.pin.reset();
  o.latency = true;
  o.settings.op = BenchOp::kRead;
  EXPECT_EQ(RunBenchCommand(o, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("--lat measures RDMA WRITE latency"));
  err.str("");
  o.latency = false;
  o.sweep = "size,bogus";
  o.ends.device = "nosuchdev0";
  EXPECT_EQ(RunBenchCommand(o, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("unknown sweep dimension 'bogus'"));
  EXPECT_TRUE(out.str().empty());
}

TEST(BenchCommand, AMissingDeviceIsNothingRan) {
  std::ostringstream out, err;
  BenchOptions o;
  o.ends.device = "nosuchdev0";
  EXPECT_EQ(RunBenchCommand(o, out, err), 3);
  EXPECT_THAT(err.str(), HasSubstr("nosuchdev0"));
}

}  // namespace
}  // namespace rdmacheck
