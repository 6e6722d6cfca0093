#include "facts/firewall/ruleset.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "facts/firewall/internal.h"

namespace rdmacheck::firewall {

absl::string_view ActionName(Action a) {
  switch (a) {
    case Action::kNone: return "none";
    case Action::kAccept: return "accept";
    case Action::kDrop: return "drop";
    case Action::kReject: return "reject";
    case Action::kJump: return "jump";
    case Action::kGoto: return "goto";
    case Action::kReturn: return "return";
    case Action::kContinue: return "continue";
    case Action::kQueue: return "queue";
    case Action::kUnknown: return "unknown";
  }
  return "unknown";
}

const Chain* Table::FindChain(absl::string_view name) const {
  for (const Chain& c : chains)
    if (c.name == name) return &c;
  return nullptr;
}

namespace internal {

std::optional<std::string> ProtoNumber(absl::string_view name) {
  static const std::pair<const char*, int> kProtos[] = {
      {"icmp", 1}, {"igmp", 2}, {"tcp", 6}, {"udp", 17}, {"gre", 47}, {"esp", 50},
      {"ah", 51}, {"icmpv6", 58}, {"ipv6-icmp", 58}, {"sctp", 132}, {"dccp", 33},
      {"udplite", 136}};
  std::string lower = absl::AsciiStrToLower(name);
  for (const auto& [n, v] : kProtos)
    if (lower == n) return std::to_string(v);
  int v = 0;
  if (absl::SimpleAtoi(name, &v) && v >= 0 && v <= 255) return std::to_string(v);
  return std::nullopt;
}

std::optional<std::pair<int, int>> PortRange(absl::string_view s) {
  size_t sep = s.find_first_of("-:");
  int lo = 0, hi = 0;
  if (sep == absl::string_view::npos) {
    if (!absl::SimpleAtoi(s, &lo) || lo < 0 || lo > 65535) return std::nullopt;
    return std::make_pair(lo, lo);
  }
  absl::string_view a = s.substr(0, sep), b = s.substr(sep + 1);
  // iptables allows an open end: ":1024" and "1024:".
  if (a.empty()) a = "0";
  if (b.empty()) b = "65535";
  if (!absl::SimpleAtoi(a, &lo) || !absl::SimpleAtoi(b, &hi) || lo < 0 || hi > 65535 || lo > hi)
    return std::nullopt;
  return std::make_pair(lo, hi);
}

std::optional<uint32_t> MarkNumber(absl::string_view s) {
  uint32_t v = 0;
  if (absl::StartsWithIgnoreCase(s, "0x")) {
    if (s.size() > 10 || !absl::SimpleHexAtoi(s.substr(2), &v)) return std::nullopt;
    return v;
  }
  if (!absl::SimpleAtoi(s, &v)) return std::nullopt;
  return v;
}

std::optional<std::pair<uint32_t, uint32_t>> MarkAndMask(absl::string_view s) {
  size_t slash = s.find('/');
  std::optional<uint32_t> v = MarkNumber(s.substr(0, slash));
  if (!v) return std::nullopt;
  if (slash == absl::string_view::npos) return std::make_pair(*v, 0xffffffffu);
  std::optional<uint32_t> m = MarkNumber(s.substr(slash + 1));
  if (!m) return std::nullopt;
  return std::make_pair(*v, *m);
}

MarkSet MarkOp(absl::string_view op, uint32_t n, std::string text) {
  if (op == "|" || op == "or") return {n, n, true, std::move(text)};
  if (op == "&" || op == "and") return {~n, 0, true, std::move(text)};
  if (op == "^" || op == "xor") return {0, n, true, std::move(text)};
  return {0xffffffff, n, true, std::move(text)};
}

namespace {
bool ParseAddr(absl::string_view s, int* family, unsigned char out[16]) {
  std::string str(s);
  if (inet_pton(AF_INET, str.c_str(), out) == 1) {
    *family = 4;
    return true;
  }
  if (inet_pton(AF_INET6, str.c_str(), out) == 1) {
    *family = 6;
    return true;
  }
  return false;
}

// iptables-save writes masks as prefixes, but accept dotted masks too.
std::optional<int> MaskBits(absl::string_view m, int family) {
  int bits = 0;
  if (absl::SimpleAtoi(m, &bits)) {
    if (bits < 0 || bits > (family == 4 ? 32 : 128)) return std::nullopt;
    return bits;
  }
  unsigned char b[16];
  int f = 0;
  if (!ParseAddr(m, &f, b) || f != family) return std::nullopt;
  int n = 0;
  bool zero_seen = false;
  for (int i = 0; i < (family == 4 ? 4 : 16); ++i) {
    for (int k = 7; k >= 0; --k) {
      bool one = (b[i] >> k) & 1;
      if (one && zero_seen) return std::nullopt;
      if (one) ++n; else zero_seen = true;
    }
  }
  return n;
}
}  // namespace

std::optional<std::string> Cidr(absl::string_view s, int* family) {
  size_t slash = s.find('/');
  absl::string_view addr = s.substr(0, slash);
  unsigned char b[16];
  if (!ParseAddr(addr, family, b)) return std::nullopt;
  int bits = *family == 4 ? 32 : 128;
  if (slash != absl::string_view::npos) {
    std::optional<int> m = MaskBits(s.substr(slash + 1), *family);
    if (!m) return std::nullopt;
    bits = *m;
  }
  return absl::StrCat(addr, "/", bits);
}

bool InCidr(absl::string_view addr, absl::string_view cidr) {
  size_t slash = cidr.find('/');
  if (slash == absl::string_view::npos) return false;
  unsigned char a[16] = {0}, n[16] = {0};
  int fa = 0, fn = 0;
  if (!ParseAddr(addr, &fa, a) || !ParseAddr(cidr.substr(0, slash), &fn, n) || fa != fn)
    return false;
  int bits = 0;
  if (!absl::SimpleAtoi(cidr.substr(slash + 1), &bits)) return false;
  for (int i = 0; i < bits; ++i) {
    int byte = i / 8, bit = 7 - i % 8;
    if (((a[byte] >> bit) & 1) != ((n[byte] >> bit) & 1)) return false;
  }
  return true;
}

std::optional<std::pair<int, int>> PortComparison(absl::string_view op, absl::string_view value) {
  int n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 0 || n > 65535) return std::nullopt;
  if (op == "<" || op == "lt") return std::make_pair(0, n - 1);
  if (op == "<=" || op == "le") return std::make_pair(0, n);
  if (op == ">" || op == "gt") return std::make_pair(n + 1, 65535);
  if (op == ">=" || op == "ge") return std::make_pair(n, 65535);
  return std::nullopt;
}

bool AddMatchValue(Match* m, const std::string& s) {
  switch (m->field) {
    case Match::Field::kIifname:
    case Match::Field::kOifname:
      m->values.push_back(s);
      return true;
    case Match::Field::kL4proto: {
      std::optional<std::string> p = ProtoNumber(s);
      if (!p) return false;
      m->values.push_back(*p);
      return true;
    }
    case Match::Field::kDport:
    case Match::Field::kSport: {
      std::optional<std::pair<int, int>> r = PortRange(s);
      if (!r) return false;
      m->ports.push_back(*r);
      return true;
    }
    case Match::Field::kSaddr:
    case Match::Field::kDaddr: {
      int f = 0;
      std::optional<std::string> c = Cidr(s, &f);
      if (!c || f != m->family) return false;
      m->values.push_back(*c);
      return true;
    }
    case Match::Field::kCtState:
    case Match::Field::kCtStatus:
    case Match::Field::kNfproto:
      m->values.push_back(absl::AsciiStrToLower(s));
      return true;
    case Match::Field::kDstType:  // as iptables' --dst-type spells them: LOCAL
      m->values.push_back(absl::AsciiStrToUpper(s));
      return true;
    case Match::Field::kMark: {
      std::optional<uint32_t> v = MarkNumber(s);
      if (!v) return false;
      m->values.push_back(std::to_string(*v));
      return true;
    }
    default:
      return false;
  }
}

absl::Status ResolveReferences(Table* t,
                               absl::FunctionRef<absl::Status(const Rule&, absl::string_view)> err,
                               bool cut) {
  for (Chain& c : t->chains) {
    for (Rule& r : c.rules) {
      if ((r.action == Action::kJump || r.action == Action::kGoto) && t->FindChain(r.target) == nullptr) {
        if (!cut)
          return err(r, absl::StrCat(ActionName(r.action), " to chain ", r.target, " which table ",
                                     t->family, " ", t->name, " does not define"));
        r.not_understood.push_back(absl::StrCat(ActionName(r.action), " to chain ", r.target,
                                                ", which the cut dump does not reach"));
      }
      for (Match& m : r.matches) {
        if (m.set_ref.empty()) continue;
        auto it = t->sets.find(m.set_ref);
        if (it == t->sets.end() && cut) {
          r.not_understood.push_back(absl::StrCat(m.text, " (set not in the cut dump)"));
          continue;
        }
        if (it == t->sets.end())
          return err(r, absl::StrCat("set @", m.set_ref, " is not defined in table ", t->family, " ",
                                     t->name));
        if (!it->second.understood) {
          r.not_understood.push_back(absl::StrCat(m.text, " (set elements not understood)"));
          continue;
        }
        std::string bad;
        for (const std::string& e : it->second.elements)
          if (!AddMatchValue(&m, e)) bad = e;
        if (!bad.empty()) r.not_understood.push_back(absl::StrCat(m.text, " (set element `", bad, "`)"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace rdmacheck::firewall
