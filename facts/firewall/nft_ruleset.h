// ParseNftRuleset: reads the text of `nft list ruleset` (also with -a: the
// handles go to Rule::handle and Chain::handle) into a firewall::Ruleset.
// The gather reads `nft -j` (nft_json.h); this reader is for pasted text.
//
//   absl::StatusOr<Ruleset> rs = ParseNftRuleset(text, "nft list ruleset");
//   // rs->tables[0].chains[0].rules[0].action == Action::kDrop
//
// Understood: tables, base chains (`type filter hook input priority
// filter + 10; policy drop;`), named sets with literal elements, and in rules
// iifname/oifname/iif/oif, meta l4proto/nfproto, ip protocol, ip6 nexthdr,
// udp/tcp/th/sctp dport and sport (N, N-M, {set}, @set, !=), ip/ip6
// saddr/daddr with prefixes, ct state, ct status, counter, log, comment and
// the verdicts accept, drop, reject [with ...], jump, goto, return, continue.
// Any other expression is kept in Rule::not_understood (the rule is then
// "may match"), never dropped silently. Structural errors (unbalanced braces,
// a rule outside a chain, a bad hook line, a jump to a chain or a reference to
// a set that the table does not define, an unterminated string) are
// InvalidArgument "FILE:LINE: what".
#ifndef RDMACHECK_FACTS_FIREWALL_NFT_RULESET_H_
#define RDMACHECK_FACTS_FIREWALL_NFT_RULESET_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/firewall/ruleset.h"

namespace rdmacheck::firewall {

absl::StatusOr<Ruleset> ParseNftRuleset(absl::string_view text, absl::string_view file);

}  // namespace rdmacheck::firewall

#endif  // RDMACHECK_FACTS_FIREWALL_NFT_RULESET_H_
