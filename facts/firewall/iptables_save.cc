#include "facts/firewall/iptables_save.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
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

// Built-in chains: (table, chain) -> hook and the table's priority
// (include/uapi/linux/netfilter_ipv4.h NF_IP_PRI_*).
struct BuiltIn {
  const char* table;
  const char* chain;
  const char* hook;
  int priority;
};
constexpr BuiltIn kBuiltIns[] = {
    {"raw", "PREROUTING", "prerouting", -300},     {"raw", "OUTPUT", "output", -300},
    {"mangle", "PREROUTING", "prerouting", -150},  {"mangle", "INPUT", "input", -150},
    {"mangle", "FORWARD", "forward", -150},        {"mangle", "OUTPUT", "output", -150},
    {"mangle", "POSTROUTING", "postrouting", -150}, {"nat", "PREROUTING", "prerouting", -100},
    {"nat", "INPUT", "input", 100},                {"nat", "OUTPUT", "output", -100},
    {"nat", "POSTROUTING", "postrouting", 100},    {"filter", "INPUT", "input", 0},
    {"filter", "FORWARD", "forward", 0},           {"filter", "OUTPUT", "output", 0},
    {"security", "INPUT", "input", 50},            {"security", "FORWARD", "forward", 50},
    {"security", "OUTPUT", "output", 50},
};

const BuiltIn* FindBuiltIn(absl::string_view table, absl::string_view chain) {
  for (const BuiltIn& b : kBuiltIns)
    if (table == b.table && chain == b.chain) return &b;
  return nullptr;
}

// Targets that do not end the traversal (xtables extensions that only mark,
// log or set state).
bool NonTerminalTarget(absl::string_view t) {
  static const std::set<std::string> k = {"LOG", "NFLOG", "ULOG", "MARK", "CONNMARK", "TRACE",
                                          "CT", "NOTRACK", "CLASSIFY", "DSCP", "TOS", "TCPMSS",
                                          "AUDIT", "CONNSECMARK", "SECMARK", "TTL", "HL"};
  return k.count(std::string(t)) > 0;
}

// Shell-like split as iptables-save quotes: "..." with \" and \\ inside.
std::string Split(absl::string_view s, std::vector<std::string>* out) {
  size_t i = 0;
  while (i < s.size()) {
    if (absl::ascii_isspace(s[i])) { ++i; continue; }
    std::string tok;
    if (s[i] == '"') {
      size_t j = i + 1;
      for (; j < s.size() && s[j] != '"'; ++j) {
        if (s[j] == '\\' && j + 1 < s.size()) ++j;
        tok.push_back(s[j]);
      }
      if (j >= s.size()) return "unterminated quoted string";
      i = j + 1;
    } else {
      size_t j = i;
      while (j < s.size() && !absl::ascii_isspace(s[j])) ++j;
      tok = std::string(s.substr(i, j - i));
      i = j;
    }
    out->push_back(std::move(tok));
  }
  return "";
}

class Reader {
 public:
  Reader(absl::string_view file, int family) : family_(family) {
    rs_.file = std::string(file);
    rs_.source = family == 6 ? "ip6tables" : "iptables";
  }

  absl::StatusOr<Ruleset> Run(absl::string_view text) {
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
    // A paste cut mid-line ends without a newline: its last line may be a
    // rule cut in half, which is not read as a rule.
    const bool cut_mid_line = !text.empty() && text.back() != '\n';
    for (size_t i = 0; i < lines.size(); ++i) {
      line_ = static_cast<int>(i) + 1;
      absl::string_view l = absl::StripAsciiWhitespace(lines[i]);
      if (l.empty() || l.front() == '#') continue;
      if (cut_mid_line && i + 1 == lines.size() && in_table_ && l != "COMMIT") {
        partial_last_ = std::string(l);
        break;
      }
      last_line_ = line_;
      if (l.front() == '*') {
        if (in_table_) return Err(absl::StrCat("table ", l.substr(1), " starts before COMMIT of table ", table().name));
        if (l.size() == 1) return Err("`*` without a table name");
        Table t;
        t.family = family_ == 6 ? "ip6" : "ip";
        t.name = std::string(l.substr(1));
        t.line = line_;
        rs_.tables.push_back(std::move(t));
        in_table_ = true;
        last_rule_chain_.clear();
        continue;
      }
      if (!in_table_) return Err(absl::StrCat("`", l, "` outside a table (expected `*filter` first)"));
      if (l == "COMMIT") {
        RDMACHECK_RETURN_IF_ERROR(Resolve());
        in_table_ = false;
        continue;
      }
      if (l.front() == ':') {
        RDMACHECK_RETURN_IF_ERROR(ChainDecl(l));
        continue;
      }
      // "-c" counters precede the rule: "[12:3456] -A INPUT ...".
      if (l.front() == '[') {
        size_t close = l.find(']');
        if (close == absl::string_view::npos) return Err("unclosed `[` counter");
        l = absl::StripLeadingAsciiWhitespace(l.substr(close + 1));
      }
      if (absl::StartsWith(l, "-A ")) {
        RDMACHECK_RETURN_IF_ERROR(RuleLine(l));
        continue;
      }
      return Err(absl::StrCat("expected `:CHAIN POLICY`, `-A CHAIN ...` or `COMMIT`, got `", l, "`"));
    }
    if (in_table_) {
      line_ = last_line_;
      RDMACHECK_RETURN_IF_ERROR(EndCut());
    }
    return std::move(rs_);
  }

 private:
  absl::Status Err(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(rs_.file, ":", line_, ": ", what));
  }
  Table& table() { return rs_.tables.back(); }

  Chain* FindChain(absl::string_view name) {
    for (Chain& c : table().chains)
      if (c.name == name) return &c;
    return nullptr;
  }

  // ":INPUT DROP [0:0]", ":ufw-user-input - [0:0]"
  absl::Status ChainDecl(absl::string_view l) {
    std::vector<std::string> w = absl::StrSplit(l.substr(1), ' ', absl::SkipEmpty());
    if (w.size() < 2) return Err(absl::StrCat("expected `:CHAIN POLICY [p:b]`, got `", l, "`"));
    if (FindChain(w[0]) != nullptr) return Err(absl::StrCat("chain ", w[0], " declared twice"));
    Chain c;
    c.name = w[0];
    c.line = line_;
    const BuiltIn* b = FindBuiltIn(table().name, w[0]);
    if (b != nullptr) {
      if (w[1] != "ACCEPT" && w[1] != "DROP")
        return Err(absl::StrCat("chain ", w[0], ": policy must be ACCEPT or DROP, got `", w[1], "`"));
      c.base = true;
      c.type = table().name == "nat" ? "nat" : "filter";
      c.hook = b->hook;
      c.priority = b->priority;
      c.policy = absl::AsciiStrToLower(w[1]);
    } else if (w[1] != "-") {
      return Err(absl::StrCat("user chain ", w[0], " takes policy `-`, got `", w[1], "`"));
    }
    table().chains.push_back(std::move(c));
    return absl::OkStatus();
  }

  absl::Status RuleLine(absl::string_view l) {
    std::vector<std::string> t;
    std::string e = Split(l, &t);
    if (!e.empty()) return Err(e);
    if (t.size() < 2) return Err("`-A` without a chain");
    Chain* c = FindChain(t[1]);
    if (c == nullptr)
      return Err(absl::StrCat("-A to chain ", t[1], " which table ", table().name,
                              " does not declare (`:", t[1], " -` line missing)"));
    Rule r;
    r.line = line_;
    r.position = static_cast<int>(c->rules.size()) + 1;
    r.text = std::string(l);
    size_t i = 2;
    std::string target;  // of -j, whose options follow it
    auto value = [&](const std::string& opt) -> absl::StatusOr<std::string> {
      if (i + 1 >= t.size()) return Err(absl::StrCat(opt, " without its value"));
      i += 2;
      return t[i - 1];
    };
    while (i < t.size()) {
      bool neg = false;
      if (t[i] == "!") {
        neg = true;
        ++i;
        if (i >= t.size()) return Err("`!` at the end of the rule");
      }
      const std::string opt = t[i];
      Match m;
      m.negate = neg;
      if (opt == "-i" || opt == "--in-interface" || opt == "-o" || opt == "--out-interface") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        m.field = opt[1] == 'i' || opt == "--in-interface" ? Match::Field::kIifname : Match::Field::kOifname;
        if (absl::EndsWith(v, "+")) v.back() = '*';
        m.values = {v};
      } else if (opt == "-p" || opt == "--protocol") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        if (v == "all" || v == "0") continue;  // any protocol
        std::optional<std::string> p = ProtoNumber(v);
        if (!p) {
          r.not_understood.push_back(absl::StrCat(opt, " ", v));
          continue;
        }
        m.field = Match::Field::kL4proto;
        m.values = {*p};
      } else if (opt == "-s" || opt == "--source" || opt == "-d" || opt == "--destination") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        m.field = opt == "-s" || opt == "--source" ? Match::Field::kSaddr : Match::Field::kDaddr;
        m.family = family_;
        bool bad = false;
        for (absl::string_view a : absl::StrSplit(v, ',')) {
          int f = 0;
          std::optional<std::string> c = Cidr(a, &f);
          if (!c || f != family_) bad = true; else m.values.push_back(*c);
        }
        if (bad) return Err(absl::StrCat(opt, ": `", v, "` is not an IPv", family_, " address"));
      } else if (opt == "-m" || opt == "--match") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        static const std::set<std::string> kKnown = {"udp", "tcp", "multiport", "conntrack",
                                                     "state", "comment", "addrtype", "limit",
                                                     "icmp", "icmp6", "sctp", "mark"};
        if (!kKnown.count(v)) {
          // Unknown module: its options run to the next top-level option.
          std::vector<std::string> part = {opt, v};
          while (i < t.size() && !IsTopLevel(t, i)) part.push_back(t[i++]);
          r.not_understood.push_back(absl::StrJoin(part, " "));
        }
        continue;
      } else if (opt == "--dport" || opt == "--destination-port" || opt == "--sport" ||
                 opt == "--source-port" || opt == "--dports" || opt == "--sports" ||
                 opt == "--ports" || opt == "--destination-ports" || opt == "--source-ports") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        bool src = absl::StrContains(opt, "sport") || absl::StrContains(opt, "source");
        m.field = opt == "--ports" ? Match::Field::kPorts
                  : src            ? Match::Field::kSport
                                   : Match::Field::kDport;
        for (absl::string_view p : absl::StrSplit(v, ',')) {
          std::optional<std::pair<int, int>> range = PortRange(p);
          if (!range) return Err(absl::StrCat(opt, ": `", v, "` is not a port list"));
          m.ports.push_back(*range);
        }
      } else if (opt == "--ctstate" || opt == "--state") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        m.field = Match::Field::kCtState;
        for (absl::string_view s : absl::StrSplit(v, ','))
          m.values.push_back(absl::AsciiStrToLower(s));
      } else if (opt == "--mark") {  // -m mark (connmark's options are kept whole above)
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        std::optional<std::pair<uint32_t, uint32_t>> vm = internal::MarkAndMask(v);
        if (!vm) return Err(absl::StrCat("--mark: `", v, "` is not VALUE[/MASK]"));
        m.field = Match::Field::kMark;
        m.mark_mask = vm->second;
        m.values = {std::to_string(vm->first)};
      } else if (target == "MARK" && (opt == "--set-xmark" || opt == "--set-mark" || opt == "--or-mark" ||
                                      opt == "--and-mark" || opt == "--xor-mark")) {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        std::optional<std::pair<uint32_t, uint32_t>> vm = internal::MarkAndMask(v);
        if (!vm) return Err(absl::StrCat(opt, ": `", v, "` is not VALUE[/MASK]"));
        // libxt_MARK's forms, each as the kernel's (mark & ~mask) ^ value.
        MarkSet ms;
        ms.text = absl::StrCat(opt, " ", v);
        if (opt == "--set-xmark") ms = {vm->second, vm->first, true, ms.text};
        else if (opt == "--set-mark") ms = {vm->second | vm->first, vm->first, true, ms.text};
        else if (opt == "--or-mark") ms = {vm->first, vm->first, true, ms.text};
        else if (opt == "--and-mark") ms = {~vm->first, 0, true, ms.text};
        else ms = {0, vm->first, true, ms.text};
        r.mark_set = ms;
        continue;
      } else if (target == "CONNMARK" && (opt == "--restore-mark" || opt == "--save-mark")) {
        // Only --restore-mark changes the packet's mark: from the
        // connection's, which the model does not follow.
        if (opt == "--restore-mark") r.mark_set = MarkSet{0xffffffff, 0, false, "CONNMARK --restore-mark"};
        ++i;
        continue;
      } else if (target == "CONNMARK" && (opt == "--nfmask" || opt == "--ctmask" || opt == "--mask" ||
                                          opt == "--set-xmark" || opt == "--set-mark" || opt == "--or-mark" ||
                                          opt == "--and-mark" || opt == "--xor-mark")) {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        if (opt == "--nfmask" && r.mark_set && !r.mark_set->known) {
          if (std::optional<uint32_t> n = internal::MarkNumber(v)) r.mark_set->mask = *n;
        }
        continue;  // the others set the connection's mark
      } else if (opt == "--dst-type") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        m.field = Match::Field::kDstType;
        m.values = {v};
      } else if (opt == "--comment" || opt == "--log-prefix" || opt == "--log-level" ||
                 opt == "--reject-with" || opt == "--icmp-type" || opt == "--icmpv6-type" ||
                 opt == "--nflog-prefix" || opt == "--nflog-group" || opt == "--limit-burst" ||
                 opt == "--queue-num" || opt == "--queue-balance") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        // --icmp-type comes with -p icmp, which already decides for UDP.
        (void)v;
        continue;
      } else if (opt == "--log-uid" || opt == "--log-tcp-sequence" || opt == "--log-tcp-options" ||
                 opt == "--log-ip-options" || opt == "--queue-bypass" || opt == "--queue-cpu-fanout") {
        ++i;
        continue;
      } else if (opt == "-j" || opt == "--jump" || opt == "-g" || opt == "--goto") {
        RDMACHECK_ASSIGN_OR_RETURN(std::string v, value(opt));
        bool go = opt == "-g" || opt == "--goto";
        target = v;
        if (v == "ACCEPT") r.action = Action::kAccept;
        else if (v == "DROP") r.action = Action::kDrop;
        else if (v == "REJECT") r.action = Action::kReject;
        else if (v == "RETURN") r.action = Action::kReturn;
        else if (NonTerminalTarget(v)) r.action = Action::kNone;
        else if (v == "NFQUEUE" || v == "QUEUE") r.action = Action::kQueue;
        else if (absl::AsciiStrToUpper(v) == v && FindChain(v) == nullptr) {
          r.action = Action::kUnknown;  // TPROXY, ...
          r.not_understood.push_back(absl::StrCat(opt, " ", v));
        } else {
          r.action = go ? Action::kGoto : Action::kJump;
          r.target = v;
        }
        continue;
      } else {
        // An option of a module we do not evaluate (--limit, --icmp-type of
        // an unknown form, ...): keep it, with its value if it has one.
        std::vector<std::string> part = {neg ? "! " + opt : opt};
        ++i;
        while (i < t.size() && !absl::StartsWith(t[i], "-") && t[i] != "!") part.push_back(t[i++]);
        r.not_understood.push_back(absl::StrJoin(part, " "));
        continue;
      }
      m.text = absl::StrCat(neg ? "! " : "", opt, " ", t[i - 1]);
      r.matches.push_back(std::move(m));
    }
    last_rule_chain_ = c->name;
    c->rules.push_back(std::move(r));
    return absl::OkStatus();
  }

  static bool IsTopLevel(const std::vector<std::string>& t, size_t i) {
    static const std::set<std::string> k = {"-m", "-j", "-g", "-i", "-o", "-p", "-s", "-d",
                                            "--match", "--jump", "--goto"};
    if (k.count(t[i])) return true;
    return t[i] == "!" && i + 1 < t.size() && k.count(t[i + 1]);
  }

  // The dump ends inside a table, without its COMMIT (a paste or capture cut
  // short): what was read stands. *-save prints each chain's rules together,
  // in the order the chains are declared, so the chain of the last rule read
  // and every chain declared after it may have rules the dump does not show
  // (Chain::cut); Ruleset::incomplete says where it stops.
  absl::Status EndCut() {
    std::vector<Chain>& chains = table().chains;
    size_t from = 0;
    for (size_t i = 0; i < chains.size(); ++i)
      if (chains[i].name == last_rule_chain_) from = i;
    std::vector<std::string> cut;
    for (size_t i = from; i < chains.size(); ++i) {
      chains[i].cut = true;
      cut.push_back(chains[i].name);
    }
    rs_.incomplete = absl::StrCat(rs_.file, ":", line_, ": table ", table().name,
                                  " ends without COMMIT (the dump is cut short)");
    if (!cut.empty()) absl::StrAppend(&rs_.incomplete, "; chains that may have more rules: ", absl::StrJoin(cut, ", "));
    if (!partial_last_.empty())
      absl::StrAppend(&rs_.incomplete, "; its last line, cut mid-line, was not read: `", partial_last_, "`");
    return Resolve();
  }

  // At COMMIT: every jump names a chain of the table.
  absl::Status Resolve() {
    for (const Chain& c : table().chains)
      for (const Rule& r : c.rules)
        if ((r.action == Action::kJump || r.action == Action::kGoto) && FindChain(r.target) == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              rs_.file, ":", r.line, ": ", r.action == Action::kJump ? "-j " : "-g ", r.target,
              ": no such chain in table ", table().name, " (not declared, not a known target)"));
        }
    return absl::OkStatus();
  }

  Ruleset rs_;
  int family_;
  int line_ = 0;
  int last_line_ = 0;
  bool in_table_ = false;
  std::string last_rule_chain_;  // the chain of the last -A read
  std::string partial_last_;     // a last line cut mid-line, not read
};

}  // namespace

absl::StatusOr<Ruleset> ParseIptablesSave(absl::string_view text, absl::string_view file,
                                          int family) {
  if (family != 4 && family != 6)
    return absl::InvalidArgumentError(absl::StrCat("ParseIptablesSave(", file, "): family must be 4 or 6, got ", family));
  return Reader(file, family).Run(text);
}

}  // namespace rdmacheck::firewall
