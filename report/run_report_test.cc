#include "checks/run_report.h"

#include "gtest/gtest.h"
#include "report/internal/test_report.h"

namespace rdmacheck {
namespace {

TEST(RunReportTest, CountsEachVerdict) {
  const RunReport rep = report_testing::SampleReport();
  EXPECT_EQ(rep.Count(Verdict::kPass), 2);
  EXPECT_EQ(rep.Count(Verdict::kWarn), 1);
  EXPECT_EQ(rep.Count(Verdict::kFail), 1);
  EXPECT_EQ(rep.Count(Verdict::kSkip), 1);
}

TEST(RunReportTest, EmptyRunCountsZero) {
  const RunReport rep;
  EXPECT_EQ(rep.Count(Verdict::kPass), 0);
  EXPECT_EQ(rep.Count(Verdict::kFail), 0);
  EXPECT_EQ(rep.tool_version, kToolVersion);
}

}  // namespace
}  // namespace rdmacheck
