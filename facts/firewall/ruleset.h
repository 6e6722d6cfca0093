// The firewall model the readers produce and the evaluator walks: tables of
// chains of rules, each rule a list of matches and one action. Both readers
// (nft_json.h for `nft -j list ruleset`, nft_ruleset.h for its text,
// iptables_save.h for `iptables-save`)
// fill it; evaluate.h decides what happens to one packet.
//
//   absl::StatusOr<Ruleset> rs = ParseNftRuleset(text, "nft");
//   for (const Table& t : rs->tables)
//     for (const Chain& c : t.chains)
//       if (c.base && c.hook == "input") ...;
#ifndef RDMACHECK_FACTS_FIREWALL_RULESET_H_
#define RDMACHECK_FACTS_FIREWALL_RULESET_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck::firewall {

// One condition of a rule. Values are normalised: interface wildcards end in
// '*' (iptables' '+' too), protocols are numbers ("17"), addresses CIDR text.
struct Match {
  enum class Field {
    kIifname, kOifname, kL4proto, kDport, kSport, kPorts /* either port */,
    kSaddr, kDaddr, kCtState, kCtStatus, kNfproto, kDstType,
    kMark,  // the packet's mark: (mark & mark_mask) is one of values (decimal)
  };
  Field field = Field::kIifname;
  bool negate = false;
  int family = 0;                         // kSaddr/kDaddr: 4 or 6
  std::vector<std::string> values;
  std::vector<std::pair<int, int>> ports; // inclusive ranges
  uint32_t mark_mask = 0xffffffff;        // kMark: `--mark V/M`, `meta mark & M == V`
  std::string set_ref;                    // nft "@name", resolved by the reader
  std::string text;                       // as written, for evidence
};

// What a rule does to the packet's mark when it matches, as the kernel's
// xt_MARK and nft's meta mark set do: mark = (mark & ~mask) ^ value.
// `known` false: set from something the model does not follow (ct mark,
// CONNMARK --restore-mark, an opaque xt target): the bits of `mask` become
// unknown.
struct MarkSet {
  uint32_t mask = 0xffffffff;
  uint32_t value = 0;
  bool known = true;
  std::string text;  // as written, for evidence
};

// kQueue: handed to a userspace program (nft `queue`, iptables NFQUEUE,
// QUEUE), whose verdict decides: OpenSnitch, Suricata in IPS mode.
enum class Action { kNone, kAccept, kDrop, kReject, kJump, kGoto, kReturn, kContinue, kQueue, kUnknown };
absl::string_view ActionName(Action a);  // "accept", "drop", ...

struct Rule {
  int line = 0;      // line of the dump, 1-based; 0 for JSON (see handle)
  int handle = 0;    // nft's rule handle, where the dump gives it (nft -j, nft -a)
  int position = 0;  // 1-based within its chain
  std::string text;  // the rule as written, trimmed
  std::vector<Match> matches;
  Action action = Action::kNone;
  std::string target;  // chain of a jump/goto
  std::optional<MarkSet> mark_set;
  // Parts the reader did not understand; the rule then may or may not match.
  std::vector<std::string> not_understood;
};

struct Chain {
  std::string name;
  int line = 0;
  int handle = 0;        // nft's chain handle (nft -j)
  bool base = false;     // hooked into netfilter (nft "type ... hook ..."; iptables built-ins)
  std::string type;      // "filter", "nat", "route"
  std::string hook;      // "input", "prerouting", ...
  int priority = 0;
  std::string policy;    // "accept" | "drop" (base chains)
  std::vector<Rule> rules;
  // The dump ends inside this chain (Ruleset::incomplete): rules after the
  // last one read are unknown, so reaching its end decides nothing for sure.
  bool cut = false;
};

struct Set {
  std::string name;
  std::vector<std::string> elements;         // addresses, names, protocols
  std::vector<std::pair<int, int>> ports;    // numeric elements
  bool understood = true;
};

struct Table {
  std::string family;  // "ip", "ip6", "inet", "arp", "bridge", "netdev"
  std::string name;
  int line = 0;
  // nft printed "# Warning: table ... is managed by iptables-nft": the same
  // rules come from iptables-nft-save, read there.
  bool iptables_managed = false;
  std::vector<Chain> chains;
  std::map<std::string, Set> sets;
  const Chain* FindChain(absl::string_view name) const;
};

struct Ruleset {
  std::string source;  // "nft", "iptables-nft", "iptables-legacy", "ip6tables-nft", ...
  std::string file;    // name used in errors and evidence
  std::vector<Table> tables;
  std::vector<std::string> notes;  // what was skipped (maps, flowtables, ...)
  // Non-empty when the dump was cut short and read up to a point: what is
  // missing. Rules past that point are unknown, so nothing read can show
  // that a packet is accepted.
  std::string incomplete;
};

}  // namespace rdmacheck::firewall

#endif  // RDMACHECK_FACTS_FIREWALL_RULESET_H_
