// The explain rule loader on any bytes as a rule file; a rule set it
// accepts classifies its own text line by line.
#include <memory>

#include "absl/strings/str_split.h"
#include "fuzz/fuzz_util.h"
#include "tools/diag/explain_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view t = rdmacheck::fuzz::Text(data, size);
  auto rs = rdmacheck::ExplainRuleSet::Parse(t, "fuzz.rules");
  if (!rs.ok()) return 0;
  rdmacheck::LineMatch m;
  for (absl::string_view line : absl::StrSplit(t, '\n')) (void)(*rs)->Classify(line, &m);
  return 0;
}
