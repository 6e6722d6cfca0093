// Test helpers of the firewall package: read a fixture ruleset.
#ifndef RDMACHECK_FACTS_FIREWALL_TEST_UTIL_H_
#define RDMACHECK_FACTS_FIREWALL_TEST_UTIL_H_

#include <fstream>
#include <sstream>
#include <string>

namespace rdmacheck::firewall::testing {

inline std::string Fixture(const std::string& name) {
  std::ifstream in("fixtures/rulesets/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace rdmacheck::firewall::testing

#endif  // RDMACHECK_FACTS_FIREWALL_TEST_UTIL_H_
