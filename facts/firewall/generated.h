// Rulesets of a chosen scale, shaped as generated rulesets are (kube-proxy,
// CNI plugins): layers of chains, each jumping to two shared chains of the
// next layer, so that the number of paths through them grows as 2^layers
// while the number of rules grows as layers x width. For the evaluator's
// tests and benchmark (bench/firewall_eval).
#ifndef RDMACHECK_FACTS_FIREWALL_GENERATED_H_
#define RDMACHECK_FACTS_FIREWALL_GENERATED_H_

#include <string>

namespace rdmacheck::firewall {

struct GeneratedShape {
  int layers = 10;           // chains nest this deep below INPUT
  int width = 100;           // chains per layer
  int rules_per_chain = 20;  // of which two jump on (none in the last layer)
};

// The filter table as `iptables-save` prints it, and as `nft list ruleset`
// prints the same rules. INPUT jumps to every chain of the first layer and
// ends with a drop of UDP 4791, which decides a RoCE v2 packet: no rule of
// the layers matches it for good (TCP drops, and UDP jumps that return).
std::string GeneratedIptablesSave(const GeneratedShape& shape);
std::string GeneratedNftRuleset(const GeneratedShape& shape);

// Rules in either form (INPUT's included).
int GeneratedRuleCount(const GeneratedShape& shape);

}  // namespace rdmacheck::firewall

#endif  // RDMACHECK_FACTS_FIREWALL_GENERATED_H_
