#include "report/text.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/internal/test_report.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using report_testing::SampleReport;

std::string Render(const RunReport& rep, bool color) {
  std::ostringstream out;
  RenderText(rep, out, color);
  return out.str();
}

std::vector<std::string> Lines(const std::string& s) {
  return absl::StrSplit(s, '\n');
}

TEST(RenderTextTest, WholeReportWithoutColor) {
  const std::string want =
      "== rdmacheck 0.1.0 on rxeguest | source live | plan <default> | devices rxe0 ==\n"
      "[PASS] device-present  An RDMA device is present\n"
      "      RDMA devices: expected >= 1, actual 1 (rxe0)\n"
      "[FAIL] port-active  Port 1 of rxe0 is ACTIVE\n"
      "      rxe0 port 1 state: expected ACTIVE, actual DOWN  <- FAIL\n"
      "      rxe0 port 1 netdev: va\n"
      "      note: rxe follows the state of its netdev\n"
      "[WARN] mtu-match  Active MTU of rxe0 port 1 is 4096\n"
      "      rxe0 port 1 active_mtu: expected 4096, actual 1024  <- WARN\n"
      "[SKIP] loopback-traffic  RC traffic flows from rxe0 to itself\n"
      "      skipped: traffic probe needs a live device\n"
      "[PASS] gid-roce-v2  rxe0 port 1 has a RoCE v2 GID\n"
      "      rxe0 port 1 GID 1 type: expected RoCE v2, actual RoCE v2\n"
      "\n"
      "== Remediations ==\n"
      "[FAIL] port-active\n"
      "    ip link set dev va up\n"
      "    ibv_devinfo -d rxe0 | grep state\n"
      "[WARN] mtu-match\n"
      "    ip link set dev va mtu 4200\n"
      "\n"
      "== Summary: 2 passed, 1 warned, 1 failed, 1 skipped (5 checks, 0.01 s) ==\n";
  EXPECT_EQ(Render(SampleReport(), /*color=*/false), want);
}

TEST(RenderTextTest, SampleFitsOnEightyColumns) {
  for (const std::string& line : Lines(Render(SampleReport(), false))) {
    EXPECT_LE(line.size(), 80u) << line;
  }
}

TEST(RenderTextTest, NoEscapeSequencesWithoutColorEvenFromInput) {
  RunReport rep = SampleReport();
  rep.results[1].title = "Port \x1b[2J1 of rxe0\r is ACTIVE";  // clear-screen attempt
  rep.results[1].evidence[0].actual = "DOWN\x07";
  const std::string out = Render(rep, false);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_THAT(out, HasSubstr("[FAIL] port-active  Port \\x1b[2J1 of rxe0\\x0d is ACTIVE\n"));
  EXPECT_THAT(out, HasSubstr("expected ACTIVE, actual DOWN\\x07  <- FAIL\n"));
}

TEST(RenderTextTest, ColorCodesPerVerdict) {
  struct Row {
    const char* want;
  } rows[] = {
      {"\033[32m[PASS]\033[0m device-present  An RDMA device is present\n"},
      {"\033[31m[FAIL]\033[0m port-active  Port 1 of rxe0 is ACTIVE\n"},
      {"\033[33m[WARN]\033[0m mtu-match  Active MTU of rxe0 port 1 is 4096\n"},
      {"\033[34m[SKIP]\033[0m loopback-traffic  RC traffic flows from rxe0 to itself\n"},
      {"actual DOWN  \033[31m<- FAIL\033[0m\n"},
      {"\n\033[31m[FAIL]\033[0m port-active\n    ip link set dev va up\n"},
      {"== Summary: \033[32m2 passed\033[0m, \033[33m1 warned\033[0m, "
       "\033[31m1 failed\033[0m, \033[34m1 skipped\033[0m (5 checks, 0.01 s) ==\n"},
  };
  const std::string out = Render(SampleReport(), /*color=*/true);
  for (const Row& row : rows) EXPECT_THAT(out, HasSubstr(row.want));
}

TEST(RenderTextTest, ZeroCountsStayPlainInColor) {
  RunReport rep = SampleReport();
  rep.results = {rep.results[0]};
  EXPECT_THAT(Render(rep, true),
              HasSubstr("== Summary: \033[32m1 passed\033[0m, 0 warned, 0 failed, 0 skipped "
                        "(1 check, 0.01 s) ==\n"));
}

TEST(RenderTextTest, NoRemediationSectionWithoutFailOrWarn) {
  RunReport rep = SampleReport();
  // PASS and SKIP only; a PASS carrying remediation lines still gets no section.
  rep.results = {rep.results[0], rep.results[3], rep.results[4]};
  rep.results[0].remediation = {"echo never shown"};
  const std::string out = Render(rep, false);
  EXPECT_THAT(out, Not(HasSubstr("Remediations")));
  EXPECT_THAT(out, Not(HasSubstr("echo never shown")));
  EXPECT_THAT(out, HasSubstr("== Summary: 2 passed, 0 warned, 0 failed, 1 skipped "
                             "(3 checks, 0.01 s) ==\n"));
}

TEST(RenderTextTest, FailWithoutRemediationSaysSo) {
  RunReport rep = SampleReport();
  rep.results[1].remediation.clear();
  EXPECT_THAT(Render(rep, false),
              HasSubstr("== Remediations ==\n[FAIL] port-active\n    (no remediation given)\n"
                        "[WARN] mtu-match\n"));
}

TEST(RenderTextTest, UnknownHeaderFields) {
  RunReport rep;
  rep.source = "profile:fixtures/profiles/rxe.profile";
  EXPECT_EQ(Render(rep, false),
            "== rdmacheck 0.1.0 on (unknown) | source profile:fixtures/profiles/rxe.profile"
            " | plan (unknown) | devices none ==\n"
            "\n"
            "== Summary: 0 passed, 0 warned, 0 failed, 0 skipped (0 checks, 0.00 s) ==\n");
}

TEST(RenderTextTest, SeveralDevicesInHeader) {
  RunReport rep = SampleReport();
  rep.devices.push_back({"mlx5_0", "mlx5", "20.31.1014", ""});
  EXPECT_EQ(Lines(Render(rep, false))[0],
            "== rdmacheck 0.1.0 on rxeguest | source live | plan <default> | devices rxe0 "
            "mlx5_0 ==");
}

TEST(RenderTextTest, MultiLineFieldsKeepTheirIndent) {
  RunReport rep = SampleReport();
  rep.results = {rep.results[1]};
  rep.results[0].title = "Port 1 of rxe0\nis ACTIVE";
  rep.results[0].evidence[0].actual = "DOWN\n(since boot)";
  rep.results[0].remediation = {"ip link set dev va up\nsleep 1"};
  const std::vector<std::string> lines = Lines(Render(rep, false));
  ASSERT_GE(lines.size(), 12u);
  EXPECT_EQ(lines[1], "[FAIL] port-active  Port 1 of rxe0");
  EXPECT_EQ(lines[2], "      is ACTIVE");
  EXPECT_EQ(lines[3], "      rxe0 port 1 state: expected ACTIVE, actual DOWN");
  EXPECT_EQ(lines[4], "      (since boot)  <- FAIL");
  EXPECT_EQ(lines[9], "[FAIL] port-active");
  EXPECT_EQ(lines[10], "    ip link set dev va up");
  EXPECT_EQ(lines[11], "    sleep 1");
}

TEST(RenderTextTest, LongNotesWrapWithHangingIndent) {
  RunReport rep = SampleReport();
  rep.results = {rep.results[0]};
  rep.results[0].notes = {
      "the kernel reports max_sge as the smaller of the send and receive limits, so the "
      "real send limit is only known after creating a queue pair and reading its caps"};
  const std::vector<std::string> lines = Lines(Render(rep, false));
  EXPECT_EQ(lines[3].rfind("      note: the kernel reports max_sge", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("            ", 0), 0u) << lines[4];
  EXPECT_NE(lines[4][12], ' ');
  for (const std::string& line : lines) EXPECT_LE(line.size(), 80u) << line;
}

TEST(RenderTextTest, SkipWithoutReasonSaysSo) {
  RunReport rep = SampleReport();
  rep.results = {rep.results[3]};
  rep.results[0].skip_reason.clear();
  EXPECT_EQ(Lines(Render(rep, false))[2], "      skipped: (no reason given)");
}

TEST(RenderTimingTest, PhasesInOrderThenChecksSlowestFirst) {
  RunReport rep = SampleReport();
  rep.results[0].seconds = 0.001;
  rep.results[1].seconds = 2.0136;
  rep.results[2].seconds = 0.25;
  const std::string t = RenderTiming(rep.phases, rep.results);
  EXPECT_THAT(t, ::testing::StartsWith("timing: startup 0.010 s\n"
                                       "timing: gather.sysfs rxe0 0.004 s\n"
                                       "timing: checks 0.012 s\n"
                                       "timing: check port-active 2.014 s\n"
                                       "timing: check "));
  EXPECT_LT(t.find("check mtu-match 0.250 s"), t.find("check device-present 0.001 s"));
  EXPECT_EQ(RenderTiming({}, {}), "");
}

}  // namespace
}  // namespace rdmacheck
