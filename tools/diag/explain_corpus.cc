#include "tools/diag/explain_corpus.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "util/input_file.h"

namespace rdmacheck {

absl::StatusOr<std::vector<CorpusRow>> ParseCorpus(absl::string_view text,
                                                   absl::string_view file) {
  std::vector<CorpusRow> rows;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (absl::StripAsciiWhitespace(line).empty() || line[0] == '#') continue;
    std::vector<absl::string_view> f = absl::StrSplit(line, absl::MaxSplits('\t', 3));
    if (f.size() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ":", line_no, ": expected 4 tab-separated fields "
          "(expect, source, cause, line), got ", f.size()));
    }
    static constexpr const char* kNames[] = {"expect", "source", "cause", "line"};
    for (int i = 0; i < 4; ++i) {
      if (absl::StripAsciiWhitespace(f[i]).empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ":", line_no, ": field '", kNames[i], "' is empty"));
      }
    }
    rows.push_back({std::string(file), line_no,
                    std::string(absl::StripAsciiWhitespace(f[0])),
                    std::string(f[1]), std::string(f[2]), std::string(f[3])});
  }
  return rows;
}

absl::StatusOr<std::vector<CorpusRow>> ReadCorpusFile(const std::string& path) {
  constexpr uint64_t kMaxCorpusBytes = uint64_t{64} << 20;
  absl::StatusOr<std::string> text =
      ReadInputFile("ReadCorpusFile", path, "a corpus file", kMaxCorpusBytes);
  if (!text.ok()) return text.status();
  return ParseCorpus(*text, path);
}

CorpusScore ScoreCorpus(const ExplainRuleSet& rules,
                        const std::vector<CorpusRow>& rows) {
  CorpusScore score;
  LineMatch m;
  for (const CorpusRow& row : rows) {
    CorpusFileScore& fs = score.files[row.file];
    bool matched = rules.Classify(row.line, &m);
    std::string got = matched ? rules.rules()[m.rule].id : "";
    if (row.near_miss()) {
      ++fs.near_misses;
      ++score.total.near_misses;
      if (matched) {
        ++fs.false_positives;
        ++score.total.false_positives;
        score.misses.push_back({&row, got});
      }
      continue;
    }
    ++fs.errors;
    ++score.total.errors;
    if (rules.RuleIndex(row.expect) < 0 &&
        std::find(score.unknown_rules.begin(), score.unknown_rules.end(),
                  row.expect) == score.unknown_rules.end()) {
      score.unknown_rules.push_back(row.expect);
    }
    if (got == row.expect) {
      ++fs.right;
      ++score.total.right;
      ++score.rows_per_rule[got];
    } else {
      score.misses.push_back({&row, got});
    }
  }
  return score;
}

namespace {

std::string Percent(int part, int whole) {
  if (whole == 0) return "-";
  return absl::StrFormat("%.1f%%", 100.0 * part / whole);
}

void PrintRow(const std::string& name, const CorpusFileScore& s, std::ostream& out) {
  out << absl::StrFormat("%-44s %5d %5d %7s %6d %4d\n", name, s.errors, s.right,
                         Percent(s.right, s.errors), s.near_misses,
                         s.false_positives);
}

}  // namespace

void PrintCorpusScore(const CorpusScore& score, std::ostream& out) {
  out << absl::StrFormat("%-44s %5s %5s %7s %6s %4s\n", "file", "lines", "right",
                         "cover", "near", "fp");
  for (const auto& [name, s] : score.files) PrintRow(name, s, out);
  PrintRow("total", score.total, out);
  for (const CorpusMiss& miss : score.misses) {
    const CorpusRow& r = *miss.row;
    std::string what =
        r.near_miss() ? absl::StrCat("near miss matched by ", miss.got)
        : miss.got.empty()
            ? absl::StrCat("expected ", r.expect, ", no rule matched")
            : absl::StrCat("expected ", r.expect, ", won by ", miss.got);
    out << r.file << ":" << r.line_no << ": " << what << ": "
        << r.line.substr(0, 160) << "\n";
  }
  for (const std::string& id : score.unknown_rules) {
    out << "unknown rule id in the corpus: " << id << "\n";
  }
}

}  // namespace rdmacheck
