// Explainer: streams log lines through an ExplainRuleSet and collects each
// distinct finding once (key: rule id + the values of the rule's key
// captures), with its count and its first and last position. A finding of a
// rule that `follows` another is grouped under the earlier finding it follows
// in the same input, so a log of 40 echoing lines yields its one cause.
// Memory stays
// bounded whatever the input size: lines are never held beyond the current
// one, a line is cut at ExplainOptions::max_line_bytes (the rest of it is
// skipped and counted in Stats::truncated_lines), and at most max_findings
// distinct findings are kept (later new ones are counted in dropped_findings).
//
//   RDMACHECK_ASSIGN_OR_RETURN(auto rules, ExplainRuleSet::LoadEmbedded());
//   Explainer ex(*rules);
//   RDMACHECK_RETURN_IF_ERROR(ex.ConsumeStream(file, "ib_write_bw.log"));
//   for (const Finding& f : ex.findings()) {
//     std::cout << f.rule->id << " x" << f.count << "\n";
//   }
#ifndef RDMACHECK_TOOLS_DIAG_EXPLAIN_H_
#define RDMACHECK_TOOLS_DIAG_EXPLAIN_H_

#include <chrono>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tools/diag/explain_rules.h"

namespace rdmacheck {

struct ExplainOptions {
  size_t max_line_bytes = 64 * 1024;  // longer lines: the first bytes are matched
  size_t max_findings = 10000;        // distinct findings kept
  size_t max_example_bytes = 512;     // of the first matching line, kept verbatim
  size_t max_unexplained = 20;        // error-like lines no rule knows, kept to show
  // Unset: each stretch of input runs on the matcher that measured faster
  // on this input (MatcherChoice); set: that one throughout (tests, bench).
  std::optional<ExplainRuleSet::Matcher> matcher;
};

// Which of ExplainRuleSet's two matchers runs the next lines. They give the
// same answers at different speeds, and which is faster depends on the
// input: the prefilter on text the set's DFA has not seen (a real log, read
// once), the set on text it has (a log of a few lines repeated). So the
// input is read in stretches of 1 MiB, each timed: the first four on the
// prefilter (an input under 4 MiB never leaves it: the set's trial on text
// it has not seen costs more than it can win back there), the next three on
// the set (cold, then warmer: its DFA keeps the states it builds), then each
// on whichever has the lower best time per byte of its last three stretches
// (a stretch's time on a shared machine varies up to 2x; the best of three
// does not). The other is timed again now and then: the prefilter, whose
// speed does not grow with use, after 64 stretches; the set after 16, and
// after twice as many each time it loses again (at most 256), so a log the
// set stays slow on pays little for the tries.
class MatcherChoice {
 public:
  using Matcher = ExplainRuleSet::Matcher;
  explicit MatcherChoice(std::optional<Matcher> fixed) : fixed_(fixed) {}
  Matcher current() const { return fixed_ ? *fixed_ : current_; }
  // After each line of `bytes`.
  void Count(size_t bytes) {
    if (fixed_) return;
    if (bytes_ == 0) start_ = std::chrono::steady_clock::now();
    bytes_ += bytes + 1;
    if (bytes_ >= kStretchBytes) EndStretch();
  }
  // Stretches run on each matcher so far (for tests and the bench).
  int64_t stretches(Matcher m) const { return runs_[Index(m)]; }
  // The stretch just read on current() took this long per byte: chooses
  // the matcher of the next (Count calls it; tests call it directly).
  void Timed(double ns_per_byte);

 private:
  static constexpr size_t kStretchBytes = 1 << 20;
  static constexpr int64_t kFirstOnPrefilter = 4, kFirstOnSet = 3;
  static constexpr int64_t kRetimeSet = 16, kRetimeSetMost = 256, kRetimePrefilter = 64;
  // A set that lost by little (within kClose of the prefilter) may still be
  // warming its DFA (a big rule base needs several MiB of a repeating log):
  // it is tried again after kRetimeClose stretches until it has run kWarm.
  static constexpr double kClose = 1.5;
  static constexpr int64_t kRetimeClose = 4, kWarm = 10;
  static constexpr int kKept = 3;  // stretch times kept per matcher
  static int Index(Matcher m) { return m == Matcher::kSet ? 1 : 0; }
  void EndStretch();

  std::optional<Matcher> fixed_;
  Matcher current_ = Matcher::kPrefilter;
  size_t bytes_ = 0;
  std::chrono::steady_clock::time_point start_;
  int64_t since_ = 0;                 // stretches since the other was timed
  int64_t set_after_ = kRetimeSet;    // when the prefilter leads: the set's next try
  bool retiming_ = false;             // the current stretch times the other
  int64_t runs_[2] = {0, 0};
  double ns_per_byte_[2][kKept] = {{-1, -1, -1}, {-1, -1, -1}};  // the last ones', -1: none yet
};

struct LinePosition {
  std::string source;  // file name, or "-" for stdin
  int64_t line = 0;    // 1-based
};

struct Finding {
  const ExplainRule* rule = nullptr;  // owned by the ExplainRuleSet
  Captures captures;                  // of the first occurrence
  int64_t count = 0;
  LinePosition first;
  LinePosition last;
  std::string first_line;  // text of the first occurrence (cut at max_example_bytes)
  // Index (in Explainer::findings()) of the root finding this one is grouped
  // under, or -1: set when the rule `follows` a rule whose finding came
  // earlier in the same input ("Couldn't create IB resources" after "Unable
  // to create QP"); always a root itself, never a grouped finding.
  int grouped_under = -1;

  // The rule's texts with this finding's captures filled in.
  std::string Diagnosis() const;
  std::vector<std::string> Causes() const;
  std::vector<std::string> Remediation() const;
  // "rdmacheck --checks memlock,device-limits", or "" when no check confirms.
  std::string ConfirmCommand() const;
};

// A line no rule knows that reads like an error (ExplainRuleSet::
// kErrorLikePattern): what a log from a stack the rules lack still shows.
struct UnexplainedLine {
  LinePosition at;
  std::string text;  // cut at max_example_bytes
};

struct ExplainStats {
  int64_t lines = 0;
  int64_t bytes = 0;
  int64_t matched_lines = 0;
  int64_t unexplained_lines = 0;  // error-like lines no rule matched
  int64_t truncated_lines = 0;
  int64_t dropped_findings = 0;  // occurrences of findings beyond max_findings
  std::vector<std::string> sources;
};

class Explainer {
 public:
  // `rules` must outlive the Explainer and its findings.
  explicit Explainer(const ExplainRuleSet& rules, ExplainOptions options = {});

  // Starts a new input; line numbers restart at 1.
  void BeginSource(absl::string_view name);
  // Takes the next bytes of the current source, in chunks of any size.
  void Feed(absl::string_view bytes);
  // Ends the current source; a last line without '\n' is consumed.
  void EndSource();
  // BeginSource + Feed (in 1 MiB reads) + EndSource. DataLoss if the stream
  // fails with a read error before its end.
  absl::Status ConsumeStream(std::istream& in, absl::string_view name);

  // One complete line (no '\n'), numbered as the next line of the source.
  void ConsumeLine(absl::string_view line);

  // Distinct findings, in order of first appearance.
  const std::vector<Finding>& findings() const { return findings_; }
  // Findings that are not grouped under another.
  size_t root_findings() const;
  const ExplainStats& stats() const { return stats_; }
  const MatcherChoice& matcher_choice() const { return matcher_; }
  // The first error-like lines no rule matched (at most max_unexplained;
  // stats().unexplained_lines counts them all).
  const std::vector<UnexplainedLine>& unexplained() const { return unexplained_; }

 private:
  void Record(absl::string_view line, LineMatch& m);

  const ExplainRuleSet& rules_;
  ExplainOptions options_;
  ExplainStats stats_;
  std::string source_ = "-";
  int64_t line_no_ = 0;
  std::string pending_;        // the start of a line split across chunks
  bool skipping_ = false;      // inside the cut-off tail of a long line
  LineMatch scratch_;
  MatcherChoice matcher_;
  std::string key_scratch_;
  absl::flat_hash_map<std::string, size_t> index_;  // key -> findings_ index
  std::vector<std::vector<int>> follows_;  // per rule: indices of its `follows`
  // Per rule: the finding of its latest line in the current source, or -1.
  std::vector<int> latest_in_source_;
  std::vector<Finding> findings_;
  std::vector<UnexplainedLine> unexplained_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_DIAG_EXPLAIN_H_
