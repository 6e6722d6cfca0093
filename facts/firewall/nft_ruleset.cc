#include "facts/firewall/nft_ruleset.h"

#include <set>
#include <string>
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
#include "facts/firewall/internal.h"
#include "util/status_macros.h"

namespace rdmacheck::firewall {
namespace {

using internal::Cidr;
using internal::PortRange;
using internal::ProtoNumber;

// A token of a rule: a word, a quoted string (quotes removed, quoted=true)
// or a brace set ("{ a, b }" -> the items, braced=true).
struct Tok {
  std::string s;
  bool quoted = false;
  bool braced = false;
  std::vector<std::string> items;  // braced: the elements
};

// Removes a trailing "# handle N" style comment (nft -a), outside quotes.
absl::string_view StripComment(absl::string_view l) {
  bool q = false;
  for (size_t i = 0; i < l.size(); ++i) {
    if (l[i] == '"') q = !q;
    if (!q && l[i] == '#') return absl::StripTrailingAsciiWhitespace(l.substr(0, i));
  }
  return l;
}

// A rule line that also closes its chain ("... comment \"x\" }", as nft
// prints a rule whose comment holds a tab and the next rule): the rule
// without the '}', or nullopt when the line has no unmatched '}' at its end.
std::optional<absl::string_view> RuleBeforeClose(absl::string_view l) {
  if (l.size() < 2 || l.back() != '}') return std::nullopt;
  bool q = false;
  int depth = 0;
  for (size_t i = 0; i + 1 < l.size(); ++i) {
    if (l[i] == '"') q = !q;
    if (q) continue;
    depth += (l[i] == '{') - (l[i] == '}');
  }
  if (q || depth != 0) return std::nullopt;
  return absl::StripTrailingAsciiWhitespace(l.substr(0, l.size() - 1));
}

// The handle `nft -a` prints after a rule or chain ("... # handle 7"); 0 if none.
int HandleOf(absl::string_view raw) {
  size_t at = raw.rfind("# handle ");
  if (at == absl::string_view::npos || raw.find('"', at) != absl::string_view::npos) return 0;
  int h = 0;
  return absl::SimpleAtoi(raw.substr(at + 9), &h) && h > 0 ? h : 0;
}

// Element list text "a, b, 1-5" (no braces) -> items.
std::vector<std::string> Items(absl::string_view s) {
  std::vector<std::string> out;
  for (absl::string_view p : absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    absl::string_view t = absl::StripAsciiWhitespace(p);
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
    out.emplace_back(t);
  }
  return out;
}

// Returns an error text, empty on success.
std::string Tokenize(absl::string_view s, std::vector<Tok>* out) {
  size_t i = 0;
  while (i < s.size()) {
    if (absl::ascii_isspace(s[i])) { ++i; continue; }
    Tok t;
    if (s[i] == '"') {
      size_t j = s.find('"', i + 1);
      if (j == absl::string_view::npos) return "unterminated string";
      t.s = std::string(s.substr(i + 1, j - i - 1));
      t.quoted = true;
      i = j + 1;
    } else if (s[i] == '{') {
      size_t j = i + 1;
      bool q = false;
      while (j < s.size() && (q || s[j] != '}')) {
        if (s[j] == '"') q = !q;
        if (!q && s[j] == '{') return "nested braces";
        ++j;
      }
      if (j >= s.size()) return "unclosed '{'";
      t.s = std::string(s.substr(i, j - i + 1));
      t.braced = true;
      t.items = Items(s.substr(i + 1, j - i - 1));
      i = j + 1;
    } else {
      size_t j = i;
      while (j < s.size() && !absl::ascii_isspace(s[j]) && s[j] != '"' && s[j] != '{') ++j;
      t.s = std::string(s.substr(i, j - i));
      i = j;
    }
    out->push_back(std::move(t));
  }
  return "";
}

bool IsVerdict(absl::string_view w) {
  return w == "accept" || w == "drop" || w == "reject" || w == "jump" || w == "goto" ||
         w == "return" || w == "continue" || w == "queue";
}
bool IsStatementWord(absl::string_view w) {
  return w == "counter" || w == "log" || w == "comment";
}

// Priority names of nft (doc: nft(8), "CHAINS"): for the inet/ip/ip6 families.
std::optional<int> PriorityName(absl::string_view w) {
  static const std::pair<const char*, int> kNames[] = {
      {"raw", -300}, {"mangle", -150}, {"dstnat", -100}, {"filter", 0}, {"security", 50},
      {"srcnat", 100}};
  for (const auto& [n, v] : kNames)
    if (w == n) return v;
  int v = 0;
  if (absl::SimpleAtoi(w, &v)) return v;
  return std::nullopt;
}

class Reader {
 public:
  explicit Reader(absl::string_view file) { rs_.file = std::string(file); rs_.source = "nft"; }

  absl::StatusOr<Ruleset> Run(absl::string_view text) {
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
    // A paste cut mid-line ends without a newline: its last line may be a
    // rule cut in half ("udp dport 47"), which is not read as a rule.
    const bool cut_mid_line = !text.empty() && text.back() != '\n';
    bool managed_next = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      line_ = static_cast<int>(i) + 1;
      absl::string_view raw = absl::StripAsciiWhitespace(lines[i]);
      if (raw.empty()) continue;
      last_line_ = line_;
      if (raw.front() == '#') {
        if (absl::StrContains(raw, "is managed by iptables-nft")) managed_next = true;
        continue;
      }
      absl::string_view l = StripComment(raw);
      if (l.empty()) continue;
      handle_ = HandleOf(raw);
      if (in_elements_) {
        RDMACHECK_RETURN_IF_ERROR(MoreElements(l));
        continue;
      }
      switch (level_) {
        case Level::kTop: {
          if (!absl::StartsWith(l, "table ") || !absl::EndsWith(l, "{"))
            return Err(absl::StrCat("expected `table FAMILY NAME {`, got `", l, "`"));
          std::vector<std::string> w =
              absl::StrSplit(absl::StripAsciiWhitespace(l.substr(6, l.size() - 7)), ' ',
                             absl::SkipEmpty());
          Table t;
          t.line = line_;
          if (w.size() == 1) {
            t.family = "ip";
            t.name = w[0];
          } else if (w.size() == 2) {
            t.family = w[0];
            t.name = w[1];
          } else {
            return Err(absl::StrCat("expected `table FAMILY NAME {`, got `", l, "`"));
          }
          static const std::set<std::string> kFamilies = {"ip", "ip6", "inet", "arp", "bridge",
                                                          "netdev"};
          if (!kFamilies.count(t.family))
            return Err(absl::StrCat("unknown table family `", t.family, "`"));
          t.iptables_managed = managed_next;
          managed_next = false;
          rs_.tables.push_back(std::move(t));
          level_ = Level::kTable;
          break;
        }
        case Level::kTable:
          RDMACHECK_RETURN_IF_ERROR(TableLine(l));
          break;
        case Level::kChain:
          if (cut_mid_line && i + 1 == lines.size() && l != "}") {
            partial_last_ = std::string(l);
            break;
          }
          RDMACHECK_RETURN_IF_ERROR(ChainLine(l));
          break;
        case Level::kSet:
          RDMACHECK_RETURN_IF_ERROR(SetLine(l));
          break;
        case Level::kSkipped:
          for (char c : l) skip_depth_ += (c == '{') - (c == '}');
          if (skip_depth_ == 0) level_ = Level::kTable;
          break;
      }
    }
    line_ = last_line_;
    const bool cut = level_ != Level::kTop || in_elements_;
    if (cut) EndCut();
    for (Table& t : rs_.tables) RDMACHECK_RETURN_IF_ERROR(Resolve(&t, cut && &t == &rs_.tables.back()));
    return std::move(rs_);
  }

 private:
  enum class Level { kTop, kTable, kChain, kSet, kSkipped };

  absl::Status Err(absl::string_view what) const { return ErrAt(line_, what); }
  absl::Status ErrAt(int line, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(rs_.file, ":", line, ": ", what));
  }

  Table& table() { return rs_.tables.back(); }

  absl::Status TableLine(absl::string_view l) {
    if (l == "}") {
      level_ = Level::kTop;
      return absl::OkStatus();
    }
    std::vector<std::string> w = absl::StrSplit(l, ' ', absl::SkipEmpty());
    if (w[0] == "chain") {
      if (w.size() != 3 || w[2] != "{") return Err(absl::StrCat("expected `chain NAME {`, got `", l, "`"));
      if (table().FindChain(w[1]) != nullptr) return Err(absl::StrCat("chain ", w[1], " defined twice"));
      Chain c;
      c.name = w[1];
      c.line = line_;
      c.handle = handle_;
      table().chains.push_back(std::move(c));
      cur_ = table().chains.size() - 1;
      open_chains_ = {cur_};
      level_ = Level::kChain;
      return absl::OkStatus();
    }
    if (w[0] == "set") {
      if (w.size() != 3 || w[2] != "{") return Err(absl::StrCat("expected `set NAME {`, got `", l, "`"));
      Set s;
      s.name = w[1];
      set_ = w[1];
      table().sets[w[1]] = std::move(s);
      level_ = Level::kSet;
      return absl::OkStatus();
    }
    if (w[0] == "flags" || w[0] == "comment") {
      if (absl::StrContains(l, "dormant"))
        rs_.notes.push_back(absl::StrCat("table ", table().family, " ", table().name,
                                         " is dormant (line ", line_, ")"));
      return absl::OkStatus();
    }
    // Stateful objects, maps and flowtables: no bearing on the verdicts the
    // evaluator walks unless a rule uses them, and such a rule is then not
    // understood.
    static const std::set<std::string> kBlocks = {"map", "flowtable", "counter", "quota", "ct",
                                                  "limit", "secmark", "synproxy"};
    if (kBlocks.count(w[0]) && absl::EndsWith(l, "{")) {
      rs_.notes.push_back(absl::StrCat("skipped ", l.substr(0, l.size() - 1), "block at line ", line_));
      skip_depth_ = 1;
      level_ = Level::kSkipped;
      return absl::OkStatus();
    }
    return Err(absl::StrCat("expected `chain NAME {`, `set NAME {` or `}` in table ",
                            table().name, ", got `", l, "`"));
  }

  absl::Status SetLine(absl::string_view l) {
    if (l == "}") {
      level_ = Level::kTable;
      return absl::OkStatus();
    }
    if (absl::StartsWith(l, "elements")) {
      absl::string_view rest = absl::StripAsciiWhitespace(l.substr(8));
      if (!absl::ConsumePrefix(&rest, "=")) return Err("expected `elements = { ... }`");
      rest = absl::StripLeadingAsciiWhitespace(rest);
      if (!absl::ConsumePrefix(&rest, "{")) return Err("expected `elements = { ... }`");
      in_elements_ = true;
      elements_.clear();
      return MoreElements(rest);
    }
    // type, typeof, flags, timeout, size, policy, auto-merge, comment, counter.
    return absl::OkStatus();
  }

  absl::Status MoreElements(absl::string_view l) {
    size_t close = l.find('}');
    absl::StrAppend(&elements_, " ", l.substr(0, close));
    if (close == absl::string_view::npos) return absl::OkStatus();
    in_elements_ = false;
    Set& s = table().sets[set_];
    for (const std::string& e : Items(elements_)) {
      int f = 0;
      if (auto r = PortRange(e)) {
        s.ports.push_back(*r);
        s.elements.push_back(e);
      } else if (auto c = Cidr(e, &f)) {
        s.elements.push_back(*c);
      } else if (absl::StrContains(e, " ")) {
        s.understood = false;  // concatenations, maps, timeouts
        s.elements.push_back(e);
      } else {
        s.elements.push_back(e);  // names, protocols, ct states
      }
    }
    return absl::OkStatus();
  }

  absl::Status ChainLine(absl::string_view l) {
    if (l == "}") return CloseChain();
    if (std::optional<absl::string_view> rule = RuleBeforeClose(l)) {
      RDMACHECK_RETURN_IF_ERROR(ChainLine(*rule));
      return CloseChain();
    }
    // An anonymous chain ("tcp flags syn jump {" ... "}"): a chain of its
    // own, named after its parent and line ("PREROUTING_RAW/anonymous-53"),
    // that the rule jumps (or goes) to.
    std::vector<absl::string_view> w = absl::StrSplit(l, ' ', absl::SkipEmpty());
    if (w.size() >= 2 && w.back() == "{" && (w[w.size() - 2] == "jump" || w[w.size() - 2] == "goto")) {
      Chain anon;
      anon.name = absl::StrCat(table().chains[cur_].name, "/anonymous-", line_);
      anon.line = line_;
      const std::string rule = absl::StrCat(absl::StripTrailingAsciiWhitespace(l.substr(0, l.size() - 1)), " ",
                                            anon.name);
      const size_t before = table().chains[cur_].rules.size();
      RDMACHECK_RETURN_IF_ERROR(ChainLine(rule));
      // "devices jump {", "policy jump {": a line that is not a rule adds
      // none, and no rule jumps to the block.
      if (table().chains[cur_].rules.size() == before)
        return Err(absl::StrCat("`", l, "` opens an anonymous chain but is not a rule"));
      table().chains[cur_].rules.back().text = std::string(l);
      table().chains.push_back(std::move(anon));
      cur_ = table().chains.size() - 1;
      open_chains_.push_back(cur_);
      return absl::OkStatus();
    }
    Chain& c = table().chains[cur_];
    if (absl::StartsWith(l, "type ")) return HookLine(l, &c);
    if (absl::StartsWith(l, "policy ")) return PolicyPart(l, &c);
    if (absl::StartsWith(l, "comment ") && c.rules.empty()) return absl::OkStatus();
    if (absl::StartsWith(l, "devices ")) return absl::OkStatus();
    Rule r;
    r.line = line_;
    r.handle = handle_;
    // vmap keys share their rule's position.
    r.position = c.rules.empty() ? 1 : c.rules.back().position + 1;
    r.text = std::string(l);
    vmap_.clear();
    RDMACHECK_RETURN_IF_ERROR(ParseRule(l, &r));
    if (vmap_.empty()) {
      c.rules.push_back(std::move(r));
      return absl::OkStatus();
    }
    for (const auto& [key, verdict] : vmap_) {
      Rule k = r;
      Match m = vmap_match_;
      if (!AddValue(&m, key)) {
        k.not_understood.push_back(absl::StrCat(m.text, " key `", key, "`"));
      } else {
        k.matches.push_back(m);
      }
      std::vector<std::string> v = absl::StrSplit(verdict, ' ', absl::SkipEmpty());
      if (v.size() == 1 && v[0] == "accept") k.action = Action::kAccept;
      else if (v.size() == 1 && v[0] == "drop") k.action = Action::kDrop;
      else if (v.size() == 1 && v[0] == "return") k.action = Action::kReturn;
      else if (v.size() == 1 && v[0] == "continue") k.action = Action::kContinue;
      else if (v.size() == 2 && (v[0] == "jump" || v[0] == "goto")) {
        k.action = v[0] == "jump" ? Action::kJump : Action::kGoto;
        k.target = v[1];
      } else {
        k.action = Action::kUnknown;
        k.not_understood.push_back(absl::StrCat("vmap verdict `", verdict, "`"));
      }
      c.rules.push_back(std::move(k));
    }
    return absl::OkStatus();
  }

  absl::Status CloseChain() {
    open_chains_.pop_back();
    if (open_chains_.empty()) {
      level_ = Level::kTable;
    } else {
      cur_ = open_chains_.back();
    }
    return absl::OkStatus();
  }

  // "type filter hook input priority filter + 10; policy drop;"
  absl::Status HookLine(absl::string_view l, Chain* c) {
    std::vector<absl::string_view> parts = absl::StrSplit(l, ';', absl::SkipWhitespace());
    if (parts.empty()) return Err("empty chain type line");
    std::vector<std::string> w = absl::StrSplit(parts[0], ' ', absl::SkipEmpty());
    // type T hook H [device D] priority P [+|- N]
    if (w.size() < 6 || w[0] != "type" || w[2] != "hook")
      return Err(absl::StrCat("expected `type TYPE hook HOOK priority P;`, got `", l, "`"));
    c->base = true;
    c->type = w[1];
    c->hook = w[3];
    size_t i = 4;
    if (w[i] == "device") i += 2;
    if (i >= w.size() || w[i] != "priority" || i + 1 >= w.size())
      return Err(absl::StrCat("chain ", c->name, ": missing `priority` in `", l, "`"));
    std::optional<int> p = PriorityName(w[i + 1]);
    if (!p) return Err(absl::StrCat("chain ", c->name, ": bad priority `", w[i + 1], "`"));
    int prio = *p;
    if (i + 2 < w.size()) {
      // "filter + 10", "mangle - 5"
      int n = 0;
      if (i + 4 != w.size() || (w[i + 2] != "+" && w[i + 2] != "-") ||
          !absl::SimpleAtoi(w[i + 3], &n))
        return Err(absl::StrCat("chain ", c->name, ": bad priority in `", l, "`"));
      prio += w[i + 2] == "+" ? n : -n;
    }
    c->priority = prio;
    c->policy = "accept";  // nft's default for base chains
    for (size_t k = 1; k < parts.size(); ++k) RDMACHECK_RETURN_IF_ERROR(PolicyPart(parts[k], c));
    return absl::OkStatus();
  }

  absl::Status PolicyPart(absl::string_view part, Chain* c) {
    part = absl::StripAsciiWhitespace(part);
    absl::ConsumeSuffix(&part, ";");
    std::vector<std::string> w = absl::StrSplit(part, ' ', absl::SkipEmpty());
    if (w.size() == 2 && w[0] == "policy" && (w[1] == "accept" || w[1] == "drop")) {
      c->policy = w[1];
      return absl::OkStatus();
    }
    if (!w.empty() && w[0] == "comment") return absl::OkStatus();
    return Err(absl::StrCat("chain ", c->name, ": expected `policy accept;` or `policy drop;`, got `",
                            part, "`"));
  }

  // Values of a match: one word, a quoted string, a {set}, an @set, or a
  // comma list (old nft: "established,related").
  static std::vector<std::string> Values(const Tok& t) {
    if (t.braced) return t.items;
    if (!t.quoted && absl::StrContains(t.s, ",")) return Items(t.s);
    return {t.s};
  }

  absl::Status ParseRule(absl::string_view l, Rule* r) {
    std::vector<Tok> t;
    std::string e = Tokenize(l, &t);
    if (!e.empty()) return Err(e);
    size_t i = 0;
    auto word = [&](size_t k) -> std::string { return k < t.size() && !t[k].quoted && !t[k].braced ? t[k].s : ""; };
    auto unknown_until_statement = [&]() {
      std::vector<std::string> part;
      while (i < t.size() && !(IsVerdict(word(i)) || IsStatementWord(word(i))))
        part.push_back(t[i++].s);
      r->not_understood.push_back(absl::StrJoin(part, " "));
    };
    while (i < t.size()) {
      std::string w = word(i);
      if (w.empty()) {
        unknown_until_statement();
        continue;
      }
      if (r->action != Action::kNone) {
        // Anything after the verdict: nft never prints that.
        std::vector<std::string> rest;
        for (; i < t.size(); ++i) rest.push_back(t[i].s);
        if (rest.size() >= 2 && rest[0] == "comment") break;
        r->not_understood.push_back(absl::StrJoin(rest, " "));
        break;
      }
      if (w == "accept") { r->action = Action::kAccept; ++i; continue; }
      if (w == "drop") { r->action = Action::kDrop; ++i; continue; }
      if (w == "return") { r->action = Action::kReturn; ++i; continue; }
      if (w == "continue") { r->action = Action::kContinue; ++i; continue; }
      if (w == "queue") {
        // queue [flags bypass,fanout] [num|to N[-M]] [bypass] [fanout]
        r->action = Action::kQueue;
        ++i;
        while (word(i) == "num" || word(i) == "to" || word(i) == "flags" || word(i) == "bypass" ||
               word(i) == "fanout")
          i += (word(i) == "bypass" || word(i) == "fanout") ? 1 : 2;
        continue;
      }
      if (w == "reject") {
        r->action = Action::kReject;
        ++i;
        if (word(i) == "with") {
          i += 2;  // icmpx admin-prohibited / tcp reset / icmp type X / icmp X
          if (word(i - 1) == "tcp" && word(i) == "reset") ++i;
          if (word(i - 1) == "icmp" || word(i - 1) == "icmpv6" || word(i - 1) == "icmpx") {
            if (word(i) == "type" || word(i) == "code") ++i;
            if (i < t.size() && word(i) != "comment") ++i;
          }
        }
        continue;
      }
      if (w == "jump" || w == "goto") {
        if (i + 1 >= t.size() || word(i + 1).empty())
          return Err(absl::StrCat("`", w, "` without a chain name"));
        r->action = w == "jump" ? Action::kJump : Action::kGoto;
        r->target = t[i + 1].s;
        i += 2;
        continue;
      }
      if (w == "counter") {
        ++i;
        if (word(i) == "packets") i += 4;
        else if (word(i) == "name") i += 2;
        continue;
      }
      if (w == "log") {
        ++i;
        while (word(i) == "prefix" || word(i) == "level" || word(i) == "group" ||
               word(i) == "snaplen" || word(i) == "queue-threshold" || word(i) == "flags")
          i += 2;
        continue;
      }
      if (w == "comment") {
        i += 2;
        continue;
      }
      if ((w == "meta" && word(i + 1) == "mark" && word(i + 2) == "set") ||
          (w == "mark" && word(i + 1) == "set")) {
        // `meta mark set 0x10`, `meta mark set meta mark | 0x4000` (iptables'
        // MARK prints as `meta mark set mark or 0x4000`), `meta mark set ct mark`.
        i += w == "meta" ? 3 : 2;
        std::vector<std::string> e;
        while (i < t.size() && !(IsVerdict(word(i)) || IsStatementWord(word(i)))) e.push_back(t[i++].s);
        std::string text = absl::StrCat("meta mark set ", absl::StrJoin(e, " "));
        if (!e.empty() && e[0] == "meta") e.erase(e.begin());
        std::optional<uint32_t> n = e.empty() ? std::nullopt : internal::MarkNumber(e.back());
        static const std::set<std::string> kOps = {"|", "or", "&", "and", "^", "xor"};
        if (n && e.size() == 1) r->mark_set = internal::MarkOp("", *n, text);
        else if (n && e.size() == 3 && e[0] == "mark" && kOps.count(e[1])) r->mark_set = internal::MarkOp(e[1], *n, text);
        else r->mark_set = MarkSet{0xffffffff, 0, false, text};
        continue;
      }
      // Selectors.
      Match m;
      size_t start = i;
      bool ok = true;
      std::optional<std::string> implied_proto;
      if (w == "iifname" || w == "iif") {
        m.field = Match::Field::kIifname; ++i;
      } else if (w == "oifname" || w == "oif") {
        m.field = Match::Field::kOifname; ++i;
      } else if (w == "meta") {
        std::string k = word(i + 1);
        i += 2;
        if (k == "l4proto") m.field = Match::Field::kL4proto;
        else if (k == "nfproto") m.field = Match::Field::kNfproto;
        else if (k == "iifname" || k == "iif") m.field = Match::Field::kIifname;
        else if (k == "oifname" || k == "oif") m.field = Match::Field::kOifname;
        else if (k == "mark") m.field = Match::Field::kMark;
        else ok = false;
      } else if (w == "mark") {  // nft before 0.9 printed the bare key
        m.field = Match::Field::kMark;
        ++i;
      } else if (w == "ip" || w == "ip6") {
        std::string k = word(i + 1);
        i += 2;
        m.family = w == "ip" ? 4 : 6;
        if (k == "saddr") m.field = Match::Field::kSaddr;
        else if (k == "daddr") m.field = Match::Field::kDaddr;
        else if ((w == "ip" && k == "protocol") || (w == "ip6" && k == "nexthdr")) {
          m.field = Match::Field::kL4proto;
          // The protocol match also says the family.
          Match fam;
          fam.field = Match::Field::kNfproto;
          fam.values = {w == "ip" ? "ipv4" : "ipv6"};
          fam.text = w;
          r->matches.push_back(fam);
        } else ok = false;
      } else if (w == "udp" || w == "tcp" || w == "th" || w == "sctp" || w == "dccp" ||
                 w == "udplite") {
        std::string k = word(i + 1);
        i += 2;
        if (w != "th") implied_proto = ProtoNumber(w);
        if (k == "dport") m.field = Match::Field::kDport;
        else if (k == "sport") m.field = Match::Field::kSport;
        else ok = false;
      } else if (w == "icmp" || w == "icmpv6") {
        // Only an ICMP packet can match: enough to rule out UDP.
        implied_proto = ProtoNumber(w);
        i += 2;
        ok = false;
      } else if (w == "ct") {
        std::string k = word(i + 1);
        i += 2;
        if (k == "state") m.field = Match::Field::kCtState;
        else if (k == "status") m.field = Match::Field::kCtStatus;
        else ok = false;
      } else {
        unknown_until_statement();
        continue;
      }
      if (implied_proto) {
        Match p;
        p.field = Match::Field::kL4proto;
        p.values = {*implied_proto};
        p.text = w;
        r->matches.push_back(p);
      }
      if (!ok) {
        i = start;
        unknown_until_statement();
        continue;
      }
      if (m.field == Match::Field::kMark && (word(i) == "&" || word(i) == "and")) {
        // `meta mark & 0x00008000 == 0x00008000`
        std::optional<uint32_t> mask = internal::MarkNumber(word(i + 1));
        if (!mask) {
          i = start;
          unknown_until_statement();
          continue;
        }
        m.mark_mask = *mask;
        i += 2;
      }
      if (word(i) == "!=" || word(i) == "ne") {
        m.negate = true;
        ++i;
      } else if (word(i) == "==" || word(i) == "eq") {
        ++i;
      } else if (std::optional<std::pair<int, int>> range = internal::PortComparison(word(i), word(i + 1));
                 range && (m.field == Match::Field::kDport || m.field == Match::Field::kSport)) {
        // `udp dport < 1024`: the ports as a range.
        m.text = absl::StrCat(w, " ", t[start + 1].s, " ", word(i), " ", word(i + 1));
        m.ports.push_back(*range);
        r->matches.push_back(std::move(m));
        i += 2;
        continue;
      }
      if (i >= t.size()) return Err(absl::StrCat("`", w, "` without a value"));
      if (word(i) == "vmap" && i + 1 < t.size() && t[i + 1].braced && vmap_.empty()) {
        // `ct state vmap { invalid : drop, established : accept }`: ChainLine
        // expands it into one rule per key (only one key can match).
        for (const std::string& item : t[i + 1].items) {
          std::vector<std::string> kv = absl::StrSplit(item, " : ");
          if (kv.size() != 2) return Err(absl::StrCat("vmap element `", item, "` is not `KEY : VERDICT`"));
          vmap_.emplace_back(absl::StripAsciiWhitespace(kv[0]), absl::StripAsciiWhitespace(kv[1]));
        }
        m.text = absl::StrCat(w, " ", t[start + 1].s, " vmap");
        vmap_match_ = m;
        i += 2;
        continue;
      }
      if (word(i) == "vmap" || word(i) == "map") {
        i = start;
        unknown_until_statement();
        r->action = Action::kUnknown;
        continue;
      }
      const Tok& v = t[i++];
      std::vector<std::string> parts;
      for (size_t k = start; k < i; ++k) parts.push_back(t[k].quoted ? absl::StrCat("\"", t[k].s, "\"") : t[k].s);
      m.text = absl::StrJoin(parts, " ");
      if (!v.quoted && !v.braced && absl::StartsWith(v.s, "@")) {
        m.set_ref = v.s.substr(1);
      } else {
        std::string bad;
        for (const std::string& s : Values(v)) {
          if (!AddValue(&m, s)) bad = s;
        }
        if (!bad.empty()) {
          r->not_understood.push_back(absl::StrCat(m.text, " (value `", bad, "`)"));
          continue;
        }
      }
      r->matches.push_back(std::move(m));
    }
    return absl::OkStatus();
  }

  static bool AddValue(Match* m, const std::string& s) { return internal::AddMatchValue(m, s); }

  // The listing ends inside a table (a paste or a capture cut short): what
  // was read stands. The chains still open are marked cut (rules after the
  // last one read are unknown), a set still open is not understood, and
  // Ruleset::incomplete says where it stops.
  void EndCut() {
    Table& t = table();
    std::string where = absl::StrCat("table ", t.family, " ", t.name);
    if (level_ == Level::kChain) {
      for (size_t i : open_chains_) t.chains[i].cut = true;
      absl::StrAppend(&where, " chain ", t.chains[cur_].name);
    } else if (level_ == Level::kSet || in_elements_) {
      t.sets[set_].understood = false;
      absl::StrAppend(&where, " set ", set_);
    }
    rs_.incomplete = absl::StrCat(rs_.file, ":", line_, ": the listing ends inside ", where,
                                  " (no closing '}'): what follows is unknown");
    if (!partial_last_.empty())
      absl::StrAppend(&rs_.incomplete, "; its last line, cut mid-line, was not read: `", partial_last_, "`");
  }

  // `cut`: the table the listing ends in, where a jump or a set that would
  // have been defined after the cut is "may match" rather than an error.
  absl::Status Resolve(Table* t, bool cut) {
    return internal::ResolveReferences(
        t, [this](const Rule& r, absl::string_view what) { return ErrAt(r.line, what); }, cut);
  }

  Ruleset rs_;
  int line_ = 0;
  int handle_ = 0;  // of the line being read (nft -a)
  int last_line_ = 0;
  Level level_ = Level::kTop;
  int skip_depth_ = 0;
  std::string set_;
  bool in_elements_ = false;
  std::vector<std::pair<std::string, std::string>> vmap_;  // of the rule being read
  Match vmap_match_;
  std::string elements_;
  // The chain rules go to, and the chains open around it (an anonymous
  // chain inside its parent), as indices into table().chains.
  size_t cur_ = 0;
  std::vector<size_t> open_chains_;
  std::string partial_last_;  // a last line cut mid-line, not read
};

}  // namespace

absl::StatusOr<Ruleset> ParseNftRuleset(absl::string_view text, absl::string_view file) {
  return Reader(file).Run(text);
}

}  // namespace rdmacheck::firewall
