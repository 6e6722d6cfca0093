// firewall-4791: inbound RoCE v2 (UDP 4791) on each rxe device's netdev is
// accepted by every firewall ruleset of the host (nftables, iptables-nft,
// iptables-legacy, ip6tables; ufw and firewalld chains included), and the
// kernel's UDP 4791 socket that rdma_rxe opens exists. Rulesets are read by
// firewall/ and walked by firewall::Evaluate. Doc: docs/checks/firewall-4791.md
#ifndef RDMACHECK_CHECKS_FIREWALL_4791_H_
#define RDMACHECK_CHECKS_FIREWALL_4791_H_

#include "checks/check.h"

namespace rdmacheck {

class Firewall4791Check : public Check {
 public:
  absl::string_view id() const override { return "firewall-4791"; }
  absl::string_view summary() const override {
    return "Host firewalls pass RoCE v2 (UDP 4791) in and out of each rxe netdev; rxe's UDP socket exists";
  }
  unsigned needs() const override { return kNeedsRulesets; }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_FIREWALL_4791_H_
