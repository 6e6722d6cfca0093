// Helpers shared by the two ruleset readers. Not part of the public surface.
#ifndef RDMACHECK_FACTS_FIREWALL_INTERNAL_H_
#define RDMACHECK_FACTS_FIREWALL_INTERNAL_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck::firewall::internal {

// "udp" -> "17", "ipv6-icmp"/"icmpv6" -> "58", "17" -> "17"; nullopt when unknown.
std::optional<std::string> ProtoNumber(absl::string_view name);
// "4791" -> {4791,4791}, "4000-5000" or "4000:5000" -> {4000,5000}; nullopt otherwise.
std::optional<std::pair<int, int>> PortRange(absl::string_view s);
// "10.0.0.0/8", "198.18.0.1" (-> "/32"), "fe80::/64"; sets *family. nullopt
// when not an address of either family.
std::optional<std::string> Cidr(absl::string_view s, int* family);
// Whether address `addr` (no prefix) lies in `cidr`. Family mismatch: false.
bool InCidr(absl::string_view addr, absl::string_view cidr);

}  // namespace rdmacheck::firewall::internal

#endif  // RDMACHECK_FACTS_FIREWALL_INTERNAL_H_
