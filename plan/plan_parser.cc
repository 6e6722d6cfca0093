#include "plan/plan_parser.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/port_rate.h"
#include "util/input_file.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

// Limits the parser enforces; the device limits are the checks' business.
constexpr uint64_t kMaxCount = uint64_t{1} << 24;         // QPs/CQs/SRQs per class
constexpr uint64_t kMaxDepth = (uint64_t{1} << 31) - 1;   // WRs, cqe, SGEs, inline
constexpr size_t kMaxReportedErrors = 50;
constexpr size_t kMaxNameLength = 64;
constexpr uint64_t kMaxFileBytes = uint64_t{1} << 20;

constexpr char kSizeAllowed[] =
    "a whole number with B, KiB, MiB, GiB or TiB; K, M, G, T mean the same";
enum class Kind { kPlan, kCq, kSrq, kQp, kPart, kCounter, kPerf };

constexpr Kind kAllKinds[] = {Kind::kPlan, Kind::kCq,      Kind::kSrq, Kind::kQp,
                              Kind::kPart, Kind::kCounter, Kind::kPerf};

absl::string_view KindName(Kind k) {
  switch (k) {
    case Kind::kPlan: return "plan";
    case Kind::kCq: return "cq";
    case Kind::kSrq: return "srq";
    case Kind::kQp: return "qp";
    case Kind::kPart: return "part";
    case Kind::kCounter: return "counter";
    case Kind::kPerf: return "perf";
  }
  return "plan";
}

std::string KindPattern(Kind k) {
  if (k == Kind::kPlan) return "[plan]";
  if (k == Kind::kPerf) return "[perf]";
  return absl::StrCat("[", KindName(k), k == Kind::kPart ? " ID]" : " NAME]");
}

// "[plan], [cq NAME], ...": every section kind, for messages.
const std::string& SectionsAllowed() {
  static const std::string* const kAllowed = [] {
    std::vector<std::string> all;
    for (Kind k : kAllKinds) all.push_back(KindPattern(k));
    return new std::string(absl::StrJoin(all, ", "));
  }();
  return *kAllowed;
}

const std::vector<std::string>& KeysOf(Kind k) {
  static const auto* const kPlanKeys = new std::vector<std::string>{
      "name", "description", "device", "port", "path_mtu", "gid_type",
      "gid_index", "ip_version", "link_layer", "min_rate", "link_width", "memory_budget", "mr_bytes"};
  static const auto* const kCqKeys = new std::vector<std::string>{"cqe", "count"};
  static const auto* const kSrqKeys =
      new std::vector<std::string>{"max_wr", "max_sge", "count", "cq"};
  static const auto* const kQpKeys = new std::vector<std::string>{
      "count", "type", "max_send_wr", "max_recv_wr", "max_send_sge",
      "max_recv_sge", "max_inline_data", "send_cq", "recv_cq", "cq", "srq",
      "mr_bytes"};
  static const auto* const kPartKeys = new std::vector<std::string>{"min_fw_ver"};
  static const auto* const kCounterKeys = new std::vector<std::string>{"max_per_s"};
  static const auto* const kPerfKeys =
      new std::vector<std::string>{"min_write_bw_gbps", "max_write_lat_us", "message_size"};
  switch (k) {
    case Kind::kPlan: return *kPlanKeys;
    case Kind::kCq: return *kCqKeys;
    case Kind::kSrq: return *kSrqKeys;
    case Kind::kQp: return *kQpKeys;
    case Kind::kPart: return *kPartKeys;
    case Kind::kCounter: return *kCounterKeys;
    case Kind::kPerf: return *kPerfKeys;
  }
  return *kPlanKeys;
}

bool IsKeyOf(Kind k, absl::string_view key) {
  const std::vector<std::string>& keys = KeysOf(k);
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Case-insensitive Levenshtein distance, for "did you mean" hints.
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t subst = prev[j - 1] + (absl::ascii_tolower(a[i - 1]) ==
                                            absl::ascii_tolower(b[j - 1])
                                        ? 0
                                        : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The candidate close enough to `word` to be a likely typo, or "".
std::string Nearest(absl::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // Two edits, or a third of a long word, still reads as a typo.
  size_t limit = std::max<size_t>(2, word.size() / 3);
  return best_d <= limit ? best : "";
}

bool IsName(absl::string_view s) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  for (char c : s)
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

std::string NameRule() {
  return absl::StrCat("1-", kMaxNameLength, " letters, digits, '_', '-', '.'");
}

// A sysfs counter file name: symbol_error, port_rcv_errors, VL15_dropped.
bool IsCounterName(absl::string_view s) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  for (char c : s)
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  return true;
}

// A whole number in [lo, hi], or the reason it is not.
std::optional<uint64_t> ParseWhole(absl::string_view v, uint64_t lo, uint64_t hi,
                                   std::string* why) {
  absl::string_view digits = v;
  bool negative = absl::ConsumePrefix(&digits, "-");
  bool all_digits = !digits.empty() &&
                    std::all_of(digits.begin(), digits.end(),
                                [](char c) { return absl::ascii_isdigit(c); });
  if (!all_digits) {
    *why = absl::StrCat("'", v, "' is not a whole number");
    return std::nullopt;
  }
  uint64_t n = 0;
  bool fits = absl::SimpleAtoi(digits, &n);
  if (!fits || (negative && n != 0) || n < lo || n > hi) {
    *why = absl::StrCat(v, " is out of range (", lo, "..", hi, ")");
    return std::nullopt;
  }
  return n;
}

// Strips an inline comment: '#' or ';' at the start or after whitespace.
absl::string_view StripInlineComment(absl::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if ((s[i] == '#' || s[i] == ';') && (i == 0 || absl::ascii_isspace(s[i - 1])))
      return s.substr(0, i);
  }
  return s;
}

bool IsCommentOrBlank(absl::string_view rest) {
  rest = absl::StripAsciiWhitespace(rest);
  return rest.empty() || rest[0] == '#' || rest[0] == ';';
}

std::string StemOf(absl::string_view filename) {
  size_t slash = filename.rfind('/');
  if (slash != absl::string_view::npos) filename.remove_prefix(slash + 1);
  size_t dot = filename.rfind('.');
  if (dot != absl::string_view::npos && dot > 0) filename = filename.substr(0, dot);
  return filename.empty() ? "plan" : std::string(filename);
}

class ErrorList {
 public:
  explicit ErrorList(absl::string_view file) : file_(file) {}

  void Add(int line, absl::string_view field, absl::string_view what) {
    errors_.push_back({line, absl::StrCat(file_, ":", line, ": ", field, ": ", what)});
  }
  bool empty() const { return errors_.empty(); }

  // All problems in file order, one per line.
  absl::Status ToStatus() const {
    std::vector<std::pair<int, std::string>> sorted = errors_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> lines;
    for (size_t i = 0; i < sorted.size() && i < kMaxReportedErrors; ++i)
      lines.push_back(sorted[i].second);
    if (sorted.size() > kMaxReportedErrors)
      lines.push_back(absl::StrCat(file_, ": ", sorted.size() - kMaxReportedErrors,
                                   " more problems not shown"));
    return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
  }

 private:
  std::string file_;
  std::vector<std::pair<int, std::string>> errors_;
};

// A name used before (or without) its declaration; resolved at the end.
struct Ref {
  Kind target;
  std::string name;
  int line;
  std::string field;
};

// The section whose keys are being read.
struct OpenSection {
  OpenSection(Kind k, int n, std::string l) : kind(k), line(n), label(std::move(l)) {}
  Kind kind;
  int line;
  std::string label;              // "[qp core]", for messages
  size_t index = 0;               // into the plan's vector of that kind
  std::map<std::string, int> keys;  // key -> line it was set on
  // Keys a broken line tried to set (no '=', empty value, a likely typo):
  // not reported again as missing.
  std::set<std::string> attempted;
};

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view filename)
      : text_(text), file_(filename), errors_(filename) {}

  absl::StatusOr<Plan> Run() {
    plan_.path = file_;
    plan_.name = StemOf(file_);
    // A UTF-8 byte order mark from some editors is not content.
    absl::string_view text = text_;
    absl::ConsumePrefix(&text, "\xEF\xBB\xBF");
    int n = 0;
    for (absl::string_view raw : absl::StrSplit(text, '\n')) {
      ++n;
      absl::ConsumeSuffix(&raw, "\r");
      Line(n, raw);
    }
    // A final newline does not start another line.
    int last_line = absl::EndsWith(text, "\n") ? n - 1 : n;
    Close();
    Resolve();
    if (!saw_qp_header_)
      errors_.Add(std::max(last_line, 1), "qp",
                  "the plan declares no [qp NAME] section (a plan needs at least "
                  "one QP class: [qp NAME] with max_send_wr and max_recv_wr)");
    if (!errors_.empty()) return errors_.ToStatus();
    return std::move(plan_);
  }

 private:
  void Line(int n, absl::string_view raw) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (IsCommentOrBlank(line)) return;
    if (line[0] == '[') {
      Header(n, line);
      return;
    }
    if (skipping_) return;
    size_t eq = line.find('=');
    if (eq == absl::string_view::npos) {
      absl::string_view first = line.substr(0, line.find_first_of(" \t"));
      Attempted(first);
      errors_.Add(n, first,
                  absl::StrCat("'", StripAsciiWhitespace(StripInlineComment(line)),
                               "' has no '=' (write key = value)"));
      return;
    }
    absl::string_view key = absl::StripAsciiWhitespace(line.substr(0, eq));
    if (key.empty()) {
      errors_.Add(n, "(no key)", "line starts with '=' (write key = value)");
      return;
    }
    std::optional<std::string> value = Value(n, key, line.substr(eq + 1));
    if (!value) {
      Attempted(key);
      return;
    }
    if (!open_) {
      errors_.Add(n, key,
                  absl::StrCat("key outside any section (put it under one of ",
                               SectionsAllowed(), ")"));
      skipping_ = true;  // one message, not one per key of a missing header
      return;
    }
    Key(n, std::string(key), *value);
  }

  void Attempted(absl::string_view key) {
    if (open_) open_->attempted.emplace(key);
  }

  // The value after '=': quoted ("...", may hold '#' and ';') or bare with an
  // optional inline comment. nullopt after reporting an error.
  std::optional<std::string> Value(int n, absl::string_view key, absl::string_view rest) {
    rest = absl::StripLeadingAsciiWhitespace(rest);
    std::string value;
    if (absl::ConsumePrefix(&rest, "\"")) {
      size_t close = rest.find('"');
      if (close == absl::string_view::npos) {
        errors_.Add(n, key, "value opens a quote that is not closed (end it with \")");
        return std::nullopt;
      }
      value = std::string(rest.substr(0, close));
      if (!IsCommentOrBlank(rest.substr(close + 1))) {
        errors_.Add(n, key, "text after the closing quote (only a comment may follow)");
        return std::nullopt;
      }
    } else {
      value = std::string(absl::StripAsciiWhitespace(StripInlineComment(rest)));
    }
    if (value.empty()) {
      errors_.Add(n, key, "empty value (write key = value, or delete the line)");
      return std::nullopt;
    }
    return value;
  }

  void Header(int n, absl::string_view line) {
    Close();
    open_.reset();
    skipping_ = true;  // until the header proves good
    size_t close = line.find(']');
    if (close == absl::string_view::npos) {
      errors_.Add(n, line, "section header has no closing ']'");
      return;
    }
    absl::string_view label = line.substr(0, close + 1);
    if (!IsCommentOrBlank(line.substr(close + 1))) {
      errors_.Add(n, label, "text after ']' (only a comment may follow a section header)");
      return;
    }
    std::vector<absl::string_view> words =
        absl::StrSplit(line.substr(1, close - 1), absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (words.empty()) {
      errors_.Add(n, label, absl::StrCat("empty section header (allowed: ", SectionsAllowed(), ")"));
      return;
    }
    std::string kind_word = absl::AsciiStrToLower(words[0]);
    std::optional<Kind> kind;
    for (Kind k : kAllKinds)
      if (KindName(k) == kind_word) kind = k;
    if (kind == Kind::kQp) saw_qp_header_ = true;
    if (!kind) {
      std::vector<std::string> kinds;
      for (Kind k : kAllKinds) kinds.emplace_back(KindName(k));
      std::string near = Nearest(kind_word, kinds);
      std::string hint = absl::StrCat("allowed: ", SectionsAllowed());
      for (Kind k : kAllKinds)
        if (KindName(k) == near) hint = absl::StrCat("did you mean ", KindPattern(k), "?");
      // A misspelt [qp] header already explains a missing QP class.
      if (near == "qp") saw_qp_header_ = true;
      errors_.Add(n, label, absl::StrCat("unknown section kind '", words[0], "' (", hint, ")"));
      return;
    }
    if (*kind == Kind::kPlan) {
      if (words.size() != 1) {
        errors_.Add(n, label, "[plan] takes no name (write [plan])");
        return;
      }
      if (plan_line_ != 0) {
        errors_.Add(n, label, absl::StrCat("declared twice (first at line ", plan_line_, ")"));
        return;
      }
      plan_line_ = n;
      open_.emplace(Kind::kPlan, n, "[plan]");
      skipping_ = false;
      return;
    }
    if (*kind == Kind::kPerf) {
      if (words.size() != 1) {
        errors_.Add(n, label, "[perf] takes no name (write [perf])");
        return;
      }
      if (plan_.perf) {
        errors_.Add(n, label, absl::StrCat("declared twice (first at line ", plan_.perf->line, ")"));
        return;
      }
      plan_.perf.emplace();
      plan_.perf->line = n;
      open_.emplace(Kind::kPerf, n, "[perf]");
      skipping_ = false;
      return;
    }
    if (words.size() != 2) {
      errors_.Add(n, label,
                  words.size() == 1
                      ? absl::StrCat("section needs a name (write ", KindPattern(*kind), ")")
                      : absl::StrCat("section name must be one word (", NameRule(), ")"));
      return;
    }
    std::string name(words[1]);
    std::optional<uint64_t> part_id;
    if (*kind == Kind::kPart) {
      part_id = ParseUnsigned(name);
      if (!part_id || *part_id > UINT32_MAX) {
        errors_.Add(n, label, absl::StrCat("'", name, "' is not a vendor_part_id (decimal as "
                                           "ibv_devinfo prints it, e.g. [part 4123], or 0x hex)"));
        return;
      }
    } else if (*kind == Kind::kCounter && !IsCounterName(name)) {
      errors_.Add(n, label, absl::StrCat("'", name, "' is not a counter name (its file name under "
                                         "ports/N/counters or hw_counters: letters, digits, '_')"));
      return;
    } else if (!IsName(name)) {
      errors_.Add(n, label, absl::StrCat("'", name, "' is not a name (", NameRule(), ")"));
      return;
    }
    std::string pretty = absl::StrCat("[", KindName(*kind), " ", name, "]");
    // [part 4123] and [part 0x101b] are one part.
    auto [it, inserted] = declared_[*kind].emplace(part_id ? absl::StrCat(*part_id) : name, n);
    if (!inserted) {
      errors_.Add(n, pretty, absl::StrCat("declared twice (first at line ", it->second, ")"));
      return;
    }
    OpenSection s(*kind, n, pretty);
    switch (*kind) {
      case Kind::kCq:
        s.index = plan_.cqs.size();
        plan_.cqs.emplace_back();
        plan_.cqs.back().name = name;
        plan_.cqs.back().line = n;
        break;
      case Kind::kSrq:
        s.index = plan_.srqs.size();
        plan_.srqs.emplace_back();
        plan_.srqs.back().name = name;
        plan_.srqs.back().line = n;
        break;
      case Kind::kQp:
        s.index = plan_.qp_classes.size();
        plan_.qp_classes.emplace_back();
        plan_.qp_classes.back().name = name;
        plan_.qp_classes.back().line = n;
        // QpCaps defaults to 0 everywhere; the format's defaults are 1 SGE.
        plan_.qp_classes.back().caps.max_send_sge = 1;
        plan_.qp_classes.back().caps.max_recv_sge = 1;
        break;
      case Kind::kPart:
        s.index = plan_.parts.size();
        plan_.parts.emplace_back();
        plan_.parts.back().vendor_part_id = static_cast<uint32_t>(*part_id);
        plan_.parts.back().line = n;
        break;
      case Kind::kCounter:
        s.index = plan_.counter_limits.size();
        plan_.counter_limits.emplace_back();
        plan_.counter_limits.back().name = name;
        plan_.counter_limits.back().line = n;
        break;
      case Kind::kPlan:
      case Kind::kPerf:
        break;
    }
    open_ = std::move(s);
    skipping_ = false;
  }

  void Key(int n, const std::string& key, const std::string& v) {
    OpenSection& s = *open_;
    if (!IsKeyOf(s.kind, key)) {
      UnknownKey(n, key);
      return;
    }
    auto [it, inserted] = s.keys.emplace(key, n);
    if (!inserted) {
      errors_.Add(n, key, absl::StrCat("set twice in ", s.label, " (first at line ",
                                       it->second, ")"));
      return;
    }
    switch (s.kind) {
      case Kind::kPlan: PlanKey(n, key, v); break;
      case Kind::kCq: CqKey(n, key, v, plan_.cqs[s.index]); break;
      case Kind::kSrq: SrqKey(n, key, v, plan_.srqs[s.index]); break;
      case Kind::kQp: QpKey(n, key, v, plan_.qp_classes[s.index]); break;
      case Kind::kPart: PartKey(n, key, v, plan_.parts[s.index]); break;
      case Kind::kCounter: CounterKey(n, key, v, plan_.counter_limits[s.index]); break;
      case Kind::kPerf: PerfKey(n, key, v, *plan_.perf); break;
    }
  }

  void UnknownKey(int n, const std::string& key) {
    const OpenSection& s = *open_;
    // A key of another section is more likely misplaced than misspelt.
    std::vector<std::string> homes;
    for (Kind k : kAllKinds)
      if (k != s.kind && IsKeyOf(k, key)) homes.push_back(KindPattern(k));
    if (!homes.empty()) {
      errors_.Add(n, key, absl::StrCat("unknown key in ", s.label, " (", key, " belongs in ",
                                       absl::StrJoin(homes, " or "), ")"));
      return;
    }
    std::string near = Nearest(key, KeysOf(s.kind));
    if (!near.empty()) {
      open_->attempted.insert(near);
      errors_.Add(n, key, absl::StrCat("unknown key in ", s.label, " (did you mean ", near, "?)"));
      return;
    }
    errors_.Add(n, key, absl::StrCat("unknown key in ", s.label, " (allowed: ",
                                     absl::StrJoin(KeysOf(s.kind), ", "), ")"));
  }

  // Typed setters: report and leave the field alone when the value is bad.
  bool Whole(int n, absl::string_view key, absl::string_view v, uint64_t lo, uint64_t hi,
             uint64_t* out) {
    std::string why;
    std::optional<uint64_t> x = ParseWhole(v, lo, hi, &why);
    if (!x) {
      errors_.Add(n, key, why);
      return false;
    }
    *out = *x;
    return true;
  }
  void U32(int n, absl::string_view key, absl::string_view v, uint64_t lo, uint64_t hi,
           uint32_t* out) {
    uint64_t x = 0;
    if (Whole(n, key, v, lo, hi, &x)) *out = static_cast<uint32_t>(x);
  }
  bool Size(int n, absl::string_view key, absl::string_view v, uint64_t lo, uint64_t* out) {
    absl::StatusOr<uint64_t> x = ParsePlanSize(v);
    if (!x.ok()) {
      errors_.Add(n, key, x.status().message());
      return false;
    }
    if (*x < lo) {
      errors_.Add(n, key, absl::StrCat(v, " is too small (at least ", lo, " B)"));
      return false;
    }
    *out = *x;
    return true;
  }
  bool Name(int n, absl::string_view key, absl::string_view v, Kind target, std::string* out) {
    if (!IsName(v)) {
      errors_.Add(n, key, absl::StrCat("'", v, "' is not a ", KindPattern(target),
                                       " name (", NameRule(), ")"));
      return false;
    }
    *out = std::string(v);
    refs_.push_back({target, *out, n, std::string(key)});
    return true;
  }

  void PlanKey(int n, const std::string& key, const std::string& v) {
    uint64_t x = 0;
    if (key == "name") {
      plan_.name = v;
    } else if (key == "description") {
      plan_.description = v;
    } else if (key == "device") {
      if (IsName(v)) {
        plan_.device = v;
        plan_.device_line = n;
      } else
        errors_.Add(n, key, absl::StrCat("'", v, "' is not a device name (", NameRule(), ")"));
    } else if (key == "port") {
      if (Whole(n, key, v, 1, 255, &x)) plan_.port = static_cast<int>(x);
    } else if (key == "path_mtu") {
      std::string why;
      std::optional<uint64_t> b = ParseWhole(v, 0, 1u << 20, &why);
      if (b && IbMtuEnum(static_cast<int>(*b))) {
        plan_.path_mtu = static_cast<int>(*b);
      } else {
        errors_.Add(n, key, absl::StrCat(b ? v : absl::StrCat("'", v, "'"),
                                         " is not an IB MTU (256, 512, 1024, 2048, 4096)"));
      }
    } else if (key == "gid_type") {
      std::optional<GidType> t = ParseGidType(v);
      if (t && *t != GidType::kUnknown)
        plan_.gid_type = *t;
      else
        errors_.Add(n, key, absl::StrCat("'", v, "' is not a GID type (IB, RoCEv1, RoCEv2)"));
    } else if (key == "gid_index") {
      if (Whole(n, key, v, 0, 255, &x)) plan_.gid_index = static_cast<int>(x);
    } else if (key == "ip_version") {
      std::string l = absl::AsciiStrToLower(v);
      if (l == "4" || l == "ipv4")
        plan_.ip_version = 4;
      else if (l == "6" || l == "ipv6")
        plan_.ip_version = 6;
      else
        errors_.Add(n, key, absl::StrCat("'", v, "' is not an IP version (4, 6)"));
    } else if (key == "link_layer") {
      std::string l = absl::AsciiStrToLower(v);
      if (l == "ethernet")
        plan_.link_layer = "Ethernet";
      else if (l == "infiniband")
        plan_.link_layer = "InfiniBand";
      else
        errors_.Add(n, key, absl::StrCat("'", v, "' is not a link layer (Ethernet, InfiniBand)"));
    } else if (key == "min_rate") {
      absl::StatusOr<PortRate> r = ParseRate(v);
      if (!r.ok()) {
        errors_.Add(n, key, r.status().message());
      } else if (r->gbps <= 0) {
        errors_.Add(n, key, absl::StrCat("'", v, "' is no minimum (write a rate above 0 Gb/s, "
                                         "or delete the line)"));
      } else {
        plan_.min_rate = v;
        plan_.min_rate_gbps = r->gbps;
        plan_.min_rate_line = n;
      }
    } else if (key == "link_width") {
      if (LanesNamed(v)) {
        plan_.link_width = absl::AsciiStrToUpper(v);
        plan_.link_width_line = n;
      } else {
        errors_.Add(n, key, absl::StrCat("'", v, "' is not a link width (1X, 2X, 4X, 8X, 12X)"));
      }
    } else if (key == "memory_budget") {
      if (Size(n, key, v, 1, &x)) plan_.memory_budget = x;
    } else if (key == "mr_bytes") {
      if (Size(n, key, v, 0, &x)) plan_.mr_bytes = x;
    }
  }

  void CqKey(int n, const std::string& key, const std::string& v, CqSpec& cq) {
    if (key == "cqe") U32(n, key, v, 1, kMaxDepth, &cq.cqe);
    if (key == "count") U32(n, key, v, 1, kMaxCount, &cq.count);
  }

  void SrqKey(int n, const std::string& key, const std::string& v, SrqSpec& srq) {
    if (key == "max_wr") U32(n, key, v, 1, kMaxDepth, &srq.max_wr);
    if (key == "max_sge") U32(n, key, v, 0, kMaxDepth, &srq.max_sge);
    if (key == "count") U32(n, key, v, 1, kMaxCount, &srq.count);
    if (key == "cq") Name(n, key, v, Kind::kCq, &srq.cq);
  }

  void QpKey(int n, const std::string& key, const std::string& v, QpClass& qp) {
    if (key == "count") {
      U32(n, key, v, 1, kMaxCount, &qp.count);
    } else if (key == "type") {
      std::optional<QpType> t = ParseQpType(v);
      if (t)
        qp.type = *t;
      else
        errors_.Add(n, key, absl::StrCat("'", v, "' is not a QP type (RC, UC, UD)"));
    } else if (key == "max_send_wr") {
      U32(n, key, v, 1, kMaxDepth, &qp.caps.max_send_wr);
    } else if (key == "max_recv_wr") {
      U32(n, key, v, 1, kMaxDepth, &qp.caps.max_recv_wr);
    } else if (key == "max_send_sge") {
      U32(n, key, v, 0, kMaxDepth, &qp.caps.max_send_sge);
    } else if (key == "max_recv_sge") {
      U32(n, key, v, 0, kMaxDepth, &qp.caps.max_recv_sge);
    } else if (key == "max_inline_data") {
      U32(n, key, v, 0, kMaxDepth, &qp.caps.max_inline_data);
    } else if (key == "send_cq") {
      Name(n, key, v, Kind::kCq, &qp.send_cq);
    } else if (key == "recv_cq") {
      Name(n, key, v, Kind::kCq, &qp.recv_cq);
    } else if (key == "cq") {
      if (Name(n, key, v, Kind::kCq, &qp.send_cq)) qp.recv_cq = qp.send_cq;
    } else if (key == "srq") {
      Name(n, key, v, Kind::kSrq, &qp.srq);
    } else if (key == "mr_bytes") {
      uint64_t x = 0;
      if (Size(n, key, v, 0, &x)) qp.mr_bytes = x;
    }
  }

  void PartKey(int n, const std::string& key, const std::string& v, PartSpec& part) {
    if (key != "min_fw_ver") return;
    if (ParseDotted(v, 4))
      part.min_fw_ver = v;
    else
      errors_.Add(n, key, absl::StrCat("'", v, "' is not a firmware version (1-4 dot-separated "
                                       "whole numbers, as fw_ver prints it, e.g. 20.31.1014)"));
  }

  void CounterKey(int n, const std::string& key, const std::string& v, CounterLimit& c) {
    if (key != "max_per_s") return;
    std::optional<double> x = ParseDecimal(v);
    if (x)
      c.max_per_s = *x;
    else
      errors_.Add(n, key, absl::StrCat("'", v, "' is not a rate per second (a number >= 0, "
                                       "fractions allowed, e.g. 0.5)"));
  }

  void PerfKey(int n, const std::string& key, const std::string& v, PerfSpec& p) {
    if (key == "message_size") {
      uint64_t x = 0;
      if (Size(n, key, v, 1, &x)) {
        if (x > (1u << 30)) {
          errors_.Add(n, key, absl::StrCat(v, " is too large (at most 1 GiB)"));
        } else {
          p.message_size = static_cast<uint32_t>(x);
        }
      }
      return;
    }
    std::optional<double> x = ParseDecimal(v);
    if (!x || *x <= 0) {
      errors_.Add(n, key, absl::StrCat("'", v, "' is not a positive number (",
                                       key == "min_write_bw_gbps" ? "Gb/s, e.g. 90 or 0.3" : "microseconds, e.g. 5",
                                       ")"));
      return;
    }
    if (key == "min_write_bw_gbps") {
      p.min_write_bw_gbps = *x;
      p.min_write_bw_line = n;
    } else {
      p.max_write_lat_us = *x;
      p.max_write_lat_line = n;
    }
  }

  // End of a section: required keys and rules that span keys.
  void Close() {
    if (!open_) return;
    const OpenSection& s = *open_;
    auto has = [&](const char* k) { return s.keys.count(k) > 0; };
    auto tried = [&](const char* k) { return has(k) || s.attempted.count(k) > 0; };
    auto line_of = [&](const char* k) { return s.keys.at(k); };
    auto missing = [&](const char* k, absl::string_view how) {
      // A truncated file lands here too: name the section's line and the field.
      errors_.Add(s.line, k, absl::StrCat("missing in ", s.label, " (", how, ")"));
    };
    switch (s.kind) {
      case Kind::kPlan:
        if (has("gid_type") && has("link_layer") && plan_.gid_type && plan_.link_layer) {
          bool ib_gid = *plan_.gid_type == GidType::kIb;
          bool ib_link = *plan_.link_layer == "InfiniBand";
          if (ib_gid != ib_link)
            errors_.Add(line_of("gid_type"), "gid_type",
                        absl::StrCat(GidTypeName(*plan_.gid_type), " does not go with link_layer = ",
                                     *plan_.link_layer, " at line ", line_of("link_layer"),
                                     " (IB GIDs are on InfiniBand ports, RoCEv1/RoCEv2 on Ethernet)"));
        }
        break;
      case Kind::kCq:
        if (!tried("cqe")) missing("cqe", "required: the CQ depth, e.g. cqe = 512");
        break;
      case Kind::kCounter:
        if (!tried("max_per_s"))
          missing("max_per_s", "required: how fast the counter may climb, e.g. max_per_s = 0.5");
        break;
      case Kind::kPart:
      case Kind::kPerf:
        break;
      case Kind::kSrq:
        if (!tried("max_wr")) missing("max_wr", "required: the SRQ depth, e.g. max_wr = 1024");
        break;
      case Kind::kQp: {
        if (!tried("max_send_wr")) missing("max_send_wr", "required, e.g. max_send_wr = 256");
        bool srq = has("srq");
        if (!srq && !tried("max_recv_wr"))
          missing("max_recv_wr", "required unless srq is set, e.g. max_recv_wr = 256");
        if (srq) {
          for (const char* k : {"max_recv_wr", "max_recv_sge"}) {
            if (has(k))
              errors_.Add(line_of(k), k,
                          absl::StrCat("not used with srq = ", plan_.qp_classes[s.index].srq,
                                       " at line ", line_of("srq"),
                                       " (receives are posted to the SRQ; set its max_wr "
                                       "and max_sge instead)"));
          }
        }
        if (has("cq")) {
          for (const char* k : {"send_cq", "recv_cq"}) {
            if (has(k))
              errors_.Add(std::max(line_of(k), line_of("cq")), k,
                          absl::StrCat("conflicts with cq at line ", line_of("cq"),
                                       " (cq sets both send_cq and recv_cq; use one form)"));
          }
        }
        break;
      }
    }
  }

  // Every CQ/SRQ named by a QP class or SRQ must be declared somewhere.
  void Resolve() {
    for (const Ref& r : refs_) {
      const std::map<std::string, int>& names = declared_[r.target];
      if (names.count(r.name)) continue;
      std::vector<std::string> all;
      for (const auto& [name, line] : names) all.push_back(name);
      std::string near = Nearest(r.name, all);
      std::string hint;
      if (!near.empty())
        hint = absl::StrCat("did you mean ", near, "?");
      else if (all.empty())
        hint = absl::StrCat("no ", KindPattern(r.target), " section is declared");
      else
        hint = absl::StrCat("declared: ", absl::StrJoin(all, ", "));
      errors_.Add(r.line, r.field,
                  absl::StrCat("'", r.name, "' is not a declared ", KindPattern(r.target), " (",
                               hint, ")"));
    }
  }

  absl::string_view text_;
  std::string file_;
  ErrorList errors_;
  Plan plan_;
  std::optional<OpenSection> open_;
  bool skipping_ = false;
  bool saw_qp_header_ = false;
  int plan_line_ = 0;
  std::map<Kind, std::map<std::string, int>> declared_;  // name -> line
  std::vector<Ref> refs_;
};

}  // namespace

absl::StatusOr<uint64_t> ParsePlanSize(absl::string_view text) {
  absl::string_view t = absl::StripAsciiWhitespace(text);
  size_t i = 0;
  while (i < t.size() && absl::ascii_isdigit(t[i])) ++i;
  if (i == 0)
    return absl::InvalidArgumentError(
        absl::StrCat("'", t, "' is not a size (", kSizeAllowed, ")"));
  std::string unit = absl::AsciiStrToLower(absl::StripLeadingAsciiWhitespace(t.substr(i)));
  static constexpr struct {
    const char* name;
    int shift;
  } kUnits[] = {{"", 0},    {"b", 0},    {"k", 10},  {"kib", 10}, {"m", 20},
                {"mib", 20}, {"g", 30},  {"gib", 30}, {"t", 40},  {"tib", 40}};
  int shift = -1;
  for (const auto& u : kUnits)
    if (unit == u.name) shift = u.shift;
  if (shift < 0) {
    if (unit == "kb" || unit == "mb" || unit == "gb" || unit == "tb")
      return absl::InvalidArgumentError(absl::StrCat(
          "'", t, "' uses a decimal unit (write ", t.substr(0, i), " ",
          absl::AsciiStrToUpper(unit.substr(0, 1)), "iB; K, M, G, T mean KiB, MiB, GiB, TiB)"));
    return absl::InvalidArgumentError(
        absl::StrCat("'", t, "' is not a size (", kSizeAllowed, ")"));
  }
  uint64_t n = 0;
  if (!absl::SimpleAtoi(t.substr(0, i), &n) ||
      n > (std::numeric_limits<uint64_t>::max() >> shift))
    return absl::InvalidArgumentError(absl::StrCat("'", t, "' is too large (at most 16 EiB)"));
  return n << shift;
}

absl::StatusOr<Plan> ParsePlan(absl::string_view text, absl::string_view filename) {
  return Parser(text, filename).Run();
}

absl::StatusOr<Plan> ReadPlanFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadInputFile("ReadPlanFile", path, "a plan", kMaxFileBytes);
  if (!text.ok()) return text.status();
  return ParsePlan(*text, path);
}

}  // namespace rdmacheck
