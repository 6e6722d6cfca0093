#include "tools/diag/explain_corpus.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "re2/re2.h"
#include "tools/diag/explain_rules.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

std::vector<CorpusRow> ReadAll(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".tsv") names.push_back(e.path().string());
  }
  std::sort(names.begin(), names.end());
  std::vector<CorpusRow> rows;
  for (const std::string& n : names) {
    auto got = ReadCorpusFile(n);
    EXPECT_TRUE(got.ok()) << got.status();
    if (got.ok()) rows.insert(rows.end(), got->begin(), got->end());
  }
  return rows;
}

// The test of the rule base: every real line of the corpus is won by the
// rule its row names, and no near miss matches any rule. The score is
// printed for the log (coverage per family, false positives).
TEST(ExplainCorpus, EveryRealLineIsExplainedAndNoNearMissMatches) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::LoadEmbedded());
  std::vector<CorpusRow> rows = ReadAll("fixtures/explain/corpus");
  CorpusScore score = ScoreCorpus(*rules, rows);
  std::ostringstream report;
  PrintCorpusScore(score, report);
  std::cout << report.str();
  EXPECT_GE(score.total.errors, 300) << "the corpus must hold >= 300 real error lines";
  EXPECT_GE(score.total.near_misses, 40) << "and >= 40 near misses";
  EXPECT_TRUE(score.misses.empty()) << report.str();
  EXPECT_TRUE(score.unknown_rules.empty()) << report.str();
  // Every row has a real source to check it against.
  for (const CorpusRow& r : rows) {
    EXPECT_TRUE(RE2::PartialMatch(r.source, R"(^https?://\S+$)"))
        << r.file << ":" << r.line_no << ": source is not a URL: " << r.source;
  }
}

// The two matchers (ExplainRuleSet::Matcher) give every row the same
// answer: the same rule and captures, or none and the same error-likeness.
TEST(ExplainCorpus, BothMatchersAgreeOnEveryRow) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::LoadEmbedded());
  std::vector<CorpusRow> rows = ReadAll("fixtures/explain/corpus");
  std::vector<std::string> lines;
  for (const CorpusRow& r : rows) lines.push_back(r.line);
  for (const ExplainRule& r : rules->rules()) {
    for (const ExplainExample& ex : r.examples) lines.push_back(ex.line);
    for (const std::string& nm : r.near_misses) lines.push_back(nm);
  }
  ASSERT_GE(lines.size(), 2000u);
  int matched = 0;
  for (const std::string& line : lines) {
    LineMatch set, pre;
    bool set_error_like = false, pre_error_like = false;
    const bool by_set = rules->Classify(line, &set, &set_error_like, ExplainRuleSet::Matcher::kSet);
    const bool by_pre = rules->Classify(line, &pre, &pre_error_like, ExplainRuleSet::Matcher::kPrefilter);
    ASSERT_EQ(by_set, by_pre) << line;
    EXPECT_EQ(set_error_like, pre_error_like) << line;
    if (!by_set) continue;
    ++matched;
    EXPECT_EQ(set.rule, pre.rule) << line;
    EXPECT_EQ(set.pattern, pre.pattern) << line;
    EXPECT_EQ(set.captures, pre.captures) << line;
  }
  EXPECT_GE(matched, 1500);
}

// Patterns match the stable part of a message, not one log's particulars:
// no literal IPv4 address, clock time, date or long hex value (a pointer,
// a GUID).
TEST(ExplainCorpus, NoPatternCarriesOneLogsParticulars) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::LoadEmbedded());
  const RE2 ipv4(R"((^|[^\\\w])\d{1,3}\\?\.\d{1,3}\\?\.\d{1,3}\\?\.\d{1,3})");
  const RE2 clock(R"(\d\d:\d\d:\d\d)");
  const RE2 date(R"(\d{4}-\d\d-\d\d)");
  const RE2 hex(R"(0x[0-9a-fA-F]{8,})");
  for (const ExplainRule& r : rules->rules()) {
    for (const std::string& p : r.patterns) {
      EXPECT_FALSE(RE2::PartialMatch(p, ipv4)) << r.id << ": " << p;
      EXPECT_FALSE(RE2::PartialMatch(p, clock)) << r.id << ": " << p;
      EXPECT_FALSE(RE2::PartialMatch(p, date)) << r.id << ": " << p;
      EXPECT_FALSE(RE2::PartialMatch(p, hex)) << r.id << ": " << p;
    }
  }
}

constexpr char kRules[] =
    "rule: demo-port\n"
    "family: perftest\n"
    "pattern: listen to port (?P<port>\\d+)\n"
    "diagnosis: d\ncause: c\nremedy: r\nconfirm: none\n"
    "example: Couldn't listen to port 1\nexample: listen to port 22\n"
    "near-miss: listen to port x\n";

TEST(ExplainCorpusScore, CountsRightWrongUnmatchedAndFalsePositives) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::Parse(kRules, "t.rules"));
  ASSERT_OK_AND_ASSIGN(
      std::vector<CorpusRow> rows,
      ParseCorpus("# header\n"
                  "demo-port\thttps://a\tc\tCouldn't listen to port 18515\n"
                  "other-rule\thttps://b\tc\tlisten to port 7\n"
                  "demo-port\thttps://c\tc\tport in use\n"
                  "none\thttps://d\tinfo\tWaiting on port 18515\n"
                  "none\thttps://e\tinfo\tlisten to port 9\twith a tab\n",
                  "x.tsv"));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[4].line, "listen to port 9\twith a tab");
  CorpusScore s = ScoreCorpus(*rules, rows);
  EXPECT_EQ(s.total.errors, 3);
  EXPECT_EQ(s.total.right, 1);
  EXPECT_EQ(s.total.near_misses, 2);
  EXPECT_EQ(s.total.false_positives, 1);
  ASSERT_EQ(s.misses.size(), 3u);
  EXPECT_EQ(s.unknown_rules, std::vector<std::string>{"other-rule"});
  std::ostringstream out;
  PrintCorpusScore(s, out);
  EXPECT_THAT(out.str(), HasSubstr("x.tsv:3: expected other-rule, won by demo-port"));
  EXPECT_THAT(out.str(), HasSubstr("x.tsv:4: expected demo-port, no rule matched"));
  EXPECT_THAT(out.str(), HasSubstr("x.tsv:6: near miss matched by demo-port"));
  EXPECT_THAT(out.str(), HasSubstr("33.3%"));
}

TEST(ExplainCorpusScore, MalformedRowsNameFileAndLine) {
  EXPECT_THAT(ParseCorpus("demo\thttps://a\tcause only\n", "x.tsv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("x.tsv:1: expected 4 tab-separated fields")));
  EXPECT_THAT(ParseCorpus("\n#c\ndemo\t\tc\tline\n", "x.tsv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("x.tsv:3: field 'source' is empty")));
}

}  // namespace
}  // namespace rdmacheck
