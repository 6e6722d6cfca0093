#include "cli/bench_flags.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

TEST(BenchFlags, PerftestsSpellings) {
  BenchOptions o;
  CommandLine cl = BenchCommandLine(&o);
  ASSERT_TRUE(cl.Parse({"-d", "rxe0", "--peer-dev", "rxe1", "-s", "4096", "-q", "4", "-l", "8", "--cq-mod", "16",
                        "-I", "64", "-m", "1024", "-t", "256", "-D", "5", "--report_gbits", "-x", "1", "--op", "read"})
                  .ok());
  EXPECT_EQ(o.ends.device, "rxe0");
  EXPECT_EQ(o.ends.peer_device, "rxe1");
  EXPECT_EQ(*o.ends.gid_index, 1);
  EXPECT_EQ(o.settings.size, 4096u);
  EXPECT_TRUE(o.size_given);
  EXPECT_EQ(o.settings.qps, 4);
  EXPECT_EQ(o.settings.post_list, 8);
  EXPECT_EQ(o.settings.cq_mod, 16);
  EXPECT_EQ(*o.settings.inline_size, 64u);
  EXPECT_EQ(o.settings.mtu, 1024);
  EXPECT_EQ(o.tx_depth, 256);
  EXPECT_EQ(o.settings.duration_s, 5);
  EXPECT_TRUE(o.report_gbits);
  EXPECT_EQ(o.settings.op, BenchOp::kRead);
}

TEST(BenchFlags, TheStudysSpellingOfReportGbitsToo) {
  BenchOptions o;
  CommandLine cl = BenchCommandLine(&o);
  ASSERT_TRUE(cl.Parse({"--report-gbits", "-Q", "4", "-n", "1000", "--sweep", "all", "--advise", "--plot", "x.svg"})
                  .ok());
  EXPECT_TRUE(o.report_gbits);
  EXPECT_EQ(o.settings.cq_mod, 4);
  EXPECT_EQ(o.settings.iters, 1000u);
  EXPECT_TRUE(o.iters_given);
  EXPECT_EQ(*o.sweep, "all");
  EXPECT_TRUE(o.advise);
  EXPECT_EQ(*o.plot, "x.svg");
}

TEST(BenchFlags, PeerNamesTheFarHost) {
  BenchOptions o;
  CommandLine cl = BenchCommandLine(&o);
  ASSERT_TRUE(cl.Parse({"-d", "rxe0", "--peer", "198.18.0.2:18600", "--peer-dev", "rxe1"}).ok());
  EXPECT_EQ(*o.peer, "198.18.0.2:18600");
  ASSERT_TRUE(BenchCommandLine(&o).Parse({"-q", "4", "--threads", "2"}).ok());
  EXPECT_EQ(o.settings.threads, 2);
  EXPECT_EQ(o.ends.peer_device, "rxe1");
}

TEST(BenchFlags, BadValuesAreNamed) {
  std::ostringstream out, err;
  EXPECT_EQ(RunBenchCli({"--op", "atomic"}, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("--op: 'atomic' is not write, send or read"));
  err.str("");
  EXPECT_EQ(RunBenchCli({"-n", "3"}, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("-n"));
  err.str("");
  EXPECT_EQ(RunBenchCli({"-q", "2", "--threads", "4"}, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("--threads 4 needs at least as many QPs (-q 2)"));
  err.str("");
  EXPECT_EQ(RunBenchCli({"-m", "9000"}, out, err), 2);
  err.str("");
  EXPECT_EQ(RunBenchCli({"--peers", "host1"}, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("unknown flag --peers"));
  err.str("");
  // A far end that is not an address is bad usage; one that does not answer
  // is a run that could not happen.
  EXPECT_EQ(RunBenchCli({"-d", "rxe0", "--peer", "198.18.0.2:99999"}, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("--peer 198.18.0.2:99999"));
  err.str("");
  EXPECT_EQ(RunBenchCli({"-d", "rxe0", "--peer", "127.0.0.1:1"}, out, err), 3);
  EXPECT_THAT(err.str(), HasSubstr("rdmacheck bench: --peer 127.0.0.1:1: "));
  out.str("");
  EXPECT_EQ(RunBenchCli({"--help"}, out, err), 0);
  EXPECT_THAT(out.str(), HasSubstr("--sweep"));
  EXPECT_THAT(out.str(), HasSubstr("docs/bench.md"));
}

}  // namespace
}  // namespace rdmacheck
