// explain_corpus: scores corpus files (tools/diag/explain_corpus.h) against
// the built-in rule base, or --rules PATH. Exit 0 when every row is right,
// 1 when some are not, 2 on bad input.
//
//   bazel run //tools/diag:explain_corpus -- $PWD/fixtures/explain/corpus/*.tsv
#include <iostream>
#include <string>
#include <vector>

#include "tools/diag/explain_corpus.h"
#include "tools/diag/explain_rules.h"

int main(int argc, char** argv) {
  using namespace rdmacheck;
  std::string rules_path;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rules" && i + 1 < argc) {
      rules_path = argv[++i];
    } else if (a == "-h" || a == "--help") {
      std::cout << "usage: explain_corpus [--rules PATH] FILE.tsv...\n";
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::cerr << "explain_corpus: no corpus file given (usage: explain_corpus "
                 "[--rules PATH] FILE.tsv...)\n";
    return 2;
  }
  auto rules = rules_path.empty() ? ExplainRuleSet::LoadEmbedded()
                                  : ExplainRuleSet::LoadFile(rules_path);
  if (!rules.ok()) {
    std::cerr << "explain_corpus: " << rules.status().message() << "\n";
    return 2;
  }
  std::vector<CorpusRow> rows;
  for (const std::string& f : files) {
    auto got = ReadCorpusFile(f);
    if (!got.ok()) {
      std::cerr << "explain_corpus: " << got.status().message() << "\n";
      return 2;
    }
    rows.insert(rows.end(), got->begin(), got->end());
  }
  CorpusScore score = ScoreCorpus(**rules, rows);
  PrintCorpusScore(score, std::cout);
  return score.misses.empty() && score.unknown_rules.empty() ? 0 : 1;
}
