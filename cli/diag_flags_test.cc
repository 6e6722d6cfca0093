#include "cli/diag_flags.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(CreateQpFlags, EveryFlag) {
  CreateQpCommandOptions o;
  ASSERT_OK(CreateQpCommandLine(&o)
                .Parse({"-d", "rxe0", "--profile", "p.profile", "--plan=a.plan", "--class", "client", "--type",
                        "uc", "--max-send-wr", "65536", "--max-recv-wr=1", "--max-send-sge", "16",
                        "--max-recv-sge", "2", "--max-inline-data", "64", "--cqe", "4096", "--srq", "--format",
                        "json"})
                .status());
  EXPECT_EQ(o.device, "rxe0");
  EXPECT_EQ(o.profile, "p.profile");
  EXPECT_EQ(o.plan, "a.plan");
  EXPECT_EQ(o.qp_class, "client");
  EXPECT_EQ(o.type, QpType::kUc);
  EXPECT_THAT(o.caps, UnorderedElementsAre(Pair(QpField::kMaxSendWr, 65536u), Pair(QpField::kMaxRecvWr, 1u),
                                           Pair(QpField::kMaxSendSge, 16u), Pair(QpField::kMaxRecvSge, 2u),
                                           Pair(QpField::kMaxInlineData, 64u)));
  EXPECT_EQ(o.cqe, 4096u);
  EXPECT_TRUE(o.srq);
  EXPECT_EQ(o.format, "json");
}

// Bad usage is exit 2 with one line before any profile is read.
TEST(CreateQpFlags, UsageIsTwo) {
  int loads = 0;
  DiagEnv env;
  env.load = [&](const std::optional<std::string>&, const std::optional<std::string>&) -> absl::StatusOr<DiagInputs> {
    ++loads;
    return absl::UnavailableError("not in this test");
  };
  struct Row {
    std::vector<std::string> args;
    const char* says;
  } rows[] = {
      {{}, "rdmacheck diag: name a tool: create-qp (see rdmacheck diag --help)\n"},
      {{"nonsense"}, "rdmacheck diag: unknown tool 'nonsense' (see rdmacheck diag --help)\n"},
      {{"create-qp", "--max-send-wr", "lots"},
       "rdmacheck diag create-qp: --max-send-wr: 'lots' is not a whole number from 0 to 4294967295 "
       "(see rdmacheck diag create-qp --help)\n"},
      {{"create-qp", "--type", "XRC"},
       "rdmacheck diag create-qp: --type: 'XRC' is not one of RC, UC, UD (see rdmacheck diag create-qp --help)\n"},
      {{"create-qp", "--class", "x"},
       "rdmacheck diag create-qp: --class needs --plan (see rdmacheck diag create-qp --help)\n"},
      {{"create-qp", "--bogus", "1"},
       "rdmacheck diag create-qp: unknown flag --bogus (see rdmacheck diag create-qp --help)\n"},
      {{"create-qp", "--format=xml"},
       "rdmacheck diag create-qp: --format: 'xml' is not one of text, json (see rdmacheck diag create-qp --help)\n"},
  };
  for (const Row& r : rows) {
    std::ostringstream out, err;
    EXPECT_EQ(RunDiagCli(r.args, out, err, env), 2) << r.says;
    EXPECT_EQ(err.str(), r.says);
  }
  EXPECT_EQ(loads, 0);
}

TEST(CreateQpFlags, Help) {
  DiagEnv env;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"create-qp", "--help"}, std::vector<std::string>{"create-qp", "-d", "rxe0", "-h"}}) {
    std::ostringstream out, err;
    EXPECT_EQ(RunDiagCli(args, out, err, env), 0);
    EXPECT_THAT(out.str(), HasSubstr("Usage: rdmacheck diag create-qp [FLAGS]"));
    EXPECT_THAT(out.str(), HasSubstr("--max-inline-data N"));
  }
  std::ostringstream out, err;
  EXPECT_EQ(RunDiagCli({"--help"}, out, err, env), 0);
  EXPECT_THAT(out.str(), HasSubstr("Usage: rdmacheck diag TOOL [FLAGS]"));
}

}  // namespace
}  // namespace rdmacheck
