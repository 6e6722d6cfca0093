#include "facts/firewall/nft_json.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/firewall/internal.h"
#include "facts/firewall/nft_ruleset.h"
#include "nlohmann/json.hpp"
#include "util/json_cut.h"
#include "util/status_macros.h"

namespace rdmacheck::firewall {
namespace {

using nlohmann::json;

// Strings of a JSON value, empty when it is not one; never throws.
std::string Str(const json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}
std::optional<long long> Int(const json& o, const char* key) {
  if (!o.is_object()) return std::nullopt;
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<long long>();
}
int Handle(const json& o) {
  std::optional<long long> h = Int(o, "handle");
  return h && *h > 0 && *h < (1LL << 31) ? static_cast<int>(*h) : 0;
}

// The one key of a statement or expression object ({"accept": null}).
std::string KeyOf(const json& o) {
  return o.is_object() && o.size() == 1 ? o.begin().key() : "";
}

bool IsMetaMark(const json& e) {
  return KeyOf(e) == "meta" && e.begin().value().is_object() && Str(e.begin().value(), "key") == "mark";
}

// An expression in nft's own syntax, for evidence.
std::string ExprText(const json& e) {
  if (e.is_string()) {
    std::string s = e.get<std::string>();
    return absl::StrContains(s, " ") ? absl::StrCat("\"", s, "\"") : s;
  }
  if (e.is_number() || e.is_boolean()) return e.dump();
  if (e.is_array()) {
    std::vector<std::string> parts;
    for (const json& x : e) parts.push_back(ExprText(x));
    return absl::StrJoin(parts, ",");
  }
  const std::string k = KeyOf(e);
  if (k.empty()) return e.dump();
  const json& v = e.begin().value();
  if (k == "payload") {
    if (v.contains("protocol")) return absl::StrCat(Str(v, "protocol"), " ", Str(v, "field"));
    return absl::StrCat("@", Str(v, "base"), ",", v.value("offset", 0), ",", v.value("len", 0));
  }
  if (k == "meta") {
    std::string key = Str(v, "key");
    if (key == "iifname" || key == "oifname" || key == "iif" || key == "oif") return key;
    return absl::StrCat("meta ", key);
  }
  if (k == "ct") {
    std::string dir = Str(v, "dir");
    return absl::StrCat("ct ", dir.empty() ? "" : absl::StrCat(dir, " "), Str(v, "key"));
  }
  if (k == "fib" && v.is_object()) {
    std::vector<std::string> flags;
    if (auto f = v.find("flags"); f != v.end()) {
      if (f->is_string()) flags.push_back(f->get<std::string>());
      if (f->is_array())
        for (const json& x : *f)
          if (x.is_string()) flags.push_back(x.get<std::string>());
    }
    return absl::StrCat("fib ", absl::StrJoin(flags, " . "), " ", Str(v, "result"));
  }
  if (k == "set" && v.is_array()) {
    std::vector<std::string> parts;
    for (const json& x : v) parts.push_back(ExprText(x));
    return absl::StrCat("{ ", absl::StrJoin(parts, ", "), " }");
  }
  if (k == "range" && v.is_array() && v.size() == 2) return absl::StrCat(ExprText(v[0]), "-", ExprText(v[1]));
  if (k == "prefix" && v.is_object())
    return absl::StrCat(ExprText(v.value("addr", json())), "/", v.value("len", json()).dump());
  if (k == "elem" && v.is_object()) return ExprText(v.value("val", json()));
  if (k == "concat" && v.is_array()) {
    std::vector<std::string> parts;
    for (const json& x : v) parts.push_back(ExprText(x));
    return absl::StrJoin(parts, " . ");
  }
  if ((k == "&" || k == "|" || k == "^" || k == "<<" || k == ">>") && v.is_array() && v.size() == 2)
    return absl::StrCat(ExprText(v[0]), " ", k, " ", ExprText(v[1]));
  return e.dump();
}

std::string VerdictText(const std::string& k, const json& v) {
  if ((k == "jump" || k == "goto") && v.is_object()) return absl::StrCat(k, " ", Str(v, "target"));
  return k;
}

// The value of one element as the text reader would hold it: "4791",
// "4000-5000", "10.0.0.0/8", "eth0"; nullopt for anything else.
std::optional<std::string> ValueText(const json& e) {
  if (e.is_string()) return e.get<std::string>();
  if (e.is_number_integer()) return e.dump();
  const std::string k = KeyOf(e);
  if (k.empty()) return std::nullopt;
  const json& v = e.begin().value();
  if (k == "range" && v.is_array() && v.size() == 2) {
    std::optional<std::string> a = ValueText(v[0]), b = ValueText(v[1]);
    if (!a || !b) return std::nullopt;
    // Ports as a range; addresses as a range are not kept by the model.
    return absl::StrCat(*a, "-", *b);
  }
  if (k == "prefix" && v.is_object() && v.contains("addr") && v["addr"].is_string() && v.contains("len") &&
      v["len"].is_number_integer())
    return absl::StrCat(v["addr"].get<std::string>(), "/", v["len"].dump());
  if (k == "elem" && v.is_object() && v.contains("val")) return ValueText(v["val"]);
  return std::nullopt;
}

// The elements of a right-hand side: one value, a list (flags), or an
// anonymous {"set": [...]}.
std::vector<json> Elements(const json& right) {
  if (right.is_array()) return std::vector<json>(right.begin(), right.end());
  if (KeyOf(right) == "set") {
    const json& v = right.begin().value();
    if (v.is_array()) return std::vector<json>(v.begin(), v.end());
    return {v};
  }
  return {right};
}

class Reader {
 public:
  explicit Reader(absl::string_view file) {
    rs_.file = std::string(file);
    rs_.source = "nft";
  }

  absl::StatusOr<Ruleset> Run(absl::string_view text) {
    json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      RDMACHECK_ASSIGN_OR_RETURN(doc, Salvage(text));
    }
    if (!doc.is_object() || !doc.contains("nftables") || !doc["nftables"].is_array())
      return absl::InvalidArgumentError(absl::StrCat(
          rs_.file, ": expected {\"nftables\": [...]}, the output of `nft -j list ruleset`"));
    const json& objs = doc["nftables"];
    for (size_t i = 0; i < objs.size(); ++i) {
      index_ = i;
      RDMACHECK_RETURN_IF_ERROR(Object(objs[i]));
    }
    for (Table& t : rs_.tables)
      RDMACHECK_RETURN_IF_ERROR(internal::ResolveReferences(
          &t, [&](const Rule& r, absl::string_view what) {
            return absl::InvalidArgumentError(absl::StrCat(rs_.file, ": rule handle ", r.handle, " in table ",
                                                           t.family, " ", t.name, ": ", what));
          }));
    return std::move(rs_);
  }

 private:
  // A document cut short ("nft -j list ruleset | head -c", a paste that hit a
  // size limit): everything up to the last complete object of the nftables
  // array, and what is missing in Ruleset::incomplete.
  absl::StatusOr<json> Salvage(absl::string_view text) {
    size_t error_at = 0;
    try {
      json unused = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
      error_at = std::min<size_t>(e.byte, text.size());
    }
    auto not_json = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(rs_.file, ": byte ", error_at, ": not JSON (", why, ")"));
    };
    // Depth 1 is the top object, 2 the nftables array. A closed array means
    // the error lies elsewhere.
    const JsonCut cut = WholeElements(text, 2);
    const size_t last_end = cut.end, objects = cut.elements;
    if (!cut.open || objects == 0) return not_json("nothing complete to read");
    json doc = json::parse(absl::StrCat(text.substr(0, last_end), "]}"), nullptr, false);
    if (doc.is_discarded()) return not_json("malformed before it was cut short");
    size_t missing = text.size() - last_end;
    rs_.incomplete = absl::StrCat("the JSON stops after ", objects, " object(s) (byte ", last_end, " of ",
                                  text.size(), "; ", missing,
                                  " byte(s) after it cannot be read): a truncated `nft -j list ruleset`");
    return doc;
  }

  std::string Here() const { return absl::StrCat("nftables[", index_, "]"); }
  absl::Status Err(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(rs_.file, ": ", Here(), ": ", what));
  }

  Table* FindTable(const std::string& family, const std::string& name) {
    for (Table& t : rs_.tables)
      if (t.family == family && t.name == name) return &t;
    return nullptr;
  }
  // The table an object names; a listing of one chain (`nft -j list chain`)
  // may not carry the table object itself.
  absl::StatusOr<Table*> TableOf(const json& o, const char* what) {
    std::string family = Str(o, "family"), name = Str(o, "table");
    if (family.empty() || name.empty()) return Err(absl::StrCat(what, " without \"family\" and \"table\""));
    if (Table* t = FindTable(family, name)) return t;
    RDMACHECK_RETURN_IF_ERROR(AddTable(family, name));
    rs_.notes.push_back(absl::StrCat(Here(), ": ", what, " of table ", family, " ", name,
                                     ", which no table object listed before it"));
    return &rs_.tables.back();
  }
  absl::Status AddTable(const std::string& family, const std::string& name) {
    static const std::set<std::string> kFamilies = {"ip", "ip6", "inet", "arp", "bridge", "netdev"};
    if (!kFamilies.count(family)) return Err(absl::StrCat("unknown table family \"", family, "\""));
    Table t;
    t.family = family;
    t.name = name;
    rs_.tables.push_back(std::move(t));
    return absl::OkStatus();
  }

  absl::Status Object(const json& o) {
    const std::string k = KeyOf(o);
    if (k.empty()) return Err("expected an object with one key (\"table\", \"chain\", \"rule\", ...)");
    const json& v = o.begin().value();
    if (k == "metainfo") return absl::OkStatus();
    if (!v.is_object()) return Err(absl::StrCat("\"", k, "\" is not an object"));
    if (k == "table") {
      std::string family = Str(v, "family"), name = Str(v, "name");
      if (family.empty() || name.empty()) return Err("table without \"family\" and \"name\"");
      if (FindTable(family, name) != nullptr) return Err(absl::StrCat("table ", family, " ", name, " listed twice"));
      RDMACHECK_RETURN_IF_ERROR(AddTable(family, name));
      if (absl::StrContains(v.value("flags", json()).dump(), "dormant"))
        rs_.notes.push_back(absl::StrCat("table ", family, " ", name, " is dormant (", Here(), ")"));
      return absl::OkStatus();
    }
    if (k == "chain") return ChainObject(v);
    if (k == "rule") return RuleObject(v);
    if (k == "set") return SetObject(v);
    // Maps, flowtables and stateful objects: no bearing on the verdicts the
    // evaluator walks unless a rule uses them, and such a rule is then not
    // understood.
    rs_.notes.push_back(absl::StrCat("skipped ", k, " ", Str(v, "family"), " ", Str(v, "table"), " ",
                                     Str(v, "name"), " (", Here(), ")"));
    return absl::OkStatus();
  }

  absl::Status ChainObject(const json& v) {
    RDMACHECK_ASSIGN_OR_RETURN(Table * t, TableOf(v, "chain"));
    Chain c;
    c.name = Str(v, "name");
    if (c.name.empty()) return Err("chain without \"name\"");
    if (t->FindChain(c.name) != nullptr) return Err(absl::StrCat("chain ", c.name, " listed twice"));
    c.handle = Handle(v);
    if (v.contains("hook")) {
      c.base = true;
      c.type = Str(v, "type");
      c.hook = Str(v, "hook");
      const json& prio = v.value("prio", json());
      if (prio.is_number_integer()) {
        c.priority = prio.get<int>();
      } else {
        return Err(absl::StrCat("chain ", c.name, ": \"prio\" is ", prio.dump(), ", not a number"));
      }
      c.policy = Str(v, "policy");
      if (c.policy.empty()) c.policy = "accept";  // nft's default for base chains
      if (c.policy != "accept" && c.policy != "drop")
        return Err(absl::StrCat("chain ", c.name, ": \"policy\" is \"", c.policy, "\", not accept or drop"));
    }
    t->chains.push_back(std::move(c));
    return absl::OkStatus();
  }

  absl::Status SetObject(const json& v) {
    RDMACHECK_ASSIGN_OR_RETURN(Table * t, TableOf(v, "set"));
    Set s;
    s.name = Str(v, "name");
    if (s.name.empty()) return Err("set without \"name\"");
    if (v.contains("elem")) {
      for (const json& e : Elements(v["elem"])) {
        std::optional<std::string> text = ValueText(e);
        if (!text) {
          s.understood = false;  // concatenations, timeouts with no value
          s.elements.push_back(ExprText(e));
          continue;
        }
        if (auto r = internal::PortRange(*text)) s.ports.push_back(*r);
        s.elements.push_back(*text);
      }
    }
    t->sets[s.name] = std::move(s);
    return absl::OkStatus();
  }

  absl::Status RuleObject(const json& v) {
    RDMACHECK_ASSIGN_OR_RETURN(Table * t, TableOf(v, "rule"));
    std::string chain = Str(v, "chain");
    Chain* c = nullptr;
    for (Chain& x : t->chains)
      if (x.name == chain) c = &x;
    if (c == nullptr) {
      if (chain.empty()) return Err("rule without \"chain\"");
      Chain made;
      made.name = chain;
      t->chains.push_back(std::move(made));
      c = &t->chains.back();
      rs_.notes.push_back(absl::StrCat(Here(), ": rule of chain ", chain,
                                       ", which no chain object listed before it (taken as a regular chain)"));
    }
    Rule r;
    r.handle = Handle(v);
    r.position = c->rules.empty() ? 1 : c->rules.back().position + 1;
    const json& expr = v.value("expr", json());
    if (!expr.is_array()) return Err(absl::StrCat("rule handle ", r.handle, ": \"expr\" is not a list"));
    std::vector<std::string> text;
    vmap_.clear();
    for (const json& st : expr) Statement(st, t, &r, &text);
    if (std::string cm = Str(v, "comment"); !cm.empty()) text.push_back(absl::StrCat("comment \"", cm, "\""));
    r.text = absl::StrJoin(text, " ");
    if (vmap_.empty()) {
      c->rules.push_back(std::move(r));
      return absl::OkStatus();
    }
    // `ct state vmap { established : accept, invalid : drop }`: one rule per
    // key, sharing the rule's position (only one key can match).
    for (auto& [m, verdict] : vmap_) {
      Rule k = r;
      k.matches.push_back(std::move(m));
      SetVerdict(verdict, &k);
      c->rules.push_back(std::move(k));
    }
    return absl::OkStatus();
  }

  // Sets the rule's action from a verdict object; false when it is none.
  static bool SetVerdict(const json& st, Rule* r) {
    const std::string k = KeyOf(st);
    const json& v = k.empty() ? st : st.begin().value();
    if (k == "accept") r->action = Action::kAccept;
    else if (k == "drop") r->action = Action::kDrop;
    else if (k == "return") r->action = Action::kReturn;
    else if (k == "continue") r->action = Action::kContinue;
    else if (k == "reject") r->action = Action::kReject;
    else if (k == "jump" || k == "goto") {
      r->action = k == "jump" ? Action::kJump : Action::kGoto;
      r->target = Str(v, "target");
      if (r->target.empty()) {
        r->action = Action::kUnknown;
        r->not_understood.push_back(absl::StrCat(k, " without a target"));
      }
    } else if (k == "queue") {
      r->action = Action::kQueue;
    } else {
      return false;
    }
    return true;
  }

  void Statement(const json& st, Table* t, Rule* r, std::vector<std::string>* text) {
    const std::string k = KeyOf(st);
    const json& v = k.empty() ? st : st.begin().value();
    if (k == "xt") {
      // iptables-nft's compat expressions (`nft list` prints them as
      // `xt match "..."`): the table is iptables-nft's, read from its save output.
      t->iptables_managed = true;
      std::string what = absl::StrCat("xt ", Str(v, "type"), " ", Str(v, "name"));
      r->not_understood.push_back(what);
      text->push_back(what);
      // Its options are not in the JSON: what MARK or CONNMARK sets is unknown.
      if (Str(v, "type") == "target" && (Str(v, "name") == "MARK" || Str(v, "name") == "CONNMARK"))
        r->mark_set = MarkSet{0xffffffff, 0, false, what};
      return;
    }
    if (k == "mangle" && v.is_object() && IsMetaMark(v.value("key", json()))) {
      // `meta mark set N`, `meta mark set meta mark | N` (& and ^ too).
      const json& val = v.value("value", json());
      const std::string op = KeyOf(val);
      std::string what = absl::StrCat("meta mark set ", ExprText(val));
      text->push_back(what);
      const json& args = op.empty() ? json() : val.begin().value();
      if (val.is_number_unsigned()) {
        r->mark_set = internal::MarkOp("", val.get<uint32_t>(), what);
      } else if ((op == "|" || op == "&" || op == "^") && args.is_array() && args.size() == 2 &&
                 IsMetaMark(args[0]) && args[1].is_number_unsigned()) {
        r->mark_set = internal::MarkOp(op, args[1].get<uint32_t>(), what);
      } else {
        r->mark_set = MarkSet{0xffffffff, 0, false, what};  // ct mark, a map, ...
      }
      return;
    }
    if (r->action != Action::kNone) {
      // Nothing follows a verdict in what nft prints.
      r->not_understood.push_back(absl::StrCat("after the verdict: ", st.dump()));
      return;
    }
    if (SetVerdict(st, r)) {
      std::string vt = VerdictText(k, v);
      if (k == "reject" && v.is_object())
        vt = absl::StrCat("reject with ", Str(v, "type"), Str(v, "expr").empty() ? "" : " ",
                          Str(v, "expr"));
      text->push_back(vt);
      return;
    }
    if (k == "counter") {
      std::optional<long long> pk = Int(v, "packets"), by = Int(v, "bytes");
      text->push_back(pk && by ? absl::StrCat("counter packets ", *pk, " bytes ", *by)
                               : v.is_string() ? absl::StrCat("counter name ", v.get<std::string>())
                                               : "counter");
      return;
    }
    if (k == "log") {
      std::string prefix = Str(v, "prefix");
      text->push_back(prefix.empty() ? "log" : absl::StrCat("log prefix \"", prefix, "\""));
      return;
    }
    if (k == "match" && v.is_object()) {
      MatchStatement(v, r, text);
      return;
    }
    if (k == "vmap" && v.is_object() && vmap_.empty()) {
      Vmap(v, r, text);
      return;
    }
    std::string what = k.empty() ? st.dump() : absl::StrCat(k, " ", v.is_null() ? "" : v.dump());
    r->not_understood.push_back(what);
    text->push_back(what);
  }

  // The match a left-hand expression selects, with the protocol it implies
  // (`udp dport` only matches UDP); false when the model has no such field.
  bool Selector(const json& left, firewall::Match* m, std::vector<firewall::Match>* implied) {
    const std::string k = KeyOf(left);
    const json& v = k.empty() ? left : left.begin().value();
    auto imply = [&](Match::Field f, const std::string& value, const std::string& why) {
      firewall::Match p;
      p.field = f;
      p.values = {value};
      p.text = why;
      implied->push_back(std::move(p));
    };
    if (k == "&" && v.is_array() && v.size() == 2 && IsMetaMark(v[0]) && v[1].is_number_unsigned()) {
      // `meta mark & 0x8000 == 0x8000`
      m->field = firewall::Match::Field::kMark;
      m->mark_mask = v[1].get<uint32_t>();
      return true;
    }
    if ((k == "&" || k == "|" || k == "^" || k == "<<" || k == ">>") && v.is_array() && !v.empty()) {
      // `tcp flags & (fin | syn) == fin | syn`: not a field of the model, but
      // only a packet of the protocol in it can match, as in the text reader.
      firewall::Match inner;
      Selector(v[0], &inner, implied);
      return false;
    }
    if (k == "meta") {
      std::string key = Str(v, "key");
      if (key == "iifname" || key == "iif") m->field = firewall::Match::Field::kIifname;
      else if (key == "oifname" || key == "oif") m->field = firewall::Match::Field::kOifname;
      else if (key == "l4proto") m->field = firewall::Match::Field::kL4proto;
      else if (key == "nfproto") m->field = firewall::Match::Field::kNfproto;
      else if (key == "mark") m->field = firewall::Match::Field::kMark;
      else return false;
      return true;
    }
    if (k == "payload") {
      std::string proto = Str(v, "protocol"), field = Str(v, "field");
      if (proto == "ip" || proto == "ip6") {
        m->family = proto == "ip" ? 4 : 6;
        if (field == "saddr") m->field = firewall::Match::Field::kSaddr;
        else if (field == "daddr") m->field = firewall::Match::Field::kDaddr;
        else if ((proto == "ip" && field == "protocol") || (proto == "ip6" && field == "nexthdr")) {
          m->field = firewall::Match::Field::kL4proto;
          imply(firewall::Match::Field::kNfproto, proto == "ip" ? "ipv4" : "ipv6", proto);
        } else {
          imply(firewall::Match::Field::kNfproto, proto == "ip" ? "ipv4" : "ipv6", proto);
          return false;
        }
        return true;
      }
      static const std::set<std::string> kL4 = {"udp", "tcp", "th", "sctp", "dccp", "udplite"};
      if (kL4.count(proto)) {
        if (proto != "th") {
          if (std::optional<std::string> n = internal::ProtoNumber(proto)) imply(firewall::Match::Field::kL4proto, *n, proto);
        }
        if (field == "dport") m->field = firewall::Match::Field::kDport;
        else if (field == "sport") m->field = firewall::Match::Field::kSport;
        else return false;
        return true;
      }
      if (proto == "icmp" || proto == "icmpv6") {
        // Only an ICMP packet can match: enough to rule out UDP.
        if (std::optional<std::string> n = internal::ProtoNumber(proto)) imply(firewall::Match::Field::kL4proto, *n, proto);
      }
      return false;
    }
    if (k == "ct") {
      if (!Str(v, "dir").empty()) return false;
      std::string key = Str(v, "key");
      if (key == "state") m->field = firewall::Match::Field::kCtState;
      else if (key == "status") m->field = firewall::Match::Field::kCtStatus;
      else return false;
      return true;
    }
    return false;
  }

  void MatchStatement(const json& v, Rule* r, std::vector<std::string>* text) {
    const json& left = v.value("left", json());
    const json& right = v.value("right", json());
    std::string op = Str(v, "op");
    std::string left_text = ExprText(left);
    // nft quotes interface names, not set references.
    bool names = left_text == "iifname" || left_text == "oifname" || left_text == "iif" || left_text == "oif";
    std::string right_text =
        right.is_string() && names && !absl::StartsWith(right.get<std::string>(), "@")
            ? absl::StrCat("\"", right.get<std::string>(), "\"")
            : ExprText(right);
    firewall::Match m;
    m.text = absl::StrCat(left_text, op == "==" || op == "in" || op.empty() ? "" : absl::StrCat(" ", op), " ",
                          right_text);
    text->push_back(m.text);
    std::vector<firewall::Match> implied;
    bool ok = Selector(left, &m, &implied);
    for (firewall::Match& p : implied) r->matches.push_back(std::move(p));
    if (!ok) {
      r->not_understood.push_back(m.text);
      return;
    }
    const bool ports = m.field == firewall::Match::Field::kDport || m.field == firewall::Match::Field::kSport;
    std::optional<std::pair<int, int>> range =
        right.is_number_integer() ? internal::PortComparison(op, right.dump()) : std::nullopt;
    if (op == "!=") {
      m.negate = true;
    } else if (ports && range) {
      // `udp dport < 1024`: the ports as a range.
      m.ports.push_back(*range);
      r->matches.push_back(std::move(m));
      return;
    } else if (op != "==" && op != "in" && !op.empty()) {
      r->not_understood.push_back(m.text);
      return;
    }
    if (right.is_string() && absl::StartsWith(right.get<std::string>(), "@")) {
      m.set_ref = right.get<std::string>().substr(1);
      r->matches.push_back(std::move(m));
      return;
    }
    for (const json& e : Elements(right)) {
      std::optional<std::string> value = ValueText(e);
      if (!value || !internal::AddMatchValue(&m, *value)) {
        r->not_understood.push_back(absl::StrCat(m.text, " (value `", ExprText(e), "`)"));
        return;
      }
    }
    r->matches.push_back(std::move(m));
  }

  void Vmap(const json& v, Rule* r, std::vector<std::string>* text) {
    const json& key = v.value("key", json());
    const json& data = v.value("data", json());
    std::string what = absl::StrCat(ExprText(key), " vmap ", ExprText(data));
    firewall::Match m;
    m.text = absl::StrCat(ExprText(key), " vmap");
    std::vector<firewall::Match> implied;
    if (!Selector(key, &m, &implied) || KeyOf(data) != "set" || !data.begin().value().is_array()) {
      // A named map (`vmap @name`) or a key the model lacks.
      r->action = Action::kUnknown;
      r->not_understood.push_back(what);
      text->push_back(what);
      return;
    }
    std::vector<std::string> items;
    for (const json& kv : data.begin().value()) {
      Rule probe;
      if (!kv.is_array() || kv.size() != 2 || !SetVerdict(kv[1], &probe)) {
        r->action = Action::kUnknown;
        r->not_understood.push_back(absl::StrCat(what, " (element ", kv.dump(), ")"));
        vmap_.clear();
        text->push_back(what);
        return;
      }
      firewall::Match km = m;
      std::optional<std::string> value = ValueText(kv[0]);
      if (!value || !internal::AddMatchValue(&km, *value)) {
        r->action = Action::kUnknown;
        r->not_understood.push_back(absl::StrCat(what, " (key `", ExprText(kv[0]), "`)"));
        vmap_.clear();
        text->push_back(what);
        return;
      }
      items.push_back(absl::StrCat(ExprText(kv[0]), " : ", VerdictText(KeyOf(kv[1]), kv[1].begin().value())));
      vmap_.emplace_back(std::move(km), kv[1]);
    }
    for (firewall::Match& p : implied) r->matches.push_back(std::move(p));
    text->push_back(absl::StrCat(ExprText(key), " vmap { ", absl::StrJoin(items, ", "), " }"));
  }

  Ruleset rs_;
  size_t index_ = 0;
  std::vector<std::pair<firewall::Match, json>> vmap_;  // of the rule being read
};

}  // namespace

bool IsNftJson(absl::string_view text) {
  for (char c : text) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) continue;
    return c == '{';
  }
  return false;
}

absl::StatusOr<Ruleset> ParseNftJson(absl::string_view text, absl::string_view file) {
  try {
    return Reader(file).Run(text);
  } catch (const nlohmann::json::exception& e) {
    // A value of an unexpected type deep in a rule (the reader checks types,
    // this is the backstop): named, never a crash.
    return absl::InvalidArgumentError(absl::StrCat(file, ": unexpected JSON (", e.what(), ")"));
  }
}

absl::StatusOr<Ruleset> ParseNftListing(absl::string_view text, absl::string_view file) {
  return IsNftJson(text) ? ParseNftJson(text, file) : ParseNftRuleset(text, file);
}

}  // namespace rdmacheck::firewall
