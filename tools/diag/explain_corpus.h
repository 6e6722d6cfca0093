// The explain corpus: real log lines, each with the rule that must win it
// (or "none" for a near miss that no rule may match), its source and the
// cause its source established. Files are tab-separated, one row per line:
//
//   expect<TAB>source-url<TAB>cause<TAB>line
//
// ("#" lines and blank lines are skipped; the log line is the last field and
// may itself hold tabs). ScoreCorpus runs every row through a rule set and
// counts, per file, the rows won by their rule, won by another rule, matched
// by nothing, and near misses that some rule matched.
//
//   RDMACHECK_ASSIGN_OR_RETURN(std::vector<CorpusRow> rows, ReadCorpusFile(path));
//   CorpusScore score = ScoreCorpus(*rules, rows);
//   PrintCorpusScore(score, std::cout);
#ifndef RDMACHECK_TOOLS_DIAG_EXPLAIN_CORPUS_H_
#define RDMACHECK_TOOLS_DIAG_EXPLAIN_CORPUS_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/diag/explain_rules.h"

namespace rdmacheck {

struct CorpusRow {
  std::string file;
  int line_no = 0;
  std::string expect;  // a rule id, or "none"
  std::string source;
  std::string cause;
  std::string line;
  bool near_miss() const { return expect == "none"; }
};

// Reads one corpus file; InvalidArgument "FILE:LINE: ..." for a row without
// its four fields or with an empty one.
absl::StatusOr<std::vector<CorpusRow>> ReadCorpusFile(const std::string& path);
absl::StatusOr<std::vector<CorpusRow>> ParseCorpus(absl::string_view text,
                                                   absl::string_view file);

struct CorpusMiss {
  const CorpusRow* row = nullptr;
  std::string got;  // the rule that won, or "" when none matched
};

struct CorpusFileScore {
  int errors = 0;           // rows that name a rule
  int right = 0;            // ... won by that rule
  int near_misses = 0;      // rows that expect none
  int false_positives = 0;  // ... matched by some rule
};

struct CorpusScore {
  std::map<std::string, CorpusFileScore> files;  // by file name
  CorpusFileScore total;
  std::vector<CorpusMiss> misses;  // wrong rule, no rule, or a false positive
  std::vector<std::string> unknown_rules;  // expected ids the set lacks
  // Per rule: how many rows it won rightly (rules with no row are absent).
  std::map<std::string, int> rows_per_rule;
};

CorpusScore ScoreCorpus(const ExplainRuleSet& rules,
                        const std::vector<CorpusRow>& rows);

// One line per file and a total: error rows explained rightly (percent),
// near misses and false positives; then every miss with its file:line.
void PrintCorpusScore(const CorpusScore& score, std::ostream& out);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_EXPLAIN_CORPUS_H_
