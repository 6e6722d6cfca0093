// Evaluate: what the rulesets of a host do to one packet, walking netfilter's
// order: every base chain of the packet's path (prerouting then input for a
// packet arriving; output then postrouting for one this host sends;
// prerouting, forward, postrouting for one passing through) of its
// family (tables ip/ip6/inet), by hook then priority, across all rulesets
// (nft, iptables-nft, iptables-legacy): an accept ends one base chain, a drop
// or reject in any of them ends the packet. Jumps, gotos, returns and
// policies as the kernel applies them. The packet's mark follows the rules
// that set it, nat chains' included (a new flow passes them, and kube-proxy
// marks there what its filter rules then drop).
//
//   Packet p = RocePacket("va", "198.18.0.1");      // UDP to 4791, ct new
//   Packet q = RoceOutPacket("va", "198.18.0.1");   // sent from it to a peer's 4791
//   Packet f = RoceFwdPacket("br0", "br0", 4);      // bridged between br0's ports
//   Outcome o = Evaluate({nft_rs, legacy_rs}, p);
//   if (o.fate != Fate::kAccepted) print(o.decided_by->Where(), o.decided_by->text);
//
// A rule the readers did not understand may or may not match: the evaluator
// assumes it does not, and lists it in Outcome::uncertain when it could have
// changed the fate (a terminal verdict or a jump), so a caller can say WARN.
#ifndef RDMACHECK_FACTS_FIREWALL_EVALUATE_H_
#define RDMACHECK_FACTS_FIREWALL_EVALUATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts/firewall/ruleset.h"

namespace rdmacheck::firewall {

// kFwd: passing through this host (prerouting, forward, postrouting): routed
// between two netdevs, or bridged between a bridge's ports when br_netfilter
// hands bridged IP to the ip hooks (then iif and oif are both the bridge).
enum class Direction { kIn, kOut, kFwd };

struct Packet {
  Direction dir = Direction::kIn;
  int family = 4;             // 4 or 6
  std::string iif;            // input interface (kIn, kFwd)
  std::string oif;            // output interface (kOut, kFwd)
  std::string daddr;          // destination address (no prefix); empty: unknown (any peer)
  std::string saddr;          // empty: unknown (any peer)
  int l4proto = 17;
  int dport = 4791;
  // rxe picks its UDP source port per QP in 0xC000..0xFFFF (RXE_ROCE_V2_SPORT
  // plus a hash of the QP number, drivers/infiniband/sw/rxe/rxe_qp.c).
  int sport_lo = 49152, sport_hi = 65535;
  std::string ct_state = "new";  // the first packet of a flow
  // The packet's mark (skb->mark): 0 off the wire and from rxe's kernel UDP
  // socket; rules change it on the way (iptables -j MARK, nft meta mark
  // set). Bits of mark_unknown may be anything.
  uint32_t mark = 0;
  uint32_t mark_unknown = 0;
};

// A RoCE v2 packet arriving on `iif` for `daddr` (family from the address).
Packet RocePacket(const std::string& iif, const std::string& daddr);
// A RoCE v2 packet this host sends out of `oif` from `saddr` to a peer (any
// peer: its address unknown). Requests, ACKs and RDMA READ responses all go
// to UDP 4791 (the IBTA RoCEv2 annex; rxe_net.c prepare_udp_hdr), so one
// blocked direction stops both.
Packet RoceOutPacket(const std::string& oif, const std::string& saddr);
// A RoCE v2 packet forwarded from `iif` to `oif` (family 4 or 6), between
// two peers this host does not know the addresses of.
Packet RoceFwdPacket(const std::string& iif, const std::string& oif, int family);

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
  int line = 0;        // line of the dump; 0 when it has none (nft -j)
  int handle = 0;      // nft's handle of the rule or chain, where known
  std::string text;    // the rule, or "policy drop"
  // "nft table inet filter chain input rule 2 (line 5)" / "... policy drop (line 3)";
  // from nft -j: "... rule 2 (handle 7)"
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
  // The packet reached the end of a chain the dump cut short (Chain::cut):
  // the rules after the cut could have decided otherwise, so a fate decided
  // after that point (a policy, a later rule) is not certain.
  bool cut = false;
  // Base chains walked, in order, each "SOURCE FAMILY TABLE CHAIN: fate".
  std::vector<std::string> walked;
  // Tables skipped: nft copies of iptables-nft tables, other families.
  std::vector<std::string> skipped;
  // The rules that changed the packet's mark on its way, in order, each
  // "WHERE: `rule`": what a mark match that decided refers to.
  std::vector<std::string> marked_by;
  // Rules looked at: each chain is walked once per packet, so at most the
  // rules of the tables walked, however their chains jump to each other.
  uint64_t rules_examined = 0;
};

Outcome Evaluate(const std::vector<Ruleset>& rulesets, const Packet& p);

}  // namespace rdmacheck::firewall

#endif  // RDMACHECK_FACTS_FIREWALL_EVALUATE_H_
