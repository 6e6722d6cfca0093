// ExplainRuleSet: the rule base of `rdmacheck explain`. Each rule maps error
// lines (regular expressions with named captures) to a diagnosis, likely
// causes, a remediation with the captured values filled in, and the
// rdmacheck checks that confirm it. Rules live in data files, one per family
// (tools/diag/rules/*.rules, read in name order and embedded into the binary at
// build time; format in docs/explain.md) and are validated when loaded: every
// pattern compiles, every example line is won by its own rule with the
// expected captures, every near miss matches no rule.
//
//   RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<ExplainRuleSet> rules,
//                              ExplainRuleSet::LoadEmbedded());
//   LineMatch m;
//   if (rules->Classify("Couldn't listen to port 18515", &m)) {
//     const ExplainRule& r = rules->rules()[m.rule];  // r.id == "perftest-port-in-use"
//   }
#ifndef RDMACHECK_TOOLS_DIAG_EXPLAIN_RULES_H_
#define RDMACHECK_TOOLS_DIAG_EXPLAIN_RULES_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "re2/filtered_re2.h"
#include "re2/re2.h"
#include "re2/set.h"

namespace rdmacheck {

// Name -> value pairs, in the order the rule declares its captures.
using Captures = std::vector<std::pair<std::string, std::string>>;

// The check ids a rule may name in `confirm:` ("none" is also accepted, for
// lines no rdmacheck check can confirm).
const std::vector<std::string>& KnownConfirmChecks();

struct ExplainExample {
  std::string line;
  Captures expect;  // from the `expect:` line after the example; may be empty
  int line_no = 0;  // in the rule file
};

struct ExplainRule {
  std::string id;      // "perftest-port-in-use"
  std::string family;  // "perftest", "wc-status", "nccl", ...
  std::vector<std::string> patterns;
  std::vector<int> pattern_lines;  // rule-file line of each pattern
  std::string diagnosis;
  std::vector<std::string> causes;   // most likely first
  std::vector<std::string> remedy;   // may hold ${name} of a capture
  std::vector<std::string> confirm;  // check ids; empty means "none"
  // Captures that make two matches distinct findings; default: all captures.
  std::vector<std::string> key;
  std::vector<ExplainExample> examples;
  std::vector<std::string> near_misses;
  std::vector<std::string> capture_names;  // union over patterns, first seen first
  // Rules whose lines this rule's lines are known to follow ("Couldn't create
  // IB resources" after "Unable to create QP"): such a finding is grouped
  // under the earlier one when it comes after it in the same input.
  std::vector<std::string> follows;
  std::string file;
  int line_no = 0;  // of the `rule:` line
};

// The result of classifying one line: the winning rule (the first rule in file
// order with a matching pattern) and its captures. Captures of groups that did
// not take part in the match are left out.
struct LineMatch {
  int rule = -1;
  int pattern = -1;  // index into the rule's patterns
  Captures captures;
};

// One rule file's text and the name its messages use.
struct RuleSource {
  std::string name;
  absl::string_view text;
};

class ExplainRuleSet {
 public:
  // Parses and validates rule text; `file_name` is used in error messages
  // ("file:line: ..."). InvalidArgument on any malformed rule.
  static absl::StatusOr<std::unique_ptr<ExplainRuleSet>> Parse(
      absl::string_view text, absl::string_view file_name);
  // Whether a load runs every rule's examples and near misses through the
  // compiled set (kCheck), or trusts them (kTrust: text already checked,
  // as the embedded base is by //tools/diag:explain_rules_test).
  enum class Examples { kCheck, kTrust };
  // Several files as one rule base, in the order given (the first matching
  // rule of the first file wins); `set_name` names the whole.
  static absl::StatusOr<std::unique_ptr<ExplainRuleSet>> ParseSources(
      const std::vector<RuleSource>& sources, absl::string_view set_name,
      Examples examples = Examples::kCheck);
  // Reads a rule file, or every *.rules file of a directory in name order
  // (NotFound if it cannot be opened), and parses it.
  static absl::StatusOr<std::unique_ptr<ExplainRuleSet>> LoadFile(
      const std::string& path);
  // The rule base compiled into the binary (tools/diag/rules/*.rules), its
  // examples trusted: checking them took 0.7-1.0 s and 67 MB of every
  // process (the set's DFA built for a thousand distinct lines), and they
  // were checked when the binary was tested.
  static absl::StatusOr<std::unique_ptr<ExplainRuleSet>> LoadEmbedded();

  ~ExplainRuleSet();
  ExplainRuleSet(const ExplainRuleSet&) = delete;
  ExplainRuleSet& operator=(const ExplainRuleSet&) = delete;

  const std::vector<ExplainRule>& rules() const { return rules_; }
  const std::string& file() const { return file_; }

  // Index of the rule with this id, or -1.
  int RuleIndex(absl::string_view id) const;

  // Two ways to find which patterns match a line, with the same answer
  // (docs/explain.md, Matching): kSet runs one RE2::Set of every pattern,
  // whose DFA is fast once it has seen text like the line and slow while it
  // builds states for text it has not (a real log read once: 3-8 MB/s);
  // kPrefilter runs only the patterns whose literals the line holds, each
  // on its own small DFA (such logs: 15-25 MB/s; a log of a few repeated
  // lines is faster on kSet). Explainer measures both on the input.
  enum class Matcher { kSet, kPrefilter };

  // True if some rule matches `line`; fills `m` with the winner. Thread-safe.
  // With `error_like`: when no rule matches, set to whether the line reads
  // like an error all the same (kErrorLikePattern, in the same pass).
  bool Classify(absl::string_view line, LineMatch* m, bool* error_like = nullptr,
                Matcher matcher = Matcher::kPrefilter) const;

  // The words that make a line no rule knows read like an error ("failed",
  // "cannot", "timed out", "WARN", ...): the lines an operator should look at
  // when the rules explain nothing.
  static const char kErrorLikePattern[];

  // Replaces ${name} in `text` with the capture's value; a capture missing
  // from `caps` becomes "<name>".
  static std::string Substitute(absl::string_view text, const Captures& caps);

 private:
  ExplainRuleSet() = default;
  absl::Status Compile();   // builds the RE2s, and the prefilter with its atoms' set
  absl::Status Validate();  // examples and near misses
  // The index (in compiled_, or error_like_index_) of the first pattern
  // `line` matches, or -1.
  int FirstPattern(absl::string_view line, Matcher matcher) const;
  const RE2::Set* Set() const;

  struct CompiledPattern {
    const RE2* re = nullptr;  // owned by filter_
    int rule = 0;
    int pattern = 0;
    // For each of the rule's capture_names: the group index in this pattern,
    // or -1 when this pattern lacks the group.
    std::vector<int> group_of_capture;
  };

  std::string file_;
  std::vector<ExplainRule> rules_;
  std::vector<CompiledPattern> compiled_;
  // Every pattern in file order, then kErrorLikePattern, in both: indices
  // are the same in set_, in filter_ and in compiled_. set_ is built by
  // Set() on first use, and stays null if it does not fit its budget.
  mutable std::once_flag set_once_;
  mutable std::unique_ptr<RE2::Set> set_;
  std::unique_ptr<re2::FilteredRE2> filter_;
  // The prefilter's atoms (lowercase literals) as one set, matched on the
  // lowercased line; null when the patterns gave no atom.
  std::unique_ptr<RE2::Set> atoms_;
  int error_like_index_ = -1;  // after every rule's
  int max_groups_ = 0;
};

// The files of tools/diag/rules/, in name order, compiled in by
// //tools/diag:explain_rules_embed (names as "tools/diag/rules/10-nccl.rules").
const std::vector<RuleSource>& EmbeddedExplainRuleFiles();
// The name of the embedded rule base as a whole, in messages.
inline constexpr absl::string_view kEmbeddedExplainRulesName =
    "tools/diag/rules";

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_EXPLAIN_RULES_H_
