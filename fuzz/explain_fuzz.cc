// The explainer (the embedded rule base) on any bytes as a log, in two
// chunks split where the first byte says, and its text and JSON output; and
// each line classified by both matchers, which must agree.
#include <memory>
#include <sstream>

#include "absl/strings/str_split.h"

#include "fuzz/fuzz_util.h"
#include "tools/diag/explain.h"
#include "tools/diag/explain_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rdmacheck::ExplainRuleSet* rules = [] {
    auto r = rdmacheck::ExplainRuleSet::LoadEmbedded();
    if (!r.ok()) rdmacheck::fuzz::Broken("the embedded rules do not load", r.status().message());
    return r->release();
  }();
  absl::string_view t = rdmacheck::fuzz::Text(data, size);
  const size_t cut = size ? data[0] % (size + 1) : 0;
  rdmacheck::Explainer e(*rules);
  e.BeginSource("fuzz.log");
  e.Feed(t.substr(0, cut));
  e.Feed(t.substr(cut));
  e.EndSource();
  std::ostringstream text, json;
  rdmacheck::RenderExplainText(e, text);
  rdmacheck::RenderExplainJson(e, json);
  using M = rdmacheck::ExplainRuleSet::Matcher;
  // The matchers compared on the input's first 16 KiB: the fuzzer's inputs
  // are smaller; the seed files replayed as a test are the corpus, whose
  // every row explain_corpus_test already runs both ways (the set matcher on
  // unseen lines under ASan took the replay past its minute).
  constexpr size_t kCompareBytes = 16 << 10;
  for (absl::string_view line : absl::StrSplit(t.substr(0, kCompareBytes), '\n')) {
    rdmacheck::LineMatch a, b;
    bool a_error_like = false, b_error_like = false;
    const bool by_set = rules->Classify(line, &a, &a_error_like, M::kSet);
    const bool by_prefilter = rules->Classify(line, &b, &b_error_like, M::kPrefilter);
    if (by_set != by_prefilter || a_error_like != b_error_like ||
        (by_set && (a.rule != b.rule || a.pattern != b.pattern || a.captures != b.captures))) {
      rdmacheck::fuzz::Broken("the matchers disagree on a line", line);
    }
  }
  return 0;
}
