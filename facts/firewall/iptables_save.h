// ParseIptablesSave: reads `iptables-save` / `ip6tables-save` text (either
// backend, with or without -c counters) into a firewall::Ruleset whose
// tables are family "ip" (family 4) or "ip6" (family 6).
//
//   absl::StatusOr<Ruleset> rs = ParseIptablesSave(text, "iptables-legacy", 4);
//
// Built-in chains become base chains at their netfilter hook and the
// priority of their table (raw -300, mangle -150, filter 0, security 50).
// Understood in rules: [!] -i/-o/-p/-s/-d, -m udp/tcp --dport/--sport,
// -m multiport --dports/--sports/--ports, -m conntrack --ctstate, -m state
// --state, -m addrtype --dst-type, -m comment, -j ACCEPT/DROP/REJECT/RETURN,
// LOG and other non-terminating targets, user chains, -g. Other matches are
// kept in Rule::not_understood. Structural errors (a rule outside a table,
// -A to an undeclared chain, a jump to an undeclared chain, a missing COMMIT,
// a bad policy, an option without its value) are InvalidArgument
// "FILE:LINE: what".
#ifndef RDMACHECK_FACTS_FIREWALL_IPTABLES_SAVE_H_
#define RDMACHECK_FACTS_FIREWALL_IPTABLES_SAVE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/firewall/ruleset.h"

namespace rdmacheck::firewall {

// family: 4 for iptables, 6 for ip6tables.
absl::StatusOr<Ruleset> ParseIptablesSave(absl::string_view text, absl::string_view file,
                                          int family);

}  // namespace rdmacheck::firewall

#endif  // RDMACHECK_FACTS_FIREWALL_IPTABLES_SAVE_H_
