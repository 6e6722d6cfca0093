#include "facts/port_rate.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ParseRate, SysfsTextAndWrittenForms) {
  const struct {
    const char* text;
    double gbps;
    std::optional<int> lanes;
    const char* speed;  // "" when none
  } rows[] = {
      // drivers/infiniband/core/sysfs.c rate_show: "%d%s Gb/sec (%dX%s)".
      {"100 Gb/sec (4X EDR)", 100, 4, "EDR"},
      {"25 Gb/sec (1X EDR)", 25, 1, "EDR"},
      {"10 Gb/sec (1X FDR10)", 10, 1, "FDR10"},  // rxe on a 10 GbE netdev
      {"2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR"},
      {"56 Gb/sec (4X FDR)", 56, 4, "FDR"},
      {"200 Gb/sec (4X HDR)", 200, 4, "HDR"},
      {"100 Gb/sec (2X HDR)", 100, 2, "HDR"},  // HDR100, a split cable
      {"400 Gb/sec (4X NDR)", 400, 4, "NDR"},
      {"300 Gb/sec (12X EDR)", 300, 12, "EDR"},
      {"100 Gb/sec (4X edr)\n", 100, 4, "EDR"},
      {"40 Gb/sec (4X)", 40, 4, ""},
      // As a plan writes it.
      {"100 Gb/sec", 100, std::nullopt, ""},
      {"100 Gb/s", 100, std::nullopt, ""},
      {"100Gb/s", 100, std::nullopt, ""},
      {"100 Gbps", 100, std::nullopt, ""},
      {"100 GBPS", 100, std::nullopt, ""},
      {"100G", 100, std::nullopt, ""},
      {"56", 56, std::nullopt, ""},
      {"12.5 Gb/sec", 12.5, std::nullopt, ""},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.text);
    ASSERT_OK_AND_ASSIGN(PortRate got, ParseRate(r.text));
    EXPECT_DOUBLE_EQ(got.gbps, r.gbps);
    EXPECT_EQ(got.lanes, r.lanes);
    EXPECT_EQ(got.speed ? std::string(got.speed->name) : "", r.speed);
  }
}

TEST(ParseRate, MalformedTextSaysWhatIsWrong) {
  const struct {
    const char* text;
    const char* detail;
  } rows[] = {
      {"fast", "'fast' is not a rate in Gb/s (write e.g. 100 Gb/sec"},
      {"", "'' is not a rate in Gb/s"},
      {"100 Mb/s", "'100 Mb/s' is not a rate in Gb/s"},
      {"-100 Gb/s", "is not a rate in Gb/s"},
      {"1e2 Gb/s", "is not a rate in Gb/s"},
      {"Gb/sec (4X EDR)", "is not a rate in Gb/s"},
      {"100 Gb/sec (4X EDR", "opens a '(' it does not close"},
      {"100 Gb/sec (3X EDR)", "has width '3X' (1X, 2X, 4X, 8X or 12X)"},
      {"100 Gb/sec (4X GDR)", "has speed 'GDR' (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)"},
      {"100 Gb/sec (4X EDR extra)", "bad width and speed in parentheses"},
      {"100 Gb/sec ()", "bad width and speed in parentheses"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.text);
    EXPECT_THAT(ParseRate(r.text), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(r.detail)));
  }
}

TEST(Codes, SpeedsAndWidthsAsIbVerbsNumbersThem) {
  const struct {
    int code;
    const char* name;
    double lane;
  } speeds[] = {{1, "SDR", 2.5},  {2, "DDR", 5},   {4, "QDR", 10},    {8, "FDR10", 10}, {16, "FDR", 14},
                {32, "EDR", 25},  {64, "HDR", 50}, {128, "NDR", 100}, {256, "XDR", 200}};
  for (const auto& s : speeds) {
    ASSERT_NE(SpeedOfCode(s.code), nullptr) << s.code;
    EXPECT_EQ(SpeedOfCode(s.code)->name, s.name);
    EXPECT_DOUBLE_EQ(SpeedOfCode(s.code)->lane_gbps, s.lane);
    EXPECT_EQ(SpeedNamed(s.name), SpeedOfCode(s.code));
  }
  EXPECT_EQ(SpeedOfCode(0), nullptr);
  EXPECT_EQ(SpeedOfCode(3), nullptr);
  EXPECT_EQ(SpeedNamed("hdr"), SpeedOfCode(64));
  EXPECT_EQ(SpeedNamed("GDR"), nullptr);
  EXPECT_EQ(WidthLanes(1), 1);
  EXPECT_EQ(WidthLanes(2), 4);
  EXPECT_EQ(WidthLanes(4), 8);
  EXPECT_EQ(WidthLanes(8), 12);
  EXPECT_EQ(WidthLanes(16), 2);
  EXPECT_EQ(WidthLanes(3), std::nullopt);
  EXPECT_EQ(LanesNamed("12X"), 12);
  EXPECT_EQ(LanesNamed("2x"), 2);
  EXPECT_EQ(LanesNamed("3X"), std::nullopt);
  EXPECT_EQ(LanesNamed("04X"), std::nullopt);
  EXPECT_EQ(LanesNamed("4"), std::nullopt);
}

TEST(RateOfPort, TextFirstThenCodes) {
  PortInfo p;
  EXPECT_THAT(RateOfPort(p), StatusIs(absl::StatusCode::kNotFound, HasSubstr("no rate text")));
  p.active_speed = 32;  // EDR
  p.active_width = 1;   // 1X
  ASSERT_OK_AND_ASSIGN(PortRate codes, RateOfPort(p));
  EXPECT_DOUBLE_EQ(codes.gbps, 25);
  EXPECT_EQ(FormatRate(codes), "25 Gb/s (1X EDR)");

  // The text wins where the two disagree: it is what the kernel said.
  p.rate = "100 Gb/sec (4X EDR)";
  ASSERT_OK_AND_ASSIGN(PortRate text, RateOfPort(p));
  EXPECT_EQ(FormatRate(text), "100 Gb/s (4X EDR)");

  // Width and speed the text leaves out come from the codes.
  p.rate = "25 Gb/sec";
  ASSERT_OK_AND_ASSIGN(PortRate filled, RateOfPort(p));
  EXPECT_EQ(FormatRate(filled), "25 Gb/s (1X EDR)");

  p.rate = "garbage";
  EXPECT_THAT(RateOfPort(p), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("rate 'garbage' is not a rate in Gb/s")));
  p.rate.reset();
  p.active_speed = 3;
  EXPECT_THAT(RateOfPort(p), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("active_speed 3 is not an IB speed code")));
  p.active_speed = 64;
  p.active_width = 5;
  EXPECT_THAT(RateOfPort(p), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("active_width 5 is not an IB width code")));
  p.active_width = 16;  // 2X HDR: HDR100
  ASSERT_OK_AND_ASSIGN(PortRate hdr100, RateOfPort(p));
  EXPECT_EQ(FormatRate(hdr100), "100 Gb/s (2X HDR)");
}

TEST(FormatRate, NumbersAsPeopleWriteThem) {
  PortRate r;
  r.gbps = 12.5;
  EXPECT_EQ(FormatRate(r), "12.5 Gb/s");
  r.gbps = 2.5;
  r.lanes = 1;
  EXPECT_EQ(FormatRate(r), "2.5 Gb/s (1X)");
  EXPECT_EQ(FormatGbps(100), "100");
}

}  // namespace
}  // namespace rdmacheck
