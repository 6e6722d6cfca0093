#include "report/npd.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/internal/test_report.h"

namespace rdmacheck {
namespace {

using ::testing::EndsWith;
using ::testing::StartsWith;

// Indexes into SampleReport().results.
constexpr int kPass = 0, kFail = 1, kWarn = 2, kSkip = 3;

RunReport Without(RunReport rep, std::initializer_list<int> drop) {
  std::vector<Result> keep;
  for (int i = 0; i < static_cast<int>(rep.results.size()); ++i)
    if (std::find(drop.begin(), drop.end(), i) == drop.end()) keep.push_back(rep.results[i]);
  rep.results = keep;
  return rep;
}

TEST(NpdTest, FailNamesItsFailingRowAndCountsTheOthers) {
  NpdStatus s = RenderNpd(report_testing::SampleReport());
  EXPECT_EQ(s.line, "FAIL port-active: rxe0 port 1 state: DOWN (+1 WARN)");
  EXPECT_EQ(s.exit_code, 1);
}

TEST(NpdTest, WorstVerdictBeforeRunOrder) {
  RunReport rep = report_testing::SampleReport();
  std::swap(rep.results[kFail], rep.results[kWarn]);  // the WARN now runs first
  Result second_fail = rep.results[kWarn];
  second_fail.id = "rxe-setup";
  second_fail.evidence = {{"rxe0 netdev va operstate", "up", "down", Verdict::kFail}};
  rep.results.push_back(second_fail);
  NpdStatus s = RenderNpd(rep);
  EXPECT_EQ(s.line, "FAIL port-active: rxe0 port 1 state: DOWN (+1 FAIL, 1 WARN)");
  EXPECT_EQ(s.exit_code, 1);
}

TEST(NpdTest, WarnOnlyIsHealthyAndStillNamesTheWarning) {
  NpdStatus s = RenderNpd(Without(report_testing::SampleReport(), {kFail}));
  EXPECT_EQ(s.line, "WARN mtu-match: rxe0 port 1 active_mtu: 1024");
  EXPECT_EQ(s.exit_code, 0);
}

TEST(NpdTest, PassCountsPassedAndSkipped) {
  NpdStatus s = RenderNpd(Without(report_testing::SampleReport(), {kFail, kWarn}));
  EXPECT_EQ(s.line, "OK: 2 checks passed, 1 skipped");
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_EQ(RenderNpd(Without(report_testing::SampleReport(), {kFail, kWarn, kSkip})).line,
            "OK: 2 checks passed");
}

TEST(NpdTest, EverythingSkippedIsUnknownWithTheReason) {
  NpdStatus s = RenderNpd(Without(report_testing::SampleReport(), {kPass, kFail, kWarn, 4}));
  EXPECT_EQ(s.line, "UNKNOWN: 1 check skipped: traffic probe needs a live device");
  EXPECT_EQ(s.exit_code, 3);  // NPD: neither 0 nor 1 is Unknown
}

TEST(NpdTest, TitleWhenNoRowCarriesTheVerdict) {
  RunReport rep = Without(report_testing::SampleReport(), {kWarn});
  rep.results[kFail].evidence.clear();
  EXPECT_EQ(RenderNpd(rep).line, "FAIL port-active: Port 1 of rxe0 is ACTIVE");
}

TEST(NpdTest, LongMultiLineUtf8FindingIsCutToOneLineOf80BytesKeepingTheCounts) {
  RunReport rep = report_testing::SampleReport();
  // The head "FAIL ... dropped by:: " is 50 bytes; 67 are left before the
  // marker and the counts, which falls inside the 9th two-byte character.
  std::string actual = "dropped\n  by:: ";
  std::string eight;
  for (int i = 0; i < 30; ++i) actual += "\xc3\xa9";
  for (int i = 0; i < 8; ++i) eight += "\xc3\xa9";
  rep.results[kFail].evidence[0].actual = actual;
  NpdStatus s = RenderNpd(rep);
  EXPECT_EQ(s.line, "FAIL port-active: rxe0 port 1 state: dropped by:: " + eight + "... (+1 WARN)");
  EXPECT_LE(s.line.size(), kNpdMaxLineBytes);
  EXPECT_EQ(s.exit_code, 1);
}

TEST(NpdTest, AShortValueSurvivesALongSubject) {
  RunReport rep = report_testing::SampleReport();
  rep.results[kFail].evidence[0] = {
      "mlx5_0 port 1 link_error_recovery (times the link retrained after errors)",
      "no change over 2.0 s", "+2 in 2.0 s (0.998/s)", Verdict::kFail};
  EXPECT_EQ(RenderNpd(rep).line,
            "FAIL port-active: mlx5_0 port 1 link_error_r...: +2 in 2.0 s (0.998/s) (+1 WARN)");
  EXPECT_EQ(RenderNpd(rep).line.size(), kNpdMaxLineBytes);
  // A value too long for that: the end of the line is cut.
  rep.results[kFail].evidence[0].actual = std::string(60, 'v');
  EXPECT_EQ(RenderNpd(rep).line,
            "FAIL port-active: mlx5_0 port 1 link_error_recovery (times the link... (+1 WARN)");
}

TEST(NpdTest, ErrorLineIsUnknownAndFits) {
  EXPECT_EQ(NpdErrorLine("x.plan:4: max_send_wr: 'lots' is not a number"),
            "UNKNOWN: x.plan:4: max_send_wr: 'lots' is not a number");
  std::string long_path(200, 'p');
  std::string line = NpdErrorLine(long_path + ": No such file or directory");
  EXPECT_EQ(line.size(), kNpdMaxLineBytes);
  EXPECT_THAT(line, StartsWith("UNKNOWN: ppp"));
  EXPECT_THAT(line, EndsWith("p..."));
}

}  // namespace
}  // namespace rdmacheck
