#include "tools/diag/explain.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {

std::string Finding::Diagnosis() const {
  return ExplainRuleSet::Substitute(rule->diagnosis, captures);
}

std::vector<std::string> Finding::Causes() const {
  std::vector<std::string> out;
  for (const std::string& c : rule->causes) {
    out.push_back(ExplainRuleSet::Substitute(c, captures));
  }
  return out;
}

std::vector<std::string> Finding::Remediation() const {
  std::vector<std::string> out;
  for (const std::string& c : rule->remedy) {
    out.push_back(ExplainRuleSet::Substitute(c, captures));
  }
  return out;
}

std::string Finding::ConfirmCommand() const {
  if (rule->confirm.empty()) return "";
  return absl::StrCat("rdmacheck --checks ", absl::StrJoin(rule->confirm, ","));
}

void MatcherChoice::EndStretch() {
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start_).count();
  Timed(ns / static_cast<double>(bytes_));
  bytes_ = 0;
}

void MatcherChoice::Timed(double ns_per_byte) {
  const int i = Index(current_);
  ns_per_byte_[i][runs_[i] % kKept] = ns_per_byte;
  ++runs_[i];
  const int64_t stretch = runs_[0] + runs_[1];  // stretches timed so far
  auto best = [this](int m) {
    double b = -1;
    for (double t : ns_per_byte_[m])
      if (t >= 0 && (b < 0 || t < b)) b = t;
    return b;
  };
  const Matcher faster = best(1) >= 0 && best(1) < best(0) ? Matcher::kSet : Matcher::kPrefilter;
  if (stretch < kFirstOnPrefilter) {
    current_ = Matcher::kPrefilter;
    return;
  }
  if (stretch < kFirstOnPrefilter + kFirstOnSet) {
    current_ = Matcher::kSet;  // its first ones, before any choice: cold, then warmer
    return;
  }
  const bool warming = best(1) >= 0 && best(1) < kClose * best(0) && runs_[1] < kWarm;
  if (stretch == kFirstOnPrefilter + kFirstOnSet && faster == Matcher::kPrefilter && warming) {
    set_after_ = kRetimeClose;  // the set's first stretches lost by little
  }
  if (retiming_) {
    // The set lost again: try it after twice as many stretches (soon, while
    // it loses by little and may be warming); won: after the usual number,
    // should it fall behind.
    if (current_ == Matcher::kSet) {
      set_after_ = faster == Matcher::kSet ? kRetimeSet
                   : warming               ? kRetimeClose
                                           : std::min(std::max(set_after_, kRetimeSet) * 2, kRetimeSetMost);
    }
    retiming_ = false;
    since_ = 0;
    current_ = faster;
    return;
  }
  current_ = faster;
  if (++since_ >= (faster == Matcher::kPrefilter ? set_after_ : kRetimePrefilter)) {
    retiming_ = true;
    current_ = faster == Matcher::kPrefilter ? Matcher::kSet : Matcher::kPrefilter;
  }
}

Explainer::Explainer(const ExplainRuleSet& rules, ExplainOptions options)
    : rules_(rules), options_(options), matcher_(options.matcher) {
  if (options_.max_line_bytes == 0) options_.max_line_bytes = 1;
  const size_t n = rules_.rules().size();
  follows_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& id : rules_.rules()[i].follows) {
      int j = rules_.RuleIndex(id);  // the loader made sure it exists
      if (j >= 0) follows_[i].push_back(j);
    }
  }
  latest_in_source_.assign(n, -1);
}

size_t Explainer::root_findings() const {
  return static_cast<size_t>(
      std::count_if(findings_.begin(), findings_.end(),
                    [](const Finding& f) { return f.grouped_under < 0; }));
}

void Explainer::BeginSource(absl::string_view name) {
  source_ = std::string(name);
  line_no_ = 0;
  pending_.clear();
  stats_.sources.push_back(source_);
  // Grouping is within one input: another file's lines follow nothing here.
  std::fill(latest_in_source_.begin(), latest_in_source_.end(), -1);
}

void Explainer::Feed(absl::string_view bytes) {
  stats_.bytes += static_cast<int64_t>(bytes.size());
  // pending_ keeps at most max_line_bytes + 1 bytes: enough for ConsumeLine
  // to see that the line was too long, never the whole of a huge line.
  const size_t keep = options_.max_line_bytes + 1;
  auto append_pending = [&](absl::string_view piece) {
    if (pending_.size() < keep) {
      pending_.append(piece.data(), std::min(piece.size(), keep - pending_.size()));
    }
  };
  while (!bytes.empty()) {
    const void* nl = std::memchr(bytes.data(), '\n', bytes.size());
    if (nl == nullptr) {
      append_pending(bytes);
      return;
    }
    size_t n = static_cast<const char*>(nl) - bytes.data();
    if (pending_.empty()) {
      ConsumeLine(bytes.substr(0, n));  // the common case: no copy
    } else {
      append_pending(bytes.substr(0, n));
      ConsumeLine(pending_);
      pending_.clear();
    }
    bytes.remove_prefix(n + 1);
  }
}

void Explainer::EndSource() {
  if (!pending_.empty()) {
    ConsumeLine(pending_);
    pending_.clear();
  }
}

absl::Status Explainer::ConsumeStream(std::istream& in, absl::string_view name) {
  BeginSource(name);
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    std::streamsize got = in.gcount();
    if (got > 0) Feed(absl::string_view(buf.data(), static_cast<size_t>(got)));
  }
  EndSource();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat(
        name, ": read error after ", stats_.bytes, " bytes (line ", line_no_, ")"));
  }
  return absl::OkStatus();
}

void Explainer::ConsumeLine(absl::string_view line) {
  ++line_no_;
  ++stats_.lines;
  if (line.size() > options_.max_line_bytes) {
    ++stats_.truncated_lines;
    line = line.substr(0, options_.max_line_bytes);
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  bool error_like = false;
  const bool matched = rules_.Classify(line, &scratch_, &error_like, matcher_.current());
  matcher_.Count(line.size());
  if (!matched) {
    if (error_like) {
      ++stats_.unexplained_lines;
      if (unexplained_.size() < options_.max_unexplained)
        unexplained_.push_back({{source_, line_no_}, std::string(line.substr(0, options_.max_example_bytes))});
    }
    return;
  }
  ++stats_.matched_lines;
  Record(line, scratch_);
}

void Explainer::Record(absl::string_view line, LineMatch& m) {
  const ExplainRule& rule = rules_.rules()[m.rule];
  key_scratch_.clear();
  absl::StrAppend(&key_scratch_, m.rule);
  for (const std::string& k : rule.key) {
    key_scratch_.push_back('\x1f');
    for (const auto& c : m.captures) {
      if (c.first == k) key_scratch_.append(c.second);
    }
  }
  auto it = index_.find(key_scratch_);
  if (it != index_.end()) {
    Finding& f = findings_[it->second];
    ++f.count;
    f.last.line = line_no_;
    if (f.last.source != source_) f.last.source = source_;
    latest_in_source_[m.rule] = static_cast<int>(it->second);
    return;
  }
  if (findings_.size() >= options_.max_findings) {
    ++stats_.dropped_findings;
    return;
  }
  // The latest earlier line of a rule this one follows, in this input.
  int parent = -1;
  int64_t parent_line = 0;
  for (int j : follows_[m.rule]) {
    // That finding's last occurrence is its latest line in this input.
    if (latest_in_source_[j] >= 0 && findings_[latest_in_source_[j]].last.line >= parent_line) {
      parent = latest_in_source_[j];
      parent_line = findings_[parent].last.line;
    }
  }
  if (parent >= 0 && findings_[parent].grouped_under >= 0) {
    parent = findings_[parent].grouped_under;  // keep groups one level deep
  }
  Finding f;
  f.rule = &rule;
  f.captures = std::move(m.captures);
  m.captures.clear();
  f.count = 1;
  f.first = {source_, line_no_};
  f.last = f.first;
  f.first_line = std::string(line.substr(0, options_.max_example_bytes));
  f.grouped_under = parent;
  latest_in_source_[m.rule] = static_cast<int>(findings_.size());
  index_.emplace(key_scratch_, findings_.size());
  findings_.push_back(std::move(f));
}

}  // namespace rdmacheck
