// Evaluate: what the rulesets of a host do to one inbound packet, walking
// netfilter's order: every base chain on the prerouting and input hooks of
// the packet's family (tables ip/ip6/inet), by hook then priority, across all
// rulesets (nft, iptables-nft, iptables-legacy): an accept ends one base
// chain, a drop or reject in any of them ends the packet. Jumps, gotos,
// returns and policies as the kernel applies them.
//
//   Packet p = RocePacket("va", "198.18.0.1");      // UDP to 4791, ct new
//   Outcome o = Evaluate({nft_rs, legacy_rs}, p);
//   if (o.fate != Fate::kAccepted) print(o.decided_by->Where(), o.decided_by->text);
//
// A rule the readers did not understand may or may not match: the evaluator
// assumes it does not, and lists it in Outcome::uncertain when it could have
// changed the fate (a terminal verdict or a jump), so a caller can say WARN.
#ifndef RDMACHECK_FACTS_FIREWALL_EVALUATE_H_
#define RDMACHECK_FACTS_FIREWALL_EVALUATE_H_

#include <optional>
#include <string>
#include <vector>

#include "facts/firewall/ruleset.h"

namespace rdmacheck::firewall {

struct Packet {
  int family = 4;             // 4 or 6
  std::string iif;            // input interface
  std::string daddr;          // destination address (no prefix)
  std::string saddr;          // empty: unknown (any peer)
  int l4proto = 17;
  int dport = 4791;
  // rxe picks its UDP source port per QP in 0xC000..0xFFFF (RXE_ROCE_V2_SPORT
  // plus a hash of the QP number, drivers/infiniband/sw/rxe/rxe_qp.c).
  int sport_lo = 49152, sport_hi = 65535;
  std::string ct_state = "new";  // the first packet of a flow
};

// A RoCE v2 packet arriving on `iif` for `daddr` (family from the address).
Packet RocePacket(const std::string& iif, const std::string& daddr);

enum class Tri { kNo, kYes, kMaybe };
// Whether one match holds for the packet.
Tri Matches(const Match& m, const Packet& p);

enum class Fate { kAccepted, kDropped, kRejected };
absl::string_view FateName(Fate f);  // "accepted", "dropped", "rejected"

// Where a rule (or a chain's policy) sits, for evidence.
struct Place {
  std::string source;  // "nft", "iptables-legacy", ...
  std::string family;  // table family
  std::string table;
  std::string chain;
  int position = 0;    // 1-based rule number; 0 for the policy
  int line = 0;        // line of the dump
  std::string text;    // the rule, or "policy drop"
  // "nft table inet filter chain input rule 2 (line 5)" / "... policy drop (line 3)"
  std::string Where() const;
};

struct Outcome {
  Fate fate = Fate::kAccepted;
  // The rule or policy that dropped or rejected it; for an accept, the last
  // base chain's accepting rule or policy.
  std::optional<Place> decided_by;
  bool by_policy = false;
  // The base chain where it was decided (where an accept rule would go).
  std::optional<Place> base_chain;
  // Rules not understood that could have changed the fate, with why.
  std::vector<std::string> uncertain;
  // Base chains walked, in order, each "SOURCE FAMILY TABLE CHAIN: fate".
  std::vector<std::string> walked;
  // Tables skipped: nft copies of iptables-nft tables, other families.
  std::vector<std::string> skipped;
};

Outcome Evaluate(const std::vector<Ruleset>& rulesets, const Packet& p);

}  // namespace rdmacheck::firewall

#endif  // RDMACHECK_FACTS_FIREWALL_EVALUATE_H_
