#include "tools/bench/bench_command.h"

#include <sstream>

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::StatusIs;
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

// ib_write_lat's defaults under --lat (2 bytes, 1000 iterations, a send
// queue of one WR) for what the flags left unset, ib_write_bw's without.
TEST(BenchCommand, LatencyTakesIbWriteLatsDefaults) {
  BenchOptions o;
  EXPECT_EQ(SettingsOf(o).tx_depth, 128);
  EXPECT_EQ(SettingsOf(o).size, 65536u);
  o.latency = true;
  BenchSettings s = SettingsOf(o);
  EXPECT_EQ(s.mode, BenchMode::kLatency);
  EXPECT_EQ(s.tx_depth, 1);
  EXPECT_EQ(s.size, 2u);
  EXPECT_EQ(s.iters, 1000u);
  o.tx_depth = 16;
  o.settings.size = 64;
  o.size_given = true;
  s = SettingsOf(o);
  EXPECT_EQ(s.tx_depth, 16);
  EXPECT_EQ(s.size, 64u);
}

TEST(BenchCommand, AMissingDeviceIsNothingRan) {
  std::ostringstream out, err;
  BenchOptions o;
  o.ends.device = "nosuchdev0";
  EXPECT_EQ(RunBenchCommand(o, out, err), 3);
  EXPECT_THAT(err.str(), HasSubstr("nosuchdev0"));
}

// rxe0 on va with a 4094-byte token bucket (tbf ... burst 32kbit): the run
// moves under it, or, asked for more, does not happen.
TEST(BenchCommand, ARunFitsUnderAQdiscThatDropsFullFrames) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  for (NetdevInfo& n : v.netdevs)
    if (n.name == "va") n.qdiscs = {Qdisc{"tbf", "root", 50000000, 4094, std::nullopt, std::nullopt, std::nullopt}};
  BenchOptions o;
  o.ends.device = "rxe0";
  BenchSettings s;
  std::string warning;
  ASSERT_OK(FitUnderQdiscs(v, o, &s, &warning));
  EXPECT_EQ(s.mtu, 2048);
  EXPECT_THAT(warning, HasSubstr("va has qdisc tbf root rate 50Mbit burst 4094b, which passes frames of at most 4094 B"));
  EXPECT_THAT(warning, HasSubstr("Running at -m 2048"));
  EXPECT_THAT(warning, HasSubstr("tc qdisc replace dev va root tbf rate 50mbit burst 64kb"));
  BenchSettings asked;
  asked.mtu = 4096;
  EXPECT_THAT(FitUnderQdiscs(v, o, &asked, &warning),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("; -m 4096")));
  BenchOptions sweep = o;
  sweep.sweep = "mtu,qp";
  BenchSettings base;
  EXPECT_THAT(FitUnderQdiscs(v, sweep, &base, &warning),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("the MTU sweep would send into it")));
  // Without the qdisc nothing changes.
  BenchSettings plain;
  std::string none;
  ASSERT_OK(FitUnderQdiscs(FixtureProfile("rxe_mtu9000.profile"), o, &plain, &none));
  EXPECT_EQ(plain.mtu, 0);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace rdmacheck
