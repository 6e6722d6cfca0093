#include "facts/profile.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/substitute.h"
#include "absl/types/span.h"
#include "facts/qdisc.h"
#include "util/numbers.h"
#include "util/status_macros.h"

namespace rdmacheck {
namespace {

constexpr absl::string_view kMagic = "rdmacheck-profile";
constexpr absl::string_view kUnlimited = "unlimited";

// Section kinds as their headers spell them.
constexpr absl::string_view kHostSection = "host";
constexpr absl::string_view kDeviceSection = "device";
constexpr absl::string_view kPortSection = "port";
constexpr absl::string_view kNetdevSection = "netdev";
constexpr absl::string_view kRulesetSection = "ruleset";
constexpr absl::string_view kWindowSection = "window";

// ---------------------------------------------------------------------------
// Values: numbers, booleans, strings, tokens.

// A string written bare must come back identical after the reader strips
// the line: no edge whitespace, no control or non-ASCII bytes, not empty,
// and not starting with the quote that would make it a quoted value.
bool NeedsQuotes(absl::string_view s, bool is_token) {
  if (s.empty() || s.front() == '"') return true;
  if (absl::ascii_isspace(s.front()) || absl::ascii_isspace(s.back())) return true;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return true;
    if (is_token && (c == ' ' || c == ']')) return true;
  }
  return false;
}

std::string Quote(absl::string_view s) { return absl::StrCat("\"", absl::CEscape(s), "\""); }

std::string StringValue(absl::string_view s) {
  return NeedsQuotes(s, false) ? Quote(s) : std::string(s);
}

std::string Token(absl::string_view s) {
  return NeedsQuotes(s, true) ? Quote(s) : std::string(s);
}

// Splits `s` into whitespace-separated tokens; a token starting with '"'
// runs to its closing quote and is C-unescaped. Returns an error text
// (empty on success).
std::string SplitTokens(absl::string_view s, std::vector<std::string>* out) {
  size_t i = 0;
  while (true) {
    while (i < s.size() && absl::ascii_isspace(s[i])) ++i;
    if (i >= s.size()) return "";
    if (s[i] == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += (s[j] == '\\') ? 2 : 1;
      if (j >= s.size()) return "unterminated quoted string";
      std::string unescaped, err;
      if (!absl::CUnescape(s.substr(i + 1, j - i - 1), &unescaped, &err))
        return absl::StrCat("bad escape in quoted string: ", err);
      if (j + 1 < s.size() && !absl::ascii_isspace(s[j + 1]))
        return "text right after a closing quote";
      out->push_back(std::move(unescaped));
      i = j + 1;
    } else {
      size_t j = i;
      while (j < s.size() && !absl::ascii_isspace(s[j])) ++j;
      out->emplace_back(s.substr(i, j - i));
      i = j;
    }
  }
}

bool ValidGid(const std::string& s) {
  in6_addr a;
  return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

// Attributes that read better in hex: masks and the 2^64-1 "no limit".
bool HexAttr(absl::string_view name) {
  return name == "page_size_cap" || name == "device_cap_flags" ||
         name == "device_cap_flags_ex" || name == "max_mr_size";
}

// The values a key takes, and the error for any other; in `error`, $0 is
// the value given and $1 the allowed ones ("A, B or C").
struct Choices {
  absl::Span<const absl::string_view> values;
  absl::string_view error;

  bool Has(absl::string_view v) const {
    for (absl::string_view c : values)
      if (c == v) return true;
    return false;
  }
  std::string Error(absl::string_view v) const {
    std::string allowed;
    for (size_t i = 0; i < values.size(); ++i)
      absl::StrAppend(&allowed, i == 0 ? "" : i + 1 == values.size() ? " or " : ", ", values[i]);
    return absl::Substitute(error, v, allowed);
  }
};

constexpr absl::string_view kPortStates[] = {"ACTIVE", "DOWN",         "INIT",
                                             "ARMED",  "ACTIVE_DEFER", "NOP"};
constexpr absl::string_view kLinkLayers[] = {"Ethernet", "InfiniBand"};
constexpr absl::string_view kContainerRuntimes[] = {"docker", "podman", "kubernetes", "generic"};
// The ruleset sources HostInfo::rulesets knows (see device_view.h).
constexpr absl::string_view kRulesetSources[] = {"nft", "iptables-nft", "iptables-legacy",
                                                 "ip6tables-nft", "ip6tables-legacy"};

constexpr Choices kPortState{kPortStates, "`$0` is not a port state; expected $1"};
constexpr Choices kLinkLayer{kLinkLayers, "`$0` is not a link layer; expected $1"};
constexpr Choices kContainerRuntime{kContainerRuntimes, "expected $1, got `$0`"};
constexpr Choices kRulesetSource{kRulesetSources, "unknown ruleset source; expected $1"};
constexpr absl::string_view kNetnsModes[] = {"shared", "exclusive"};
constexpr Choices kNetnsMode{kNetnsModes, "`$0` is not an rdma netns mode; expected $1"};

// ---------------------------------------------------------------------------
// Reading values: errors name the file, the line and the field.

class Reader {
 public:
  explicit Reader(absl::string_view file) : file_(file) {}

  void At(int line) { line_ = line; }
  // A new section: its keys may be given again, and it has said nothing.
  void StartSection() {
    seen_.clear();
    said_gids_known_.reset();
  }

  absl::Status Err(absl::string_view field, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(file_, ":", line_, ": ", field, ": ", what));
  }

  absl::Status Unknown(absl::string_view key, absl::string_view where) const {
    return Err(key, absl::StrCat("unknown key in ", where, " (see docs/profile-format.md)"));
  }

  absl::Status Once(absl::string_view key) {
    if (!seen_.insert(std::string(key)).second) return Err(key, "given twice in this section");
    return absl::OkStatus();
  }

  absl::Status NeedValue(absl::string_view key, absl::string_view rest) const {
    if (rest.empty()) return Err(key, "no value (truncated line?)");
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Text(absl::string_view key, absl::string_view rest) const {
    RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
    if (rest.front() != '"') return std::string(rest);
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, Tokens(key, rest));
    if (t.size() != 1) return Err(key, "text after the closing quote");
    return t[0];
  }

  absl::StatusOr<uint64_t> Number(absl::string_view key, absl::string_view rest,
                                  uint64_t max = UINT64_MAX) const {
    RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
    uint64_t v = 0;
    if (!ParseUnsigned(rest, &v))
      return Err(key, absl::StrCat("expected a non-negative number (decimal or 0x hex), got `",
                                   rest, "`"));
    if (v > max) return Err(key, absl::StrCat("value ", rest, " out of range (max ", max, ")"));
    return v;
  }

  absl::StatusOr<bool> YesNo(absl::string_view key, absl::string_view rest) const {
    RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
    if (rest == "yes") return true;
    if (rest == "no") return false;
    return Err(key, absl::StrCat("expected yes or no, got `", rest, "`"));
  }

  absl::StatusOr<std::vector<std::string>> Tokens(absl::string_view key,
                                                  absl::string_view rest) const {
    std::vector<std::string> t;
    std::string e = SplitTokens(rest, &t);
    if (!e.empty()) return Err(key, e);
    return t;
  }

  // What the section said with `gids_known`, if it did (see EndSection).
  std::optional<bool>& said_gids_known() { return said_gids_known_; }

 private:
  std::string file_;
  int line_ = 0;
  std::set<std::string> seen_;
  std::optional<bool> said_gids_known_;
};

// ---------------------------------------------------------------------------
// Fields: one key of a section, with how it is read and written. The tables
// below are the format: the reader looks keys up in them and the writer
// writes their keys in table order, so the two cannot disagree.

template <typename S>
struct Field {
  absl::string_view key;
  // Reads one `key rest` line into the section's struct.
  std::function<absl::Status(Reader&, absl::string_view key, absl::string_view rest, S&)> read;
  // Appends the key's lines for `s`: none for an absent value.
  std::function<void(absl::string_view key, const S& s, std::string* out)> write;
};

template <typename S>
using Fields = std::vector<Field<S>>;

template <typename S>
const Field<S>* Find(const Fields<S>& fields, absl::string_view key) {
  for (const Field<S>& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

template <typename S>
void WriteFields(const Fields<S>& fields, const S& s, std::string* out) {
  for (const Field<S>& f : fields) f.write(f.key, s, out);
}

// A key given once per section, for a std::optional member: absent, no
// line. `parse(reader, key, rest)` gives the value or the error, `format`
// its text.
template <typename S, typename T, typename Parse, typename Format>
Field<S> Scalar(absl::string_view key, std::optional<T> S::*member, Parse parse, Format format) {
  return {key,
          [member, parse](Reader& r, absl::string_view key, absl::string_view rest,
                          S& s) -> absl::Status {
            RDMACHECK_RETURN_IF_ERROR(r.Once(key));
            RDMACHECK_ASSIGN_OR_RETURN(T v, std::invoke(parse, r, key, rest));
            s.*member = std::move(v);
            return absl::OkStatus();
          },
          [member, format](absl::string_view key, const S& s, std::string* out) {
            if (s.*member) absl::StrAppend(out, key, " ", format(*(s.*member)), "\n");
          }};
}

std::string BoolText(bool b) { return b ? "yes" : "no"; }

// The kinds of one-value keys.

// Text: the rest of the line, or a quoted string.
template <typename S>
Field<S> Text(absl::string_view key, std::optional<std::string> S::*m) {
  return Scalar(key, m, &Reader::Text, StringValue);
}

// Text that must be one of `c`.
template <typename S>
Field<S> Enum(absl::string_view key, std::optional<std::string> S::*m, const Choices& c) {
  auto parse = [&c](Reader& r, absl::string_view key,
                    absl::string_view rest) -> absl::StatusOr<std::string> {
    RDMACHECK_ASSIGN_OR_RETURN(std::string v, r.Text(key, rest));
    if (!c.Has(v)) return r.Err(key, c.Error(v));
    return v;
  };
  return Scalar(key, m, parse, StringValue);
}

// Decimal or 0x hex up to the member type's maximum; written in decimal, or
// in hex padded by `hex`.
template <typename S, typename T>
Field<S> Number(absl::string_view key, std::optional<T> S::*m,
                std::optional<absl::PadSpec> hex = std::nullopt) {
  auto parse = [](Reader& r, absl::string_view key, absl::string_view rest) -> absl::StatusOr<T> {
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, r.Number(key, rest, std::numeric_limits<T>::max()));
    return static_cast<T>(v);
  };
  auto format = [hex](T v) { return hex ? absl::StrCat("0x", absl::Hex(v, *hex)) : absl::StrCat(v); };
  return Scalar(key, m, parse, format);
}

template <typename S, typename T>
Field<S> Hex(absl::string_view key, std::optional<T> S::*m, absl::PadSpec pad) {
  return Number(key, m, pad);
}

// An IB MTU in bytes.
template <typename S>
Field<S> Mtu(absl::string_view key, std::optional<int> S::*m) {
  auto parse = [](Reader& r, absl::string_view key, absl::string_view rest) -> absl::StatusOr<int> {
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, r.Number(key, rest, INT_MAX));
    if (!IbMtuEnum(static_cast<int>(v)))
      return r.Err(key, absl::StrCat(rest, " is not an IB MTU; expected 256, 512, 1024, 2048 or "
                                           "4096 (bytes)"));
    return static_cast<int>(v);
  };
  return Scalar(key, m, parse, [](int v) { return absl::StrCat(v); });
}

template <typename S>
Field<S> Bool(absl::string_view key, std::optional<bool> S::*m) {
  return Scalar(key, m, &Reader::YesNo, BoolText);
}

// RLIMIT_MEMLOCK: a number, or `unlimited` for RLIM_INFINITY.
template <typename S>
Field<S> Memlock(absl::string_view key, std::optional<uint64_t> S::*m) {
  auto parse = [](Reader& r, absl::string_view key,
                  absl::string_view rest) -> absl::StatusOr<uint64_t> {
    if (rest == kUnlimited) return HostInfo::kUnlimited;
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, r.Number(key, rest));
    if (v == HostInfo::kUnlimited) return r.Err(key, "write `unlimited` rather than 2^64-1");
    return v;
  };
  auto format = [](uint64_t v) {
    return v == HostInfo::kUnlimited ? std::string(kUnlimited) : absl::StrCat(v);
  };
  return Scalar(key, m, parse, format);
}

// A list of distinct tokens with its `known` flag: no line, not known; the
// bare key, known and empty.
template <typename S>
Field<S> List(absl::string_view key, std::vector<std::string> S::*items, bool S::*known) {
  return {key,
          [items, known](Reader& r, absl::string_view key, absl::string_view rest,
                         S& s) -> absl::Status {
            RDMACHECK_RETURN_IF_ERROR(r.Once(key));
            RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest));
            std::set<std::string> uniq;
            for (const std::string& v : t)
              if (!uniq.insert(v).second) return r.Err(key, absl::StrCat("`", v, "` listed twice"));
            s.*items = std::move(t);
            s.*known = true;
            return absl::OkStatus();
          },
          [items, known](absl::string_view key, const S& s, std::string* out) {
            if (!(s.*known)) return;
            absl::StrAppend(out, key);
            for (const std::string& v : s.*items) absl::StrAppend(out, " ", Token(v));
            absl::StrAppend(out, "\n");
          }};
}

// `KEY NAME NUMBER` lines, one per NAME (attr, counters); the names `hex`
// picks are written in hex.
template <typename S>
Field<S> Named(absl::string_view key, std::map<std::string, uint64_t> S::*map,
               bool (*hex)(absl::string_view) = nullptr) {
  return {key,
          [map](Reader& r, absl::string_view key, absl::string_view rest,
                S& s) -> absl::Status {
            RDMACHECK_RETURN_IF_ERROR(r.NeedValue(key, rest));
            RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest));
            if (t.size() != 2) return r.Err(key, absl::StrCat("expected `", key, " NAME NUMBER`"));
            std::string field = absl::StrCat(key, " ", t[0]);
            RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, r.Number(field, t[1]));
            if (!(s.*map).emplace(t[0], v).second) return r.Err(field, "given twice");
            return absl::OkStatus();
          },
          [map, hex](absl::string_view key, const S& s, std::string* out) {
            for (const auto& [name, value] : s.*map) {
              absl::StrAppend(out, key, " ", Token(name), " ",
                              hex != nullptr && hex(name) ? absl::StrCat("0x", absl::Hex(value))
                                                          : absl::StrCat(value),
                              "\n");
            }
          }};
}

// ---------------------------------------------------------------------------
// Keys with their own line shapes.

// `provenance TEXT`, any number of them, in order.
absl::Status ReadProvenance(Reader& r, absl::string_view key, absl::string_view rest,
                            DeviceView& v) {
  RDMACHECK_ASSIGN_OR_RETURN(std::string text, r.Text(key, rest));
  v.provenance.push_back(std::move(text));
  return absl::OkStatus();
}

void WriteProvenance(absl::string_view key, const DeviceView& v, std::string* out) {
  for (const std::string& p : v.provenance) absl::StrAppend(out, key, " ", StringValue(p), "\n");
}

// `KEY NAME VALUE` lines, one per NAME (sysctl, unwatched): NAME a token,
// VALUE text (the rest of the line).
template <typename S>
Field<S> NamedText(absl::string_view key, std::map<std::string, std::string> S::*map) {
  return {key,
          [map](Reader& r, absl::string_view key, absl::string_view rest, S& s) -> absl::Status {
            RDMACHECK_RETURN_IF_ERROR(r.NeedValue(key, rest));
            size_t sp = rest.find_first_of(" \t");
            if (rest.front() == '"') {
              // A quoted name: take exactly one token, the rest is the value.
              size_t j = 1;
              while (j < rest.size() && rest[j] != '"') j += (rest[j] == '\\') ? 2 : 1;
              sp = j + 1 < rest.size() ? j + 1 : absl::string_view::npos;
            }
            RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest.substr(0, sp)));
            if (t.size() != 1 || sp == absl::string_view::npos)
              return r.Err(key, absl::StrCat("expected `", key, " NAME VALUE`"));
            std::string field = absl::StrCat(key, " ", t[0]);
            RDMACHECK_ASSIGN_OR_RETURN(std::string v,
                                       r.Text(field, absl::StripAsciiWhitespace(rest.substr(sp))));
            if (!(s.*map).emplace(t[0], std::move(v)).second) return r.Err(field, "given twice");
            return absl::OkStatus();
          },
          [map](absl::string_view key, const S& s, std::string* out) {
            for (const auto& [name, value] : s.*map)
              absl::StrAppend(out, key, " ", Token(name), " ", StringValue(value), "\n");
          }};
}

// `KEY NAME` lines, one per item, in order (watched, unreadable_counter).
template <typename S>
Field<S> Each(absl::string_view key, std::vector<std::string> S::*items) {
  return {key,
          [items](Reader& r, absl::string_view key, absl::string_view rest, S& s) -> absl::Status {
            RDMACHECK_RETURN_IF_ERROR(r.NeedValue(key, rest));
            RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest));
            if (t.size() != 1) return r.Err(key, absl::StrCat("expected `", key, " NAME`"));
            std::vector<std::string>& v = s.*items;
            if (std::find(v.begin(), v.end(), t[0]) != v.end())
              return r.Err(key, absl::StrCat("`", t[0], "` given twice"));
            v.push_back(t[0]);
            return absl::OkStatus();
          },
          [items](absl::string_view key, const S& s, std::string* out) {
            for (const std::string& v : s.*items) absl::StrAppend(out, key, " ", Token(v), "\n");
          }};
}

// `dev_node NAME STATE`, both tokens.
absl::Status ReadDevNode(Reader& r, absl::string_view key, absl::string_view rest, HostInfo& h) {
  RDMACHECK_RETURN_IF_ERROR(r.NeedValue(key, rest));
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest));
  if (t.size() != 2)
    return r.Err(key, absl::StrCat("expected `", key,
                                   " NAME STATE` (STATE: rw, missing or the open error)"));
  if (!h.dev_nodes.emplace(t[0], t[1]).second)
    return r.Err(absl::StrCat(key, " ", t[0]), "given twice");
  return absl::OkStatus();
}

void WriteDevNodes(absl::string_view key, const HostInfo& h, std::string* out) {
  for (const auto& [name, state] : h.dev_nodes)
    absl::StrAppend(out, key, " ", Token(name), " ", Token(state), "\n");
}

// `gid INDEX GID TYPE [NETDEV]`, one per INDEX.
absl::Status ReadGid(Reader& r, absl::string_view key, absl::string_view rest, PortInfo& p) {
  RDMACHECK_RETURN_IF_ERROR(r.NeedValue(key, rest));
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest));
  if (t.size() < 3 || t.size() > 4)
    return r.Err(key, absl::StrCat("expected `", key, " INDEX GID TYPE [NETDEV]`"));
  uint64_t index = 0;
  if (!ParseUnsigned(t[0], &index) || index > INT_MAX)
    return r.Err(key, absl::StrCat("index must be a non-negative number, got `", t[0], "`"));
  std::string field = absl::StrCat(key, " ", index);
  for (const GidEntry& g : p.gids)
    if (g.index == static_cast<int>(index)) return r.Err(field, "given twice");
  if (!ValidGid(t[1])) return r.Err(field, absl::StrCat("`", t[1], "` is not an IPv6-form GID"));
  std::optional<GidType> type = ParseGidType(t[2]);
  if (!type)
    return r.Err(field, absl::StrCat("unknown GID type `", t[2],
                                     "`; expected IB, RoCEv1, RoCEv2 or unknown"));
  GidEntry g;
  g.index = static_cast<int>(index);
  g.gid = t[1];
  g.type = *type;
  if (t.size() == 4) g.netdev = t[3];
  p.gids.push_back(std::move(g));
  return absl::OkStatus();
}

void WriteGids(absl::string_view key, const PortInfo& p, std::string* out) {
  for (const GidEntry& g : p.gids) {
    absl::StrAppend(out, key, " ", g.index, " ", Token(g.gid), " ", GidTypeName(g.type));
    if (!g.netdev.empty()) absl::StrAppend(out, " ", Token(g.netdev));
    absl::StrAppend(out, "\n");
  }
}

// A gid line means the table was read; `gids_known` says otherwise, and is
// written only for such odd views (and for a table read and empty).
absl::Status ReadGidsKnown(Reader& r, absl::string_view key, absl::string_view rest,
                           PortInfo&) {
  RDMACHECK_RETURN_IF_ERROR(r.Once(key));
  RDMACHECK_ASSIGN_OR_RETURN(bool b, r.YesNo(key, rest));
  r.said_gids_known() = b;
  return absl::OkStatus();
}

void WriteGidsKnown(absl::string_view key, const PortInfo& p, std::string* out) {
  if (p.gids_known != !p.gids.empty())
    absl::StrAppend(out, key, " ", BoolText(p.gids_known), "\n");
}

// One [ruleset] section: its text, and what the reader needs to rebuild it.
struct RulesetText {
  std::string text;
  int lines = 0;                  // `line` keys read so far
  bool no_final_newline = false;  // `final_newline no` read

  // The text as read: every line ends with a newline unless said otherwise.
  std::string Finish() && {
    if (lines > 0 && !no_final_newline) text.push_back('\n');
    return std::move(text);
  }
};

// `line TEXT` is one line of the ruleset, so '#' and '[' in it survive.
absl::Status ReadRulesetLine(Reader& r, absl::string_view key, absl::string_view rest,
                             RulesetText& s) {
  if (s.no_final_newline)
    return r.Err(key, "after `final_newline no`, which must be the last line of the section");
  if (s.lines++ > 0) s.text.push_back('\n');
  RDMACHECK_ASSIGN_OR_RETURN(std::string v, r.Text(key, rest));
  if (v.find('\n') != std::string::npos) return r.Err(key, "a line cannot hold a newline");
  s.text += v;
  return absl::OkStatus();
}

void WriteRulesetLines(absl::string_view key, const RulesetText& s, std::string* out) {
  if (s.text.empty()) return;
  absl::string_view body = s.text;
  absl::ConsumeSuffix(&body, "\n");
  for (absl::string_view l : absl::StrSplit(body, '\n'))
    absl::StrAppend(out, key, " ", StringValue(l), "\n");
}

// `final_newline no`: the text did not end with a newline.
absl::Status ReadFinalNewline(Reader& r, absl::string_view key, absl::string_view rest,
                              RulesetText& s) {
  RDMACHECK_RETURN_IF_ERROR(r.Once(key));
  RDMACHECK_ASSIGN_OR_RETURN(bool b, r.YesNo(key, rest));
  if (b)
    return r.Err(key, absl::StrCat("only `", key,
                                   " no` is written; a final newline is the default"));
  s.no_final_newline = true;
  return absl::OkStatus();
}

void WriteFinalNewline(absl::string_view key, const RulesetText& s, std::string* out) {
  if (!s.text.empty() && !absl::EndsWith(s.text, "\n")) absl::StrAppend(out, key, " no\n");
}

// ---------------------------------------------------------------------------
// The sections' keys, in the order the writer writes them
// (docs/profile-format.md).

const Fields<DeviceView>& PreambleFields() {
  static const auto* f = new Fields<DeviceView>{{"provenance", ReadProvenance, WriteProvenance}};
  return *f;
}

const Fields<HostInfo>& HostFields() {
  using H = HostInfo;
  static const auto* f = new Fields<H>{
      Text("hostname", &H::hostname),
      Text("kernel", &H::kernel),
      Memlock("memlock_soft", &H::memlock_soft),
      Memlock("memlock_hard", &H::memlock_hard),
      Number("mem_total", &H::mem_total),
      Bool("rxe_loaded", &H::rxe_loaded),
      Bool("devices_listed", &H::devices_listed),
      Bool("is_root", &H::is_root),
      Bool("in_container", &H::in_container),
      Enum("container_runtime", &H::container_runtime, kContainerRuntime),
      Text("container_marker", &H::container_marker),
      Bool("sysfs_infiniband", &H::sysfs_infiniband),
      Bool("dev_infiniband", &H::dev_infiniband),
      List("providers", &H::providers, &H::providers_known),
      NamedText("sysctl", &H::sysctls),
      Bool("udp4791_socket", &H::udp4791_socket),
      NamedText("ruleset_not_read", &H::rulesets_not_read),
      Bool("cap_ipc_lock", &H::cap_ipc_lock),
      Enum("rdma_netns_mode", &H::rdma_netns_mode, kNetnsMode),
      Bool("own_netns", &H::own_netns),
      {"dev_node", ReadDevNode, WriteDevNodes},
      Number("uptime_s", &H::uptime_s),
      Number("devices_not_opened", &H::devices_not_opened),
      Number("devices_without_provider", &H::devices_without_provider),
  };
  return *f;
}

const Fields<DeviceInfo>& DeviceFields() {
  using D = DeviceInfo;
  static const auto* f = new Fields<D>{
      Text("driver", &D::driver),
      Text("node_type", &D::node_type),
      Text("transport", &D::transport),
      Text("node_guid", &D::node_guid),
      Text("sys_image_guid", &D::sys_image_guid),
      Text("fw_ver", &D::fw_ver),
      Text("hw_ver", &D::hw_ver),
      Hex("vendor_id", &D::vendor_id, absl::kZeroPad4),
      Number("vendor_part_id", &D::vendor_part_id),
      Text("board_id", &D::board_id),
      Text("netdev", &D::netdev),
      Text("uverbs", &D::uverbs),
      Named("attr", &D::attrs, HexAttr),
      Text("pci_address", &D::pci_address),
      Text("pci_link_speed", &D::pci_link_speed),
      Number("pci_link_width", &D::pci_link_width),
      Text("pci_max_link_speed", &D::pci_max_link_speed),
      Number("pci_max_link_width", &D::pci_max_link_width),
      Text("numa_node", &D::numa_node),
      Named("aer", &D::aer),
      Named("aer_after", &D::aer_after),
  };
  return *f;
}

const Fields<PortInfo>& PortFields() {
  using P = PortInfo;
  static const auto* f = new Fields<P>{
      Enum("state", &P::state, kPortState),
      Text("phys_state", &P::phys_state),
      Enum("link_layer", &P::link_layer, kLinkLayer),
      Mtu("active_mtu", &P::active_mtu),
      Mtu("max_mtu", &P::max_mtu),
      Text("rate", &P::rate),
      Number("active_speed", &P::active_speed),
      Number("active_width", &P::active_width),
      Number("gid_tbl_len", &P::gid_tbl_len),
      Number("lid", &P::lid),
      Number("sm_lid", &P::sm_lid),
      Number("pkey_tbl_len", &P::pkey_tbl_len),
      Number("max_msg_sz", &P::max_msg_sz),
      {"gids_known", ReadGidsKnown, WriteGidsKnown},
      {"gid", ReadGid, WriteGids},
      Named("hw_counter", &P::hw_counters),
      Named("counter", &P::counters),
      Named("hw_counter_after", &P::hw_counters_after),
      Named("counter_after", &P::counters_after),
      Each("unreadable_counter", &P::unreadable_counters),
  };
  return *f;
}

// `qdiscs TOKEN...`, root first (facts/qdisc.h QdiscToken:
// "tbf@root,rate_bps=50000000,burst_bytes=4000"); no line, not read; the
// bare key, read and none.
absl::Status ReadQdiscs(Reader& r, absl::string_view key, absl::string_view rest, NetdevInfo& n) {
  RDMACHECK_RETURN_IF_ERROR(r.Once(key));
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest));
  std::vector<Qdisc> qs;
  for (const std::string& tok : t) {
    absl::StatusOr<Qdisc> q = ParseQdiscToken(tok);
    if (!q.ok()) return r.Err(key, q.status().message());
    qs.push_back(*std::move(q));
  }
  n.qdiscs = std::move(qs);
  n.qdiscs_known = true;
  return absl::OkStatus();
}

void WriteQdiscs(absl::string_view key, const NetdevInfo& n, std::string* out) {
  if (!n.qdiscs_known) return;
  absl::StrAppend(out, key);
  for (const Qdisc& q : n.qdiscs) absl::StrAppend(out, " ", QdiscToken(q));
  absl::StrAppend(out, "\n");
}

const Fields<NetdevInfo>& NetdevFields() {
  using N = NetdevInfo;
  static const auto* f = new Fields<N>{
      Number("mtu", &N::mtu),
      Text("operstate", &N::operstate),
      Number("ifindex", &N::ifindex),
      List("addrs", &N::addrs, &N::addrs_known),
      {"qdiscs", ReadQdiscs, WriteQdiscs},
      Text("kind", &N::kind),
      Each("lower", &N::lower),
      Number("vlan_id", &N::vlan_id),
      Text("master", &N::master),
      Text("bond_mode", &N::bond_mode),
      Text("bond_active_slave", &N::bond_active_slave),
      Text("bond_mii_status", &N::bond_mii_status),
      Text("slave_state", &N::slave_state),
      Text("slave_mii_status", &N::slave_mii_status),
      Number("link_failure_count", &N::link_failure_count),
  };
  return *f;
}

// `ms N`: the window's length, always written.
absl::Status ReadWindowMs(Reader& r, absl::string_view key, absl::string_view rest, LinkWindow& w) {
  RDMACHECK_RETURN_IF_ERROR(r.Once(key));
  RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, r.Number(key, rest, 24 * 3600 * 1000));
  w.ms = static_cast<int64_t>(v);
  return absl::OkStatus();
}

void WriteWindowMs(absl::string_view key, const LinkWindow& w, std::string* out) {
  absl::StrAppend(out, key, " ", w.ms, "\n");
}

// `event DEVICE AT_MS TYPE [PORT]`, in the order seen.
absl::Status ReadEvent(Reader& r, absl::string_view key, absl::string_view rest, LinkWindow& w) {
  RDMACHECK_RETURN_IF_ERROR(r.NeedValue(key, rest));
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<std::string> t, r.Tokens(key, rest));
  if (t.size() < 3 || t.size() > 4)
    return r.Err(key, absl::StrCat("expected `", key, " DEVICE AT_MS TYPE [PORT]` (TYPE: PORT_ERR, ...)"));
  AsyncEventSeen e;
  e.device = t[0];
  RDMACHECK_ASSIGN_OR_RETURN(uint64_t at, r.Number(absl::StrCat(key, " ", t[0], " AT_MS"), t[1], 24 * 3600 * 1000));
  e.at_ms = static_cast<int64_t>(at);
  for (char c : t[2])
    if (!absl::ascii_isupper(c) && c != '_')
      return r.Err(key, absl::StrCat("`", t[2], "` is not an event type (IBV_EVENT_ names without the prefix: "
                                     "PORT_ERR, PORT_ACTIVE, GID_CHANGE, ...)"));
  e.type = t[2];
  if (t.size() == 4) {
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t port, r.Number(absl::StrCat(key, " ", t[0], " PORT"), t[3], 255));
    e.port = static_cast<int>(port);
  }
  w.events.push_back(std::move(e));
  return absl::OkStatus();
}

void WriteEvents(absl::string_view key, const LinkWindow& w, std::string* out) {
  for (const AsyncEventSeen& e : w.events) {
    absl::StrAppend(out, key, " ", Token(e.device), " ", e.at_ms, " ", e.type);
    if (e.port) absl::StrAppend(out, " ", *e.port);
    absl::StrAppend(out, "\n");
  }
}

// `cut_short yes`, written only when it was.
absl::Status ReadCutShort(Reader& r, absl::string_view key, absl::string_view rest, LinkWindow& w) {
  RDMACHECK_RETURN_IF_ERROR(r.Once(key));
  RDMACHECK_ASSIGN_OR_RETURN(w.cut_short, r.YesNo(key, rest));
  return absl::OkStatus();
}

void WriteCutShort(absl::string_view key, const LinkWindow& w, std::string* out) {
  if (w.cut_short) absl::StrAppend(out, key, " yes\n");
}

const Fields<LinkWindow>& WindowFields() {
  using W = LinkWindow;
  static const auto* f = new Fields<W>{
      {"ms", ReadWindowMs, WriteWindowMs},
      Text("started", &W::started),
      {"cut_short", ReadCutShort, WriteCutShort},
      Each("watched", &W::watched),
      NamedText("unwatched", &W::unwatched),
      {"event", ReadEvent, WriteEvents},
  };
  return *f;
}

const Fields<RulesetText>& RulesetFields() {
  static const auto* f = new Fields<RulesetText>{
      {"line", ReadRulesetLine, WriteRulesetLines},
      {"final_newline", ReadFinalNewline, WriteFinalNewline},
  };
  return *f;
}

// ---------------------------------------------------------------------------
// Parser: lines, the version line, section headers; keys go to the tables.

enum class Section { kPreamble, kHost, kDevice, kPort, kNetdev, kRuleset, kWindow };

class Parser {
 public:
  explicit Parser(absl::string_view filename) : file_(filename), r_(filename) {}

  absl::StatusOr<DeviceView> Run(absl::string_view text) {
    view_.source = absl::StrCat("profile:", file_);
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
    // A final newline makes an empty last element: not a line of its own.
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    bool have_version = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      r_.At(static_cast<int>(i) + 1);
      absl::string_view l = lines[i];
      absl::ConsumeSuffix(&l, "\r");
      l = absl::StripAsciiWhitespace(l);
      if (l.empty() || l.front() == '#') continue;
      if (!have_version) {
        RDMACHECK_RETURN_IF_ERROR(Version(l));
        have_version = true;
        continue;
      }
      if (l.front() == '[') {
        RDMACHECK_RETURN_IF_ERROR(Header(l));
        continue;
      }
      size_t sp = l.find_first_of(" \t");
      absl::string_view key = l.substr(0, sp);
      absl::string_view rest =
          sp == absl::string_view::npos ? "" : absl::StripAsciiWhitespace(l.substr(sp));
      RDMACHECK_RETURN_IF_ERROR(KeyValue(key, rest));
    }
    if (!have_version) {
      r_.At(static_cast<int>(lines.size()) + (lines.empty() ? 1 : 0));
      return r_.Err(kMagic, absl::StrCat("missing version line; the first line that is not "
                                         "a comment must be `", kMagic, " ", kProfileVersion,
                                         "` (empty or truncated file?)"));
    }
    EndSection();
    return std::move(view_);
  }

 private:
  absl::Status Version(absl::string_view l) {
    std::vector<std::string> t;
    std::string e = SplitTokens(l, &t);
    if (!e.empty() || t.empty() || t[0] != kMagic)
      return r_.Err(kMagic, absl::StrCat("missing version line: expected `", kMagic, " ",
                                         kProfileVersion, "` first, got `", l, "`"));
    uint64_t v = 0;
    if (t.size() != 2 || !ParseUnsigned(t[1], &v))
      return r_.Err(kMagic, absl::StrCat("version must be one number, got `", l, "`"));
    if (v != static_cast<uint64_t>(kProfileVersion))
      return r_.Err(kMagic, absl::StrCat("unsupported version ", t[1],
                                         "; supported versions: ", kProfileVersion));
    return absl::OkStatus();
  }

  absl::Status Header(absl::string_view l) {
    if (l.back() != ']') return r_.Err(l, "section header must end with ']'");
    std::vector<std::string> t;
    std::string e = SplitTokens(l.substr(1, l.size() - 2), &t);
    if (!e.empty()) return r_.Err(l, e);
    if (t.empty()) return r_.Err(l, "empty section header");
    EndSection();
    r_.StartSection();
    const std::string& kind = t[0];
    if (kind == kHostSection) return OpenHost(t);
    if (kind == kDeviceSection) return OpenDevice(t);
    if (kind == kPortSection) return OpenPort(t);
    if (kind == kNetdevSection) return OpenNetdev(t);
    if (kind == kRulesetSection) return OpenRuleset(t);
    if (kind == kWindowSection) return OpenWindow(t);
    return r_.Err(absl::StrCat("[", kind, "]"),
                  "unknown section; expected [host], [device NAME], [port DEVICE N], "
                  "[netdev NAME], [window] or [ruleset SOURCE]");
  }

  absl::Status OpenHost(const std::vector<std::string>& t) {
    if (t.size() != 1) return r_.Err("[host]", "takes no name");
    if (host_seen_) return r_.Err("[host]", "duplicate section");
    host_seen_ = true;
    section_ = Section::kHost;
    where_ = "[host]";
    return absl::OkStatus();
  }

  absl::Status OpenWindow(const std::vector<std::string>& t) {
    if (t.size() != 1) return r_.Err("[window]", "takes no name");
    if (view_.window) return r_.Err("[window]", "duplicate section");
    view_.window.emplace();
    section_ = Section::kWindow;
    where_ = "[window]";
    return absl::OkStatus();
  }

  absl::Status OpenDevice(const std::vector<std::string>& t) {
    if (t.size() != 2) return r_.Err("[device]", "expected [device NAME]");
    if (t[1].empty()) return r_.Err("[device]", "empty device name");
    if (view_.Device(t[1]) != nullptr)
      return r_.Err(absl::StrCat("[device ", t[1], "]"), "duplicate section");
    DeviceInfo d;
    d.name = t[1];
    view_.devices.push_back(std::move(d));
    dev_ = view_.devices.size() - 1;
    section_ = Section::kDevice;
    where_ = absl::StrCat("[device ", t[1], "]");
    return absl::OkStatus();
  }

  absl::Status OpenPort(const std::vector<std::string>& t) {
    if (t.size() != 3) return r_.Err("[port]", "expected [port DEVICE NUMBER]");
    std::string field = absl::StrCat("[port ", t[1], " ", t[2], "]");
    size_t d = 0;
    while (d < view_.devices.size() && view_.devices[d].name != t[1]) ++d;
    if (d == view_.devices.size())
      return r_.Err(field, absl::StrCat("device ", t[1], " is not declared; put [device ", t[1],
                                        "] before it"));
    uint64_t n = 0;
    if (!ParseUnsigned(t[2], &n) || n < 1 || n > 255)
      return r_.Err(field, absl::StrCat("port number must be 1..255, got ", t[2]));
    if (view_.devices[d].Port(static_cast<int>(n)) != nullptr)
      return r_.Err(field, "duplicate section");
    PortInfo p;
    p.port_num = static_cast<int>(n);
    view_.devices[d].ports.push_back(std::move(p));
    dev_ = d;
    port_ = view_.devices[d].ports.size() - 1;
    section_ = Section::kPort;
    where_ = absl::StrCat("[port ", t[1], " ", n, "]");
    return absl::OkStatus();
  }

  absl::Status OpenNetdev(const std::vector<std::string>& t) {
    if (t.size() != 2) return r_.Err("[netdev]", "expected [netdev NAME]");
    if (t[1].empty()) return r_.Err("[netdev]", "empty netdev name");
    if (view_.Netdev(t[1]) != nullptr)
      return r_.Err(absl::StrCat("[netdev ", t[1], "]"), "duplicate section");
    NetdevInfo n;
    n.name = t[1];
    view_.netdevs.push_back(std::move(n));
    net_ = view_.netdevs.size() - 1;
    section_ = Section::kNetdev;
    where_ = absl::StrCat("[netdev ", t[1], "]");
    return absl::OkStatus();
  }

  absl::Status OpenRuleset(const std::vector<std::string>& t) {
    if (t.size() != 2) return r_.Err("[ruleset]", "expected [ruleset SOURCE]");
    std::string field = absl::StrCat("[ruleset ", t[1], "]");
    if (!kRulesetSource.Has(t[1])) return r_.Err(field, kRulesetSource.Error(t[1]));
    if (!view_.host.rulesets.emplace(t[1], "").second) return r_.Err(field, "duplicate section");
    ruleset_name_ = t[1];
    ruleset_ = RulesetText();
    section_ = Section::kRuleset;
    where_ = field;
    return absl::OkStatus();
  }

  // What a section's lines decide together, once they are all read.
  void EndSection() {
    if (section_ == Section::kPort) {
      PortInfo& p = view_.devices[dev_].ports[port_];
      p.gids_known = r_.said_gids_known().value_or(!p.gids.empty());
    } else if (section_ == Section::kRuleset) {
      view_.host.rulesets[ruleset_name_] = std::move(ruleset_).Finish();
    }
  }

  template <typename S>
  absl::Status Read(const Fields<S>& fields, absl::string_view key, absl::string_view rest,
                    S& s) {
    const Field<S>* f = Find(fields, key);
    if (f == nullptr) return r_.Unknown(key, where_);
    return f->read(r_, f->key, rest, s);
  }

  absl::Status KeyValue(absl::string_view key, absl::string_view rest) {
    switch (section_) {
      case Section::kPreamble: {
        const Field<DeviceView>* f = Find(PreambleFields(), key);
        if (f == nullptr)
          return r_.Err(key, "unknown key before the first section; only `provenance` lines "
                             "may come before [host], [device ...], [port ...] or [netdev ...]");
        return f->read(r_, f->key, rest, view_);
      }
      case Section::kHost:
        return Read(HostFields(), key, rest, view_.host);
      case Section::kDevice:
        return Read(DeviceFields(), key, rest, view_.devices[dev_]);
      case Section::kPort:
        return Read(PortFields(), key, rest, view_.devices[dev_].ports[port_]);
      case Section::kNetdev:
        return Read(NetdevFields(), key, rest, view_.netdevs[net_]);
      case Section::kRuleset:
        return Read(RulesetFields(), key, rest, ruleset_);
      case Section::kWindow:
        return Read(WindowFields(), key, rest, *view_.window);
    }
    return absl::OkStatus();
  }

  std::string file_;
  Reader r_;
  DeviceView view_;
  Section section_ = Section::kPreamble;
  bool host_seen_ = false;
  size_t dev_ = 0, port_ = 0, net_ = 0;
  std::string where_;  // the section's header, for "unknown key in [device rxe0]"
  std::string ruleset_name_;
  RulesetText ruleset_;
};

}  // namespace

absl::StatusOr<DeviceView> ParseProfile(absl::string_view text, absl::string_view filename) {
  return Parser(filename).Run(text);
}

std::string WriteProfile(const DeviceView& view) {
  std::string out;
  absl::StrAppend(&out, "# rdmacheck device profile; format: docs/profile-format.md\n");
  absl::StrAppend(&out, kMagic, " ", kProfileVersion, "\n");
  WriteFields(PreambleFields(), view, &out);
  absl::StrAppend(&out, "\n[", kHostSection, "]\n");
  WriteFields(HostFields(), view.host, &out);
  for (const DeviceInfo& d : view.devices) {
    absl::StrAppend(&out, "\n[", kDeviceSection, " ", Token(d.name), "]\n");
    WriteFields(DeviceFields(), d, &out);
    for (const PortInfo& p : d.ports) {
      absl::StrAppend(&out, "\n[", kPortSection, " ", Token(d.name), " ", p.port_num, "]\n");
      WriteFields(PortFields(), p, &out);
    }
  }
  for (const NetdevInfo& n : view.netdevs) {
    absl::StrAppend(&out, "\n[", kNetdevSection, " ", Token(n.name), "]\n");
    WriteFields(NetdevFields(), n, &out);
  }
  if (view.window) {
    absl::StrAppend(&out, "\n[", kWindowSection, "]\n");
    WriteFields(WindowFields(), *view.window, &out);
  }
  // Rulesets last: long, and line by line.
  for (const auto& [name, text] : view.host.rulesets) {
    absl::StrAppend(&out, "\n[", kRulesetSection, " ", name, "]\n");
    RulesetText ruleset;
    ruleset.text = text;
    WriteFields(RulesetFields(), ruleset, &out);
  }
  return out;
}

}  // namespace rdmacheck
