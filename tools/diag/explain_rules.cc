#include "tools/diag/explain_rules.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "util/status_macros.h"
#include "util/input_file.h"

namespace rdmacheck {
namespace {

// Fields a rule may carry; `repeat` fields may appear more than once.
struct FieldSpec {
  absl::string_view name;
  bool repeat;
};
constexpr FieldSpec kFields[] = {
    {"rule", false},  {"family", false}, {"pattern", true},
    {"diagnosis", false}, {"cause", true}, {"remedy", true},
    {"confirm", false}, {"key", false},  {"example", true},
    {"expect", true},    {"near-miss", true}, {"follows", false},
};

bool IsIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

std::string Quote(absl::string_view s) {
  constexpr size_t kMax = 160;
  if (s.size() <= kMax) return absl::StrCat("'", s, "'");
  return absl::StrCat("'", s.substr(0, kMax), "...'");
}

// The ${name} references in `text`.
std::vector<std::string> References(absl::string_view text) {
  std::vector<std::string> names;
  size_t pos = 0;
  while ((pos = text.find("${", pos)) != absl::string_view::npos) {
    size_t end = text.find('}', pos + 2);
    if (end == absl::string_view::npos) break;
    names.emplace_back(text.substr(pos + 2, end - pos - 2));
    pos = end + 1;
  }
  return names;
}

}  // namespace

// Sorted. Every id here must be a registered check (checks/registry.cc):
// ExplainRules.EveryConfirmableCheckIsRegistered compares the list with the
// registry's ids (//checks:check_target_ids), so a rule cannot point the user
// at `rdmacheck --checks X` for an X the binary lacks.
const std::vector<std::string>& KnownConfirmChecks() {
  static const auto* kChecks = new std::vector<std::string>{
      "cap-readback",  "cq-depth",      "device-limits", "device-present",
      "firewall-4791", "firmware",      "gid-table",     "hung-qp",
      "link-health",   "memlock",       "mtu-chain",     "pcie",
      "port-active",   "port-rate",     "rxe-setup",
  };
  return *kChecks;
}

ExplainRuleSet::~ExplainRuleSet() = default;

absl::StatusOr<std::unique_ptr<ExplainRuleSet>> ExplainRuleSet::Parse(
    absl::string_view text, absl::string_view file_name) {
  return ParseSources({RuleSource{std::string(file_name), text}}, file_name);
}

namespace {

// Appends the rules of one file to `rules` (and a confirm-given flag each).
absl::Status ParseOneFile(const RuleSource& source,
                          std::vector<ExplainRule>& rules,
                          std::vector<bool>& confirm_given) {
  const std::string& file = source.name;
  // Which single-valued fields the current rule has seen.
  absl::flat_hash_set<std::string> seen;
  int line_no = 0;
  bool in_file = false;  // a rule of this file has started
  for (absl::string_view line : absl::StrSplit(source.text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (absl::StripAsciiWhitespace(line).empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_no, ": expected 'field: value', got ",
                       Quote(line)));
    }
    absl::string_view field = line.substr(0, colon);
    absl::string_view value = line.substr(colon + 1);
    if (absl::ConsumePrefix(&value, " ")) {
      // Exactly one space after the colon is syntax; the rest is the value,
      // so example lines can keep their leading blanks.
    }
    const FieldSpec* spec = nullptr;
    for (const FieldSpec& f : kFields) {
      if (f.name == field) spec = &f;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ":", line_no, ": unknown field ", Quote(field),
          " (fields: rule family pattern diagnosis cause remedy confirm key "
          "example expect near-miss follows)"));
    }
    if (field == "rule") {
      rules.emplace_back();
      confirm_given.push_back(false);
      seen.clear();
      in_file = true;
      ExplainRule& r = rules.back();
      r.id = std::string(absl::StripAsciiWhitespace(value));
      r.file = file;
      r.line_no = line_no;
      if (r.id.empty() || !std::all_of(r.id.begin(), r.id.end(), IsIdChar)) {
        return absl::InvalidArgumentError(absl::StrCat(
            file, ":", line_no, ": rule id ", Quote(r.id),
            " must be non-empty lowercase letters, digits and '-'"));
      }
      continue;
    }
    if (!in_file) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_no, ": field ", Quote(field),
                       " before the first 'rule:' line"));
    }
    ExplainRule& r = rules.back();
    if (!spec->repeat && !seen.insert(std::string(field)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_no, ": rule '", r.id, "': field ",
                       Quote(field), " given twice"));
    }
    if (value.empty() && field != "key") {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_no, ": rule '", r.id, "': field ",
                       Quote(field), " is empty"));
    }
    std::string v(value);
    if (field == "family") {
      r.family = std::string(absl::StripAsciiWhitespace(value));
    } else if (field == "pattern") {
      r.patterns.push_back(v);
      r.pattern_lines.push_back(line_no);
    } else if (field == "diagnosis") {
      r.diagnosis = v;
    } else if (field == "cause") {
      r.causes.push_back(v);
    } else if (field == "remedy") {
      r.remedy.push_back(v);
    } else if (field == "confirm") {
      confirm_given.back() = true;
      for (absl::string_view c :
           absl::StrSplit(value, ' ', absl::SkipWhitespace())) {
        const auto& known = KnownConfirmChecks();
        if (c == "none") continue;
        if (std::find(known.begin(), known.end(), c) == known.end()) {
          return absl::InvalidArgumentError(absl::StrCat(
              file, ":", line_no, ": rule '", r.id, "': unknown check ",
              Quote(c), " in confirm (known: ", absl::StrJoin(known, " "),
              ", none)"));
        }
        r.confirm.emplace_back(c);
      }
    } else if (field == "key") {
      // An empty key means: one finding per rule, whatever was captured.
      r.key = absl::StrSplit(value, ' ', absl::SkipWhitespace());
      r.key.insert(r.key.begin(), "\x01");  // marks "key given"; removed below
    } else if (field == "example") {
      r.examples.push_back({v, {}, line_no});
    } else if (field == "expect") {
      if (r.examples.empty() || !r.examples.back().expect.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            file, ":", line_no, ": rule '", r.id,
            "': 'expect:' must follow its 'example:' line"));
      }
      for (absl::string_view kv : absl::StrSplit(value, "; ")) {
        size_t eq = kv.find('=');
        if (eq == absl::string_view::npos || eq == 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              file, ":", line_no, ": rule '", r.id, "': expect entry ",
              Quote(kv), " is not name=value"));
        }
        r.examples.back().expect.emplace_back(std::string(kv.substr(0, eq)),
                                              std::string(kv.substr(eq + 1)));
      }
    } else if (field == "near-miss") {
      r.near_misses.push_back(v);
    } else if (field == "follows") {
      r.follows = absl::StrSplit(value, ' ', absl::SkipWhitespace());
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExplainRuleSet>> ExplainRuleSet::ParseSources(
    const std::vector<RuleSource>& sources, absl::string_view set_name, Examples examples) {
  std::unique_ptr<ExplainRuleSet> set(new ExplainRuleSet());
  set->file_ = std::string(set_name);
  std::vector<ExplainRule>& rules = set->rules_;
  std::vector<bool> confirm_given;  // parallel to rules
  for (const RuleSource& source : sources) {
    RDMACHECK_RETURN_IF_ERROR(ParseOneFile(source, rules, confirm_given));
  }

  absl::flat_hash_map<std::string, const ExplainRule*> first;
  for (ExplainRule& r : rules) {
    auto [it, inserted] = first.emplace(r.id, &r);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          r.file, ":", r.line_no, ": duplicate rule id '", r.id,
          "' (first defined at ", it->second->file, ":", it->second->line_no,
          ")"));
    }
  }
  for (ExplainRule& r : rules) {
    auto missing = [&](absl::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat(
          r.file, ":", r.line_no, ": rule '", r.id, "': missing ", what));
    };
    for (const std::string& f : r.follows) {
      if (f == r.id || !first.contains(f)) {
        return absl::InvalidArgumentError(absl::StrCat(
            r.file, ":", r.line_no, ": rule '", r.id, "': follows ", Quote(f),
            f == r.id ? ", itself" : ", which is no rule's id"));
      }
    }
    if (r.family.empty()) return missing("field 'family'");
    if (r.patterns.empty()) return missing("field 'pattern'");
    if (r.diagnosis.empty()) return missing("field 'diagnosis'");
    if (r.causes.empty()) return missing("field 'cause'");
    if (r.remedy.empty()) return missing("field 'remedy'");
    if (!confirm_given[&r - rules.data()]) {
      return missing("field 'confirm' (check ids, or 'none')");
    }
    if (r.examples.size() < 2) {
      return missing("examples: every rule needs at least two 'example:' lines");
    }
    if (r.near_misses.empty()) {
      return missing("field 'near-miss' (a line that must match no rule)");
    }
  }
  RDMACHECK_RETURN_IF_ERROR(set->Compile());
  if (examples == Examples::kCheck) RDMACHECK_RETURN_IF_ERROR(set->Validate());
  return set;
}

namespace {

RE2::Options MatchOptions() {
  RE2::Options opts;
  opts.set_log_errors(false);  // RE2::Quiet: errors are reported with file:line
  // Logs are bytes, not always UTF-8; Latin-1 also keeps the DFA small.
  opts.set_encoding(RE2::Options::EncodingLatin1);
  opts.set_max_mem(64 << 20);
  return opts;
}

}  // namespace

absl::Status ExplainRuleSet::Compile() {
  const RE2::Options opts = MatchOptions();
  // Atoms of two bytes or more: shorter ones let too many patterns through
  // (measured on real logs).
  filter_ = std::make_unique<re2::FilteredRE2>(2);
  for (size_t ri = 0; ri < rules_.size(); ++ri) {
    ExplainRule& r = rules_[ri];
    std::vector<std::pair<int, std::string>> names;  // (pattern, group) order
    for (size_t pi = 0; pi < r.patterns.size(); ++pi) {
      CompiledPattern cp;
      cp.rule = static_cast<int>(ri);
      cp.pattern = static_cast<int>(pi);
      int id = -1;
      if (filter_->Add(r.patterns[pi], opts, &id) != RE2::NoError) {
        const RE2 bad(r.patterns[pi], opts);  // for its message
        return absl::InvalidArgumentError(absl::StrCat(
            r.file, ":", r.pattern_lines[pi], ": rule '", r.id,
            "': pattern does not compile: ", bad.error(), " (pattern ",
            Quote(r.patterns[pi]), ")"));
      }
      cp.re = &filter_->GetRE2(id);
      std::vector<std::pair<int, std::string>> groups;
      for (const auto& [name, index] : cp.re->NamedCapturingGroups()) {
        groups.emplace_back(index, name);
      }
      std::sort(groups.begin(), groups.end());
      for (const auto& g : groups) {
        if (std::find(r.capture_names.begin(), r.capture_names.end(),
                      g.second) == r.capture_names.end()) {
          r.capture_names.push_back(g.second);
        }
      }
      max_groups_ = std::max(max_groups_, cp.re->NumberOfCapturingGroups());
      compiled_.push_back(std::move(cp));
    }
    // Each pattern's group index for each of the rule's capture names.
    for (CompiledPattern& cp : compiled_) {
      if (cp.rule != static_cast<int>(ri)) continue;
      const auto& named = cp.re->NamedCapturingGroups();
      for (const std::string& name : r.capture_names) {
        auto it = named.find(name);
        cp.group_of_capture.push_back(it == named.end() ? -1 : it->second);
      }
    }
    if (!r.key.empty() && r.key.front() == "\x01") {
      r.key.erase(r.key.begin());
    } else {
      r.key = r.capture_names;
    }
    auto is_capture = [&](const std::string& n) {
      return std::find(r.capture_names.begin(), r.capture_names.end(), n) !=
             r.capture_names.end();
    };
    for (const std::string& k : r.key) {
      if (!is_capture(k)) {
        return absl::InvalidArgumentError(
            absl::StrCat(r.file, ":", r.line_no, ": rule '", r.id, "': key ",
                         Quote(k), " is not a capture of any pattern"));
      }
    }
    std::vector<const std::string*> texts = {&r.diagnosis};
    for (const auto& c : r.causes) texts.push_back(&c);
    for (const auto& c : r.remedy) texts.push_back(&c);
    for (const std::string* t : texts) {
      for (const std::string& n : References(*t)) {
        if (!is_capture(n)) {
          return absl::InvalidArgumentError(absl::StrCat(
              r.file, ":", r.line_no, ": rule '", r.id, "': ${", n,
              "} is not a capture of any pattern (captures: ",
              absl::StrJoin(r.capture_names, " "), ")"));
        }
      }
    }
  }
  // Last, so any rule's pattern comes first: one pass says both whether a
  // rule knows the line and whether it reads like an error.
  if (filter_->Add(kErrorLikePattern, opts, &error_like_index_) != RE2::NoError) {
    return absl::InternalError("kErrorLikePattern does not compile");
  }
  std::vector<std::string> atoms;
  filter_->Compile(&atoms);
  if (atoms.empty()) return absl::OkStatus();
  RE2::Options literal = opts;
  literal.set_case_sensitive(true);  // atoms and line both lowercased
  atoms_ = std::make_unique<RE2::Set>(literal, RE2::UNANCHORED);
  for (const std::string& a : atoms) {
    std::string err;
    if (atoms_->Add(RE2::QuoteMeta(absl::AsciiStrToLower(a)), &err) < 0) {
      return absl::InternalError(absl::StrCat("prefilter atom ", Quote(a), ": ", err));
    }
  }
  if (!atoms_->Compile()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        file_, ": RE2::Set::Compile failed for the ", atoms.size(), " literals of ", compiled_.size(),
        " patterns (over the 64 MiB regexp memory budget)"));
  }
  return absl::OkStatus();
}

absl::Status ExplainRuleSet::Validate() {
  for (size_t ri = 0; ri < rules_.size(); ++ri) {
    const ExplainRule& r = rules_[ri];
    for (const ExplainExample& ex : r.examples) {
      bool own = false;
      for (const CompiledPattern& cp : compiled_) {
        if (cp.rule == static_cast<int>(ri) &&
            RE2::PartialMatch(ex.line, *cp.re)) {
          own = true;
        }
      }
      if (!own) {
        return absl::InvalidArgumentError(
            absl::StrCat(r.file, ":", ex.line_no, ": rule '", r.id,
                         "': example matches none of the rule's patterns: ",
                         Quote(ex.line)));
      }
      LineMatch m;
      if (!Classify(ex.line, &m)) {
        // Its own pattern matches, yet the line is no finding: a logger's
        // level below info (UCX DEBUG, libfabric <debug>) says so.
        return absl::InvalidArgumentError(absl::StrCat(
            r.file, ":", ex.line_no, ": rule '", r.id, "': example ", Quote(ex.line),
            " gives no finding (a line below its logger's info level is none)"));
      }
      if (m.rule != static_cast<int>(ri)) {
        const ExplainRule& other = rules_[m.rule];
        return absl::InvalidArgumentError(absl::StrCat(
            r.file, ":", ex.line_no, ": rule '", r.id, "': example ",
            Quote(ex.line), " is claimed by rule '", other.id,
            "' (defined earlier, at ", other.file, ":", other.line_no,
            "); move the more specific rule first"));
      }
      for (const auto& [name, want] : ex.expect) {
        // C++17 lambdas cannot capture a structured binding (clang refuses).
        const std::string& key = name;
        auto it = std::find_if(m.captures.begin(), m.captures.end(),
                               [&key](const auto& c) { return c.first == key; });
        std::string got = it == m.captures.end() ? "(not captured)"
                                                 : Quote(it->second);
        if (it == m.captures.end() || it->second != want) {
          return absl::InvalidArgumentError(absl::StrCat(
              r.file, ":", ex.line_no, ": rule '", r.id, "': example ",
              Quote(ex.line), " captures ", name, "=", got, ", expected '",
              want, "'"));
        }
      }
    }
    for (const std::string& nm : r.near_misses) {
      LineMatch m;
      if (Classify(nm, &m)) {
        return absl::InvalidArgumentError(absl::StrCat(
            r.file, ":", r.line_no, ": rule '", r.id, "': near miss ",
            Quote(nm), " matches rule '", rules_[m.rule].id, "'"));
      }
    }
  }
  return absl::OkStatus();
}

namespace {

// A line its logger marked as below the informational level: UCX's DEBUG
// and trace levels ("UCX  DEBUG", src/ucs/debug/log.c) and libfabric's
// "<debug>" / "<trace>" (FI_LOG_LEVEL). The program did not count it as a
// problem (UCX probes features at DEBUG and falls back when a call fails),
// so no rule explains it.
bool BelowInfoLevel(absl::string_view line) {
  static constexpr absl::string_view kUcxLevels[] = {"DEBUG", "TRACE", "REQ ", "DATA ", "ASYNC", "FUNC ", "POLL "};
  for (size_t at = line.find("UCX "); at != absl::string_view::npos; at = line.find("UCX ", at + 1)) {
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(line.substr(at + 4));
    for (absl::string_view level : kUcxLevels)
      if (absl::StartsWith(rest, level)) return true;
  }
  return absl::StrContains(line, "<debug>") || absl::StrContains(line, "<trace>");
}

// A line NCCL printed at its INFO level (src/debug.cc, " NCCL INFO "): NCCL
// reports there every probe that did not work out ("NET/Plugin: Failed to
// find ncclNetPlugin_v8 symbol", in every run with a net plugin) and prints
// what stops it at WARN. A rule may still explain it; it is not listed as an
// unexplained error-like line.
bool NcclInfoLine(absl::string_view line) {
  return absl::StartsWith(line, "NCCL INFO ") || absl::StrContains(line, " NCCL INFO ");
}

}  // namespace

const char ExplainRuleSet::kErrorLikePattern[] =
    "(?i)\\b(?:errors?|errno|fail(?:ed|s|ure)?|fatal|abort(?:ed|ing)?|panic|cannot|can't|couldn't|could not|"
    "unable to|refused|denied|timed? ?out|unreachable|exceeded|invalid|no such|not found|segmentation fault|"
    "core dumped)\\b|(?-i:\\b(?:WARN(?:ING)?|ERR|CRIT)\\b)";

const RE2::Set* ExplainRuleSet::Set() const {
  // Built on first use: only an input of several MiB gets to try it, and
  // building it took a third of a one-line explain's start.
  std::call_once(set_once_, [this] {
    auto set = std::make_unique<RE2::Set>(MatchOptions(), RE2::UNANCHORED);
    for (const CompiledPattern& cp : compiled_) {
      if (set->Add(rules_[cp.rule].patterns[cp.pattern], nullptr) < 0) return;
    }
    // Out of its budget: FirstPattern runs the prefilter instead.
    if (set->Add(kErrorLikePattern, nullptr) != error_like_index_ || !set->Compile()) return;
    set_ = std::move(set);
  });
  return set_.get();
}

int ExplainRuleSet::FirstPattern(absl::string_view line, Matcher matcher) const {
  re2::StringPiece text(line.data(), line.size());
  // Scratch kept per thread: this runs once per line.
  thread_local std::vector<int> hits, atoms;
  thread_local std::string lower;
  if (const RE2::Set* set = matcher == Matcher::kSet ? Set() : nullptr) {
    if (!set->Match(text, &hits) || hits.empty()) return -1;
    // Set indices follow file order, so the smallest is the first rule; the
    // error-like pattern comes after every rule's.
    return *std::min_element(hits.begin(), hits.end());
  }
  lower.assign(line.data(), line.size());
  absl::AsciiStrToLower(&lower);
  atoms.clear();
  if (atoms_ != nullptr) atoms_->Match(lower, &atoms);
  filter_->AllPotentials(atoms, &hits);
  std::sort(hits.begin(), hits.end());
  for (int id : hits) {
    if (RE2::PartialMatch(text, filter_->GetRE2(id))) return id;
  }
  return -1;
}

bool ExplainRuleSet::Classify(absl::string_view line, LineMatch* m, bool* error_like, Matcher matcher) const {
  if (error_like) *error_like = false;
  re2::StringPiece text(line.data(), line.size());
  const int first = FirstPattern(line, matcher);
  if (first < 0) return false;
  // Checked only for a line some pattern matches: most lines match none.
  if (BelowInfoLevel(line)) return false;
  if (first == error_like_index_) {
    if (error_like) *error_like = !NcclInfoLine(line);
    return false;
  }
  const CompiledPattern& cp = compiled_[first];
  m->rule = cp.rule;
  m->pattern = cp.pattern;
  m->captures.clear();
  const ExplainRule& r = rules_[cp.rule];
  if (r.capture_names.empty()) return true;
  int ngroups = cp.re->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> groups(ngroups);
  if (!cp.re->Match(text, 0, text.size(), RE2::UNANCHORED, groups.data(),
                    ngroups)) {
    return true;  // cannot happen: the set said it matches
  }
  for (size_t i = 0; i < r.capture_names.size(); ++i) {
    int g = cp.group_of_capture[i];
    if (g < 0 || groups[g].data() == nullptr) continue;
    m->captures.emplace_back(r.capture_names[i],
                             std::string(groups[g].data(), groups[g].size()));
  }
  return true;
}

std::string ExplainRuleSet::Substitute(absl::string_view text,
                                       const Captures& caps) {
  if (text.find("${") == absl::string_view::npos) return std::string(text);
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t start = text.find("${", pos);
    size_t end = start == absl::string_view::npos
                     ? absl::string_view::npos
                     : text.find('}', start + 2);
    if (end == absl::string_view::npos) {
      absl::StrAppend(&out, text.substr(pos));
      return out;
    }
    absl::string_view name = text.substr(start + 2, end - start - 2);
    absl::StrAppend(&out, text.substr(pos, start - pos));
    auto it = std::find_if(caps.begin(), caps.end(),
                           [&](const auto& c) { return c.first == name; });
    if (it != caps.end()) {
      absl::StrAppend(&out, it->second);
    } else {
      absl::StrAppend(&out, "<", name, ">");
    }
    pos = end + 1;
  }
}

int ExplainRuleSet::RuleIndex(absl::string_view id) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<std::unique_ptr<ExplainRuleSet>> ExplainRuleSet::LoadFile(
    const std::string& path) {
  // The rule base is ~70 kB; a user's own rule file has no reason to be
  // more than a few MB.
  constexpr uint64_t kMaxRuleFileBytes = uint64_t{16} << 20;
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    absl::StatusOr<std::string> text = ReadInputFile(
        "LoadRuleFile", path, "a rule file", kMaxRuleFileBytes);
    if (!text.ok()) return text.status();
    return Parse(*text, path);
  }
  // A directory: its *.rules files in name order, as the embedded base is
  // laid out (a copy of tools/diag/rules/ with one file added works as is).
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".rules") {
      names.push_back(entry.path().string());
    }
  }
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot list the rule directory: ", ec.message()));
  }
  if (names.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": directory holds no *.rules file"));
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> texts;
  texts.reserve(names.size());
  for (const std::string& name : names) {
    absl::StatusOr<std::string> text = ReadInputFile(
        "LoadRuleFile", name, "a rule file", kMaxRuleFileBytes);
    if (!text.ok()) return text.status();
    texts.push_back(*std::move(text));
  }
  std::vector<RuleSource> sources;
  for (size_t i = 0; i < names.size(); ++i) {
    sources.push_back({names[i], texts[i]});
  }
  return ParseSources(sources, path);
}

absl::StatusOr<std::unique_ptr<ExplainRuleSet>> ExplainRuleSet::LoadEmbedded() {
  return ParseSources(EmbeddedExplainRuleFiles(), kEmbeddedExplainRulesName, Examples::kTrust);
}

}  // namespace rdmacheck
