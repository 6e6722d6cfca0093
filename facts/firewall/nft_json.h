// ParseNftJson: reads `nft -j list ruleset` (the JSON interface of
// libnftables-json(5)) into a firewall::Ruleset, the same model the text
// reader (nft_ruleset.h) fills. The gather runs `nft -j`; the text reader is
// kept for pasted rulesets and older profiles. ParseNftListing takes either.
//
//   absl::StatusOr<Ruleset> rs = ParseNftListing(text, "nft");
//   // rs->tables[0].chains[0].rules[0].handle == 4, .text == "udp dport 4791 drop"
//
// Understood, as in the text reader (the two give one model, and the same
// verdicts, for one ruleset; nft_json_test checks that on every fixture): tables, base chains (type, hook, prio,
// policy), named sets (literal elements, ranges, prefixes), and in rules
// `match` statements on meta iifname/oifname/iif/oif/l4proto/nfproto, payload
// ip/ip6 saddr/daddr/protocol/nexthdr and udp/tcp/th/sctp/dccp/udplite
// dport/sport (values, sets, @sets, ranges, prefixes, ==, !=, in, and <, <=,
// >, >= on ports), ct state/status; counter, log, comment,
// and the verdicts, anonymous verdict maps included. Anything else stays in
// Rule::not_understood (the rule may match); an `xt` (iptables-nft compat)
// expression marks its table as iptables-managed.
//
// Rules have no line: Rule::line is 0 and Rule::handle names them, as
// `nft -a list ruleset` and `nft delete rule ... handle N` do. Rule::text is
// the rule written in nft's syntax as far as understood.
//
// Errors are InvalidArgument "FILE: what" naming the object
// ("nftables[12] (rule inet filter input handle 7)"). A document cut short
// (a truncated paste) is read up to its last complete object, and
// Ruleset::incomplete says where it stops.
#ifndef RDMACHECK_FACTS_FIREWALL_NFT_JSON_H_
#define RDMACHECK_FACTS_FIREWALL_NFT_JSON_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/firewall/ruleset.h"

namespace rdmacheck::firewall {

absl::StatusOr<Ruleset> ParseNftJson(absl::string_view text, absl::string_view file);

// Whether `text` is nft's JSON (its first non-blank character is '{').
bool IsNftJson(absl::string_view text);

// ParseNftJson for JSON, ParseNftRuleset for text.
absl::StatusOr<Ruleset> ParseNftListing(absl::string_view text, absl::string_view file);

}  // namespace rdmacheck::firewall

#endif  // RDMACHECK_FACTS_FIREWALL_NFT_JSON_H_
