// Helpers shared by the two ruleset readers. Not part of the public surface.
#ifndef RDMACHECK_FACTS_FIREWALL_INTERNAL_H_
#define RDMACHECK_FACTS_FIREWALL_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "facts/firewall/ruleset.h"

namespace rdmacheck::firewall::internal {

// "udp" -> "17", "ipv6-icmp"/"icmpv6" -> "58", "17" -> "17"; nullopt when unknown.
std::optional<std::string> ProtoNumber(absl::string_view name);
// "4791" -> {4791,4791}, "4000-5000" or "4000:5000" -> {4000,5000}; nullopt otherwise.
std::optional<std::pair<int, int>> PortRange(absl::string_view s);
// A port comparison as the ports it holds: ("<", "1024") -> {0,1023};
// also <=, >, >= and nft's lt, le, gt, ge. nullopt for other operators.
std::optional<std::pair<int, int>> PortComparison(absl::string_view op, absl::string_view value);
// A mark as nft and iptables print it: "0x00008000", "0x8000", "32768".
std::optional<uint32_t> MarkNumber(absl::string_view s);
// iptables' "0x8000/0x8000" (value/mask) or "0x10" (mask all ones).
std::optional<std::pair<uint32_t, uint32_t>> MarkAndMask(absl::string_view s);

// nft's `meta mark set meta mark OP N` (OP "|", "&", "^"; "" for
// `meta mark set N`) as the kernel applies it: (mark & ~mask) ^ value.
MarkSet MarkOp(absl::string_view op, uint32_t n, std::string text);

// "10.0.0.0/8", "198.18.0.1" (-> "/32"), "fe80::/64"; sets *family. nullopt
// when not an address of either family.
std::optional<std::string> Cidr(absl::string_view s, int* family);
// Whether address `addr` (no prefix) lies in `cidr`. Family mismatch: false.
bool InCidr(absl::string_view addr, absl::string_view cidr);

// Adds one value of a match, normalised for its field (a protocol name to
// its number, a port or range, an address of the match's family, a ct state
// in lower case). False when the value does not fit the field.
bool AddMatchValue(Match* m, const std::string& value);

// After a whole dump, for both nft readers: every jump and goto names a chain
// of the table (else `err(rule, what)` is returned), every @set exists, and
// each @set reference takes the set's elements as its values (elements that
// do not fit, or a set not understood, make the rule "may match").
// `cut`: the dump ends inside this table, so a chain or set defined after
// the cut is missing: a rule naming one is kept as "may match" (its
// not_understood says why) instead of an error.
absl::Status ResolveReferences(Table* t,
                               absl::FunctionRef<absl::Status(const Rule&, absl::string_view)> err,
                               bool cut = false);

}  // namespace rdmacheck::firewall::internal

#endif  // RDMACHECK_FACTS_FIREWALL_INTERNAL_H_
