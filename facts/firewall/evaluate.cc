#include "facts/firewall/evaluate.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/firewall/internal.h"

namespace rdmacheck::firewall {

Packet RocePacket(const std::string& iif, const std::string& daddr) {
  Packet p;
  p.iif = iif;
  p.daddr = daddr;
  p.family = absl::StrContains(daddr, ":") ? 6 : 4;
  return p;
}

Packet RoceOutPacket(const std::string& oif, const std::string& saddr) {
  Packet p;
  p.dir = Direction::kOut;
  p.oif = oif;
  p.saddr = saddr;
  p.family = absl::StrContains(saddr, ":") ? 6 : 4;
  return p;
}

Packet RoceFwdPacket(const std::string& iif, const std::string& oif, int family) {
  Packet p;
  p.dir = Direction::kFwd;
  p.iif = iif;
  p.oif = oif;
  p.family = family;
  return p;
}

absl::string_view FateName(Fate f) {
  switch (f) {
    case Fate::kAccepted: return "accepted";
    case Fate::kDropped: return "dropped";
    case Fate::kRejected: return "rejected";
  }
  return "?";
}

std::string Place::Where() const {
  std::string t = absl::StrCat(source, " table ", family, " ", table, " chain ", chain);
  std::string at = line > 0 ? absl::StrCat(" (line ", line, ")")
                   : handle > 0 ? absl::StrCat(" (handle ", handle, ")")
                                : "";
  if (position == 0) return absl::StrCat(t, " ", text, at);
  return absl::StrCat(t, " rule ", position, at);
}

namespace {

bool NameMatches(const std::string& pattern, const std::string& name) {
  if (!pattern.empty() && pattern.back() == '*')
    return absl::StartsWith(name, pattern.substr(0, pattern.size() - 1));
  return pattern == name;
}

// A CIDR inside 127.0.0.0/8 or ::1/128.
bool IsLoopback(const std::string& cidr) {
  size_t slash = cidr.find('/');
  int prefix = 0;
  if (slash == std::string::npos || !absl::SimpleAtoi(cidr.substr(slash + 1), &prefix)) return false;
  std::string addr = cidr.substr(0, slash);
  if (absl::StrContains(addr, ":")) return prefix == 128 && internal::InCidr(addr, "::1/128");
  return prefix >= 8 && internal::InCidr(addr, "127.0.0.0/8");
}

Tri Negate(Tri t, bool neg) {
  if (!neg || t == Tri::kMaybe) return t;
  return t == Tri::kYes ? Tri::kNo : Tri::kYes;
}

// Whether [lo, hi] lies inside the union of ranges (Yes), outside all (No),
// or partly (Maybe).
Tri RangeIn(int lo, int hi, const std::vector<std::pair<int, int>>& ranges) {
  long covered = 0;
  for (const auto& [a, b] : ranges) {
    int l = std::max(a, lo), h = std::min(b, hi);
    if (l <= h) covered += h - l + 1;  // ranges of one match rarely overlap
  }
  if (covered == 0) return Tri::kNo;
  if (covered >= static_cast<long>(hi) - lo + 1) return Tri::kYes;
  return Tri::kMaybe;
}

}  // namespace

Tri Matches(const Match& m, const Packet& p) {
  Tri r = Tri::kNo;
  switch (m.field) {
    case Match::Field::kIifname:
    case Match::Field::kOifname: {
      // A packet has the interface of its direction only (iif arriving, oif
      // sent); for the other one only "" matches. A forwarded one has both.
      const bool in = m.field == Match::Field::kIifname;
      const bool own = p.dir == Direction::kFwd || in == (p.dir == Direction::kIn);
      const std::string& name = in ? p.iif : p.oif;
      for (const std::string& v : m.values)
        if (own ? NameMatches(v, name) : v.empty()) r = Tri::kYes;
      break;
    }
    case Match::Field::kL4proto:
      for (const std::string& v : m.values)
        if (v == std::to_string(p.l4proto)) r = Tri::kYes;
      break;
    case Match::Field::kDport:
      r = RangeIn(p.dport, p.dport, m.ports);
      break;
    case Match::Field::kSport:
      r = RangeIn(p.sport_lo, p.sport_hi, m.ports);
      break;
    case Match::Field::kPorts: {
      r = RangeIn(p.dport, p.dport, m.ports);
      if (r == Tri::kNo) r = RangeIn(p.sport_lo, p.sport_hi, m.ports);
      break;
    }
    case Match::Field::kSaddr:
    case Match::Field::kDaddr: {
      // An ip match in an inet table does not match an IPv6 packet.
      if (m.family != p.family) return m.negate ? Tri::kNo : Tri::kNo;
      const std::string& a = m.field == Match::Field::kSaddr ? p.saddr : p.daddr;
      if (a.empty()) {
        // The peer's address is unknown, but not loopback when the packet
        // is on another netdev than lo: the kernel routes 127.0.0.0/8 and ::1
        // only over lo, and drops them as martians arriving elsewhere.
        const std::string& dev = p.dir == Direction::kOut ? p.oif : p.iif;
        bool all = false, loopback = !m.values.empty() && dev != "lo";
        for (const std::string& v : m.values) {
          all = all || absl::EndsWith(v, "/0");
          loopback = loopback && IsLoopback(v);
        }
        r = all ? Tri::kYes : loopback ? Tri::kNo : Tri::kMaybe;
      } else {
        for (const std::string& v : m.values)
          if (internal::InCidr(a, v)) r = Tri::kYes;
      }
      break;
    }
    case Match::Field::kCtState:
      for (const std::string& v : m.values)
        if (v == p.ct_state) r = Tri::kYes;
      break;
    case Match::Field::kCtStatus:
      r = Tri::kNo;  // a new packet to a local address: not dnat/snat/...
      break;
    case Match::Field::kNfproto:
      for (const std::string& v : m.values)
        if (v == (p.family == 4 ? "ipv4" : "ipv6")) r = Tri::kYes;
      break;
    case Match::Field::kDstType:
      if (p.dir == Direction::kFwd) {
        // Passing through: to another host's unicast address.
        for (const std::string& v : m.values)
          if (v == "UNICAST") r = Tri::kYes;
        break;
      }
      if (p.dir == Direction::kOut) {
        // To a peer: UNICAST, or LOCAL when the peer is this host's own
        // address (two rxe devices on one host); which, the rules don't say.
        for (const std::string& v : m.values)
          if (v == "LOCAL" || v == "UNICAST") r = Tri::kMaybe;
        break;
      }
      // Addressed to the netdev's own address: LOCAL, nothing else.
      for (const std::string& v : m.values)
        if (v == "LOCAL") r = Tri::kYes;
      break;
    case Match::Field::kMark: {
      // Known bits decide; where the mask covers unknown bits, a value that
      // agrees with the known ones may or may not match.
      const uint32_t known = m.mark_mask & ~p.mark_unknown;
      for (const std::string& v : m.values) {
        uint32_t want = static_cast<uint32_t>(std::stoul(v));
        if (((p.mark ^ want) & known) != 0) continue;
        if ((want & ~m.mark_mask) != 0) continue;  // bits outside the mask: never equal
        r = (m.mark_mask & p.mark_unknown) == 0 ? Tri::kYes : Tri::kMaybe;
        if (r == Tri::kYes) break;
      }
      break;
    }
  }
  return Negate(r, m.negate);
}

namespace {

enum class Flow { kAccept, kDrop, kReject, kReturn };

// What walking one chain does to the packet: the same wherever it is jumped
// to from, since the packet does not change on the way.
struct ChainFate {
  Flow flow;
  std::optional<Place> last;
};

// One table's chains by name, and the chains already walked for this packet:
// rulesets whose chains jump to shared chains (a tree of dispatch chains, as
// generated rulesets are) are then walked once per chain, not once per path.
struct TableWalk {
  explicit TableWalk(const Table& t) {
    for (const Chain& c : t.chains) by_name.emplace(c.name, &c);
  }
  const Chain* Find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
  std::unordered_map<std::string_view, const Chain*> by_name;
  std::unordered_map<const Chain*, ChainFate> walked;
  std::unordered_set<const Chain*> on_path;  // chains being walked: a jump to one is a loop
  int cut = 0;                               // walks stopped at the depth limit or a loop
  uint64_t epoch = 0;                        // of the mark the walked fates were found with
};

// The packet's mark as the walk changes it, across tables: a chain's fate
// found before the mark changed is found again after.
struct MarkState {
  uint64_t epoch = 0;
  // A rule that may have ended this base chain's walk was passed: its later
  // mark changes may not happen.
  bool tentative = false;
  std::string unknown_by;  // the rule that left bits of the mark unknown
};

struct Walker {
  const Ruleset& rs;
  const Table& table;
  Packet& p;
  Outcome* out;
  TableWalk* tw;
  MarkState* ms;
  // A nat chain: walked for the marks it sets only; its verdicts do not
  // filter (a NAT target ends the chain).
  bool marks_only = false;
  std::optional<Place> last;  // the rule that ended the walk

  Place PlaceOf(const Chain& c, const Rule& r) const {
    return Place{rs.source, table.family, table.name, c.name, r.position, r.line, r.handle, r.text};
  }

  Tri RuleMatches(const Rule& r) const {
    Tri t = Tri::kYes;
    for (const Match& m : r.matches) {
      Tri x = Matches(m, p);
      if (x == Tri::kNo) return Tri::kNo;
      if (x == Tri::kMaybe) t = Tri::kMaybe;
    }
    // In a nat chain the parts not understood are a NAT target's options.
    if (!r.not_understood.empty() && !(marks_only && r.action == Action::kUnknown)) t = Tri::kMaybe;
    return t;
  }

  // Why a rule may match: what was not understood, the peer's address, the mark.
  std::vector<std::string> MaybeWhy(const Rule& r) const {
    std::vector<std::string> why = r.not_understood;
    bool peer = false;
    for (const Match& m : r.matches) {
      if (Matches(m, p) != Tri::kMaybe) continue;
      if (m.field == Match::Field::kMark)
        why.push_back(absl::StrCat("`", m.text, "`: the packet's mark is not known here, ", ms->unknown_by));
      else
        peer = true;
    }
    if (peer || why.empty()) why.push_back("depends on the peer's address");
    return why;
  }

  // The mark bits a chain can set, following its jumps: made unknown when a
  // jump to it may or may not be taken.
  uint32_t MaySet(const Chain& c, std::unordered_set<const Chain*>* seen) const {
    if (!seen->insert(&c).second) return 0;
    uint32_t bits = 0;
    for (const Rule& r : c.rules) {
      if (r.mark_set) bits |= r.mark_set->mask | r.mark_set->value;
      if (r.action == Action::kJump || r.action == Action::kGoto)
        if (const Chain* t = tw->Find(r.target)) bits |= MaySet(*t, seen);
    }
    return bits;
  }

  // Whether walking a chain can end the base chain's walk with the packet
  // going on (an accept, or a verdict not understood).
  bool MayEnd(const Chain& c, std::unordered_set<const Chain*>* seen) const {
    if (!seen->insert(&c).second) return false;
    for (const Rule& r : c.rules) {
      if (r.action == Action::kAccept || r.action == Action::kQueue || r.action == Action::kUnknown) return true;
      if (r.action == Action::kJump || r.action == Action::kGoto)
        if (const Chain* t = tw->Find(r.target); t != nullptr && MayEnd(*t, seen)) return true;
    }
    return false;
  }

  void Unknown(uint32_t bits, const std::string& by) {
    if ((p.mark_unknown | bits) == p.mark_unknown) return;
    p.mark_unknown |= bits;
    ms->unknown_by = by;
    ++ms->epoch;
  }

  // A rule that matched (Yes or Maybe) sets the mark.
  void SetMark(const Chain& c, const Rule& r, Tri t) {
    const MarkSet& m = *r.mark_set;
    if (t == Tri::kYes && m.known && !ms->tentative) {
      uint32_t mark = (p.mark & ~m.mask) ^ m.value, unknown = p.mark_unknown & ~m.mask;
      if (mark == p.mark && unknown == p.mark_unknown) return;
      p.mark = mark;
      p.mark_unknown = unknown;
      ++ms->epoch;
      out->marked_by.push_back(absl::StrCat(PlaceOf(c, r).Where(), ": `", r.text, "`"));
      return;
    }
    std::string why = !m.known ? "from something not followed" : "if that rule applies";
    Unknown(m.mask | m.value, absl::StrCat("set by ", PlaceOf(c, r).Where(), " (`", m.text, "`, ", why, ")"));
  }

  // Walks `c` once per packet: a chain walked before gives its fate again.
  Flow Walk(const Chain& c, int depth) {
    if (tw->epoch != ms->epoch) {
      tw->walked.clear();
      tw->epoch = ms->epoch;
    }
    if (auto it = tw->walked.find(&c); it != tw->walked.end()) {
      if (it->second.flow != Flow::kReturn) last = it->second.last;
      return it->second.flow;
    }
    if (depth > 64) {
      ++tw->cut;
      out->uncertain.push_back(absl::StrCat(rs.source, " ", table.name, " ", c.name,
                                            ": jumps nest deeper than 64; stopped"));
      return Flow::kReturn;
    }
    if (!tw->on_path.insert(&c).second) {
      // The kernel refuses to load a loop (ELOOP); a pasted ruleset may have one.
      ++tw->cut;
      out->uncertain.push_back(absl::StrCat(rs.source, " ", table.name, " ", c.name,
                                            ": jumped to again from a chain it jumps to (a loop, which the kernel "
                                            "would refuse to load); that jump was not followed"));
      return Flow::kReturn;
    }
    const int cut_before = tw->cut;
    const uint64_t epoch_before = ms->epoch;
    Flow f = WalkRules(c, depth);
    tw->on_path.erase(&c);
    // A walk cut short below depends on the path that reached it, and one
    // that changed the mark on the mark it started with: neither is kept.
    if (tw->cut == cut_before && ms->epoch == epoch_before)
      tw->walked[&c] = {f, f == Flow::kReturn ? std::nullopt : last};
    return f;
  }

  Flow WalkRules(const Chain& c, int depth) {
    for (const Rule& r : c.rules) {
      ++out->rules_examined;
      Tri t = RuleMatches(r);
      if (t == Tri::kNo) continue;
      if (r.mark_set) SetMark(c, r, t);
      if (r.action == Action::kNone || r.action == Action::kContinue) continue;
      if (t == Tri::kMaybe) {
        // Assumed not to match; if it does, what follows it may not happen,
        // and a chain it jumps to may set the mark.
        // Past a drop that may match, the packet that goes on is the one it
        // did not match; past an accept, return or goto, later rules of
        // this base chain may not run for it.
        bool may_end = r.action != Action::kJump && r.action != Action::kDrop && r.action != Action::kReject;
        if (r.action == Action::kJump || r.action == Action::kGoto) {
          std::unordered_set<const Chain*> seen, seen_end;
          if (const Chain* target = tw->Find(r.target)) {
            Unknown(MaySet(*target, &seen),
                    absl::StrCat("set in ", r.target, " if ", PlaceOf(c, r).Where(), " jumps there"));
            may_end = may_end || MayEnd(*target, &seen_end);
          }
        }
        if (may_end && !ms->tentative) {
          ms->tentative = true;
          ++ms->epoch;  // fates found before treated the marks set after as certain
        }
        if (marks_only) continue;
        out->uncertain.push_back(absl::StrCat(PlaceOf(c, r).Where(), ": `", r.text, "` may match (",
                                              absl::StrJoin(MaybeWhy(r), "; "), "); assumed it does not"));
        continue;
      }
      if (marks_only && r.action != Action::kJump && r.action != Action::kGoto && r.action != Action::kReturn) {
        // accept, or a NAT target (DNAT, MASQUERADE, ...): the chain ends here.
        last = PlaceOf(c, r);
        return Flow::kAccept;
      }
      switch (r.action) {
        case Action::kAccept:
          last = PlaceOf(c, r);
          return Flow::kAccept;
        case Action::kDrop:
          last = PlaceOf(c, r);
          return Flow::kDrop;
        case Action::kReject:
          last = PlaceOf(c, r);
          return Flow::kReject;
        case Action::kReturn:
          return Flow::kReturn;
        case Action::kQueue:
          // Leaves netfilter for a userspace program; what it answers goes on.
          last = PlaceOf(c, r);
          out->uncertain.push_back(absl::StrCat(PlaceOf(c, r).Where(), ": `", r.text,
                                                "` hands the packet to a userspace program (netfilter queue), whose "
                                                "verdict decides; assumed it accepts"));
          return Flow::kAccept;
        case Action::kJump:
        case Action::kGoto: {
          const Chain* target = tw->Find(r.target);
          if (target == nullptr) continue;  // the readers refuse this
          Flow f = Walk(*target, depth + 1);
          if (f != Flow::kReturn) return f;
          if (r.action == Action::kGoto) return Flow::kReturn;
          continue;
        }
        default:
          out->uncertain.push_back(absl::StrCat(PlaceOf(c, r).Where(), ": `", r.text,
                                                "`: verdict not understood; assumed to continue"));
          continue;
      }
    }
    if (c.cut && !out->cut) {
      out->cut = true;
      out->uncertain.push_back(absl::StrCat(rs.source, " ", table.name, " ", c.name,
                                            ": the dump ends inside this chain; rules after ",
                                            c.rules.empty() ? "its start" : absl::StrCat("line ", c.rules.back().line),
                                            " are unknown"));
    }
    return Flow::kReturn;
  }
};

// The hooks of a packet's path, in the order netfilter runs them; -1: not on it.
int HookOrder(const std::string& hook, Direction dir) {
  if (dir == Direction::kIn) return hook == "prerouting" ? 0 : hook == "input" ? 1 : -1;
  if (dir == Direction::kFwd)
    return hook == "prerouting" ? 0 : hook == "forward" ? 1 : hook == "postrouting" ? 2 : -1;
  return hook == "output" ? 0 : hook == "postrouting" ? 1 : -1;
}

// Chains that can drop: filter chains, and on the output hook route chains
// (iptables' mangle OUTPUT) too.
bool Filters(const Chain& c, Direction dir) {
  return c.type == "filter" || (dir == Direction::kOut && c.type == "route");
}

// nat chains see the first packet of a flow, as ours is: walked for the
// marks they set.
bool Marks(const Chain& c) { return c.type == "nat"; }

}  // namespace

Outcome Evaluate(const std::vector<Ruleset>& rulesets, const Packet& p) {
  Outcome out;
  // nft shows iptables-nft's tables too; when iptables-nft-save was read,
  // those are walked from there, once.
  bool have_ipt_nft = false;
  for (const Ruleset& rs : rulesets)
    if (absl::EndsWith(rs.source, "tables-nft")) have_ipt_nft = true;

  struct Base {
    const Ruleset* rs;
    const Table* t;
    const Chain* c;
  };
  std::vector<Base> bases;
  for (const Ruleset& rs : rulesets) {
    for (const Table& t : rs.tables) {
      std::string where = absl::StrCat(rs.source, " table ", t.family, " ", t.name);
      bool fam = t.family == "inet" || (t.family == "ip" && p.family == 4) ||
                 (t.family == "ip6" && p.family == 6);
      if (!fam) {
        if (t.family != "ip" && t.family != "ip6")
          out.skipped.push_back(absl::StrCat(where, " (family ", t.family, " not evaluated)"));
        continue;
      }
      if (t.iptables_managed && have_ipt_nft) {
        out.skipped.push_back(absl::StrCat(where, " (managed by iptables-nft; read from its save output)"));
        continue;
      }
      for (const Chain& c : t.chains)
        if (c.base && (Filters(c, p.dir) || Marks(c)) && HookOrder(c.hook, p.dir) >= 0)
          bases.push_back({&rs, &t, &c});
    }
  }
  std::stable_sort(bases.begin(), bases.end(), [&p](const Base& a, const Base& b) {
    return std::make_tuple(HookOrder(a.c->hook, p.dir), a.c->priority) <
           std::make_tuple(HookOrder(b.c->hook, p.dir), b.c->priority);
  });
  Packet q = p;  // its mark changes on the way
  MarkState ms;
  std::unordered_map<const Table*, TableWalk> walks, nat_walks;
  for (const Base& b : bases) {
    const bool nat = Marks(*b.c);
    TableWalk& tw = (nat ? nat_walks : walks).try_emplace(b.t, *b.t).first->second;
    ms.tentative = false;
    Walker w{*b.rs, *b.t, q, &out, &tw, &ms, nat, std::nullopt};
    Flow f = w.Walk(*b.c, 0);
    if (nat) continue;
    Place base{b.rs->source, b.t->family, b.t->name, b.c->name, 0, b.c->line, b.c->handle,
               absl::StrCat("policy ", b.c->policy)};
    bool policy = f == Flow::kReturn;
    if (policy) {
      f = b.c->policy == "drop" ? Flow::kDrop : Flow::kAccept;
      w.last = base;
    }
    std::string fate = f == Flow::kAccept ? "accept" : f == Flow::kDrop ? "drop" : "reject";
    out.walked.push_back(absl::StrCat(b.rs->source, " ", b.t->family, " ", b.t->name, " ",
                                      b.c->name, ": ", fate, policy ? " (policy)" : ""));
    out.decided_by = w.last;
    out.by_policy = policy;
    out.base_chain = base;
    if (f == Flow::kDrop || f == Flow::kReject) {
      out.fate = f == Flow::kDrop ? Fate::kDropped : Fate::kRejected;
      return out;
    }
  }
  out.fate = Fate::kAccepted;
  return out;
}

}  // namespace rdmacheck::firewall
