#include "report/internal/text_util.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck::report_internal {
namespace {

using ::testing::ElementsAre;

TEST(EvidenceLineTest, ExpectedAndFactRows) {
  EXPECT_EQ(EvidenceLine({"rxe0 port 1 state", "ACTIVE", "DOWN", Verdict::kFail}),
            "rxe0 port 1 state: expected ACTIVE, actual DOWN");
  EXPECT_EQ(EvidenceLine({"rxe0 port 1 netdev", "", "va", Verdict::kPass}),
            "rxe0 port 1 netdev: va");
}

TEST(FormatSecondsTest, FixedDecimals) {
  EXPECT_EQ(FormatSeconds(0.012, 2), "0.01");
  EXPECT_EQ(FormatSeconds(0.0001, 6), "0.000100");
  EXPECT_EQ(FormatSeconds(12.5, 2), "12.50");
}

struct EscapeRow {
  std::string in;
  std::string terminal;
  std::string xml_text;
  std::string xml_attr;
};

TEST(EscapeTest, Table) {
  const EscapeRow rows[] = {
      {"plain", "plain", "plain", "plain"},
      {"a<b>&\"c'", "a<b>&\"c'", "a&lt;b&gt;&amp;\"c'", "a&lt;b&gt;&amp;&quot;c&apos;"},
      {"tab\tnl\ncr\r", "tab\tnl\ncr\\x0d", "tab\tnl\ncr&#13;", "tab&#9;nl&#10;cr&#13;"},
      {"esc\x1b[31m", "esc\\x1b[31m", "esc\\x1b[31m", "esc\\x1b[31m"},
      {std::string("nul\0x", 5), "nul\\x00x", "nul\\x00x", "nul\\x00x"},
      {"bell\x07 del\x7f", "bell\\x07 del\\x7f", "bell\\x07 del\x7f", "bell\\x07 del\x7f"},
      {"csi\xc2\x9b", "csi\\u009b", "csi\xc2\x9b", "csi\xc2\x9b"},  // C1: allowed in XML
      {"\xc3\xa9t\xc3\xa9 \xe2\x9c\x93", "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93",
       "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93", "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93"},
      {"bad\xff", "bad\xff", "bad\xef\xbf\xbd", "bad\xef\xbf\xbd"},
      {"overlong\xc0\xaf", "overlong\xc0\xaf", "overlong\xef\xbf\xbd\xef\xbf\xbd",
       "overlong\xef\xbf\xbd\xef\xbf\xbd"},
      {"surrogate\xed\xa0\x80", "surrogate\xed\xa0\x80",
       "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
       "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
      {"truncated\xe2\x9c", "truncated\xe2\x9c", "truncated\xef\xbf\xbd\xef\xbf\xbd",
       "truncated\xef\xbf\xbd\xef\xbf\xbd"},
      {"nonchar\xef\xbf\xbe", "nonchar\xef\xbf\xbe", "nonchar\\uFFFE", "nonchar\\uFFFE"},
      {"cdata ]]> end", "cdata ]]> end", "cdata ]]&gt; end", "cdata ]]&gt; end"},
  };
  for (const EscapeRow& row : rows) {
    EXPECT_EQ(TerminalSafe(row.in), row.terminal) << row.in;
    EXPECT_EQ(XmlEscape(row.in, /*attribute=*/false), row.xml_text) << row.in;
    EXPECT_EQ(XmlEscape(row.in, /*attribute=*/true), row.xml_attr) << row.in;
  }
}

TEST(WrapLinesTest, WrapsOnSpacesAndKeepsLongWords) {
  EXPECT_THAT(WrapLines("aa bb cc dd", 5), ElementsAre("aa bb", "cc dd"));
  EXPECT_THAT(WrapLines("aa\nbb cc", 5), ElementsAre("aa", "bb cc"));
  EXPECT_THAT(WrapLines("averyverylongword x", 5), ElementsAre("averyverylongword", "x"));
  EXPECT_THAT(WrapLines("no wrap at all", 0), ElementsAre("no wrap at all"));
  EXPECT_THAT(WrapLines("", 10), ElementsAre(""));
}

TEST(ValidUtf8Test, ReplacesOnlyWhatIsNotUtf8) {
  EXPECT_EQ(ValidUtf8("rxe0 \xc3\xa9\n\"q\""), "rxe0 \xc3\xa9\n\"q\"");
  EXPECT_EQ(ValidUtf8("bad\xff"), "bad\xef\xbf\xbd");
  EXPECT_EQ(ValidUtf8("cut\xe2\x9c"), "cut\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(SingleLineTest, Table) {
  const struct {
    std::string in, out;
  } rows[] = {
      {"plain", "plain"},
      {"  two\n  lines\t\r\n", "two lines"},
      {"esc\x1b[31m red", "esc [31m red"},
      {std::string("nul\0x", 5), "nul x"},
      {"csi\xc2\x9b del\x7f", "csi del"},
      {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},
      {"bad\xff end", "bad\xef\xbf\xbd end"},
      {"", ""},
  };
  for (const auto& row : rows) EXPECT_EQ(SingleLine(row.in), row.out) << row.in;
}

TEST(TruncateUtf8Test, FitsOrCutsOnACharacterBoundaryWithTheMarker) {
  EXPECT_EQ(TruncateUtf8("short", 10, "..."), "short");
  EXPECT_EQ(TruncateUtf8("exactly10!", 10, "..."), "exactly10!");
  EXPECT_EQ(TruncateUtf8("abcdefghijk", 10, "..."), "abcdefg...");
  // "\xc3\xa9" is one character: never cut in two.
  EXPECT_EQ(TruncateUtf8("abcdef\xc3\xa9ghij", 10, "..."), "abcdef...");
  EXPECT_EQ(TruncateUtf8("abcde\xc3\xa9ghij", 10, "..."), "abcde\xc3\xa9...");
  EXPECT_EQ(TruncateUtf8("\xe2\x9c\x93\xe2\x9c\x93\xe2\x9c\x93", 8, "..."),
            "\xe2\x9c\x93...");
  // No blank before the marker.
  EXPECT_EQ(TruncateUtf8("state: DOWN", 10, "..."), "state:...");
  EXPECT_EQ(TruncateUtf8("abc", 2, ".."), "..");
}

}  // namespace
}  // namespace rdmacheck::report_internal
