#include "facts/firewall/nft_ruleset.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "facts/firewall/evaluate.h"
#include "facts/firewall/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck::firewall {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// One chain "c" in "table inet t" holding `rule`, as nft prints it.
std::string OneRule(const std::string& rule) {
  return absl::StrCat("table inet t {\n\tchain c {\n\t\ttype filter hook input priority filter; "
                      "policy accept;\n\t\t", rule, "\n\t}\n\tchain u {\n\t}\n",
                      "\tset s4 {\n\t\ttype ipv4_addr\n\t\telements = { 198.18.0.0/24 }\n\t}\n}\n");
}

struct FormCase {
  const char* rule;
  Action action;
  Tri on_roce;  // for UDP 4791 on va to 198.18.0.1, ct new
  const char* not_understood;  // substring, "" when fully understood
};

// Every rule form the reader understands, and what it does to RoCE v2 on va.
const FormCase kForms[] = {
    {"udp dport 4791 drop", Action::kDrop, Tri::kYes, ""},
    {"udp dport 4791 counter packets 3 bytes 180 drop", Action::kDrop, Tri::kYes, ""},
    {"udp dport != 4791 drop", Action::kDrop, Tri::kNo, ""},
    {"udp dport { 22, 4791 } accept", Action::kAccept, Tri::kYes, ""},
    {"udp dport 4000-5000 reject", Action::kReject, Tri::kYes, ""},
    {"udp dport 5000-6000 reject", Action::kReject, Tri::kNo, ""},
    {"th dport 4791 accept", Action::kAccept, Tri::kYes, ""},
    {"tcp dport 4791 drop", Action::kDrop, Tri::kNo, ""},
    {"udp sport 1-1023 drop", Action::kDrop, Tri::kNo, ""},
    {"udp sport 49152-65535 accept", Action::kAccept, Tri::kYes, ""},
    {"udp sport 50000 accept", Action::kAccept, Tri::kMaybe, ""},
    {"meta l4proto udp accept", Action::kAccept, Tri::kYes, ""},
    {"meta l4proto { tcp, udp } accept", Action::kAccept, Tri::kYes, ""},
    {"meta l4proto 17 accept", Action::kAccept, Tri::kYes, ""},
    {"ip protocol udp accept", Action::kAccept, Tri::kYes, ""},
    {"ip6 nexthdr udp accept", Action::kAccept, Tri::kNo, ""},
    {"meta nfproto ipv4 drop", Action::kDrop, Tri::kYes, ""},
    {"iifname \"va\" accept", Action::kAccept, Tri::kYes, ""},
    {"iifname \"v*\" accept", Action::kAccept, Tri::kYes, ""},
    {"iifname != \"va\" drop", Action::kDrop, Tri::kNo, ""},
    {"iifname { \"eth0\", \"eth1\" } drop", Action::kDrop, Tri::kNo, ""},
    {"iif \"va\" accept", Action::kAccept, Tri::kYes, ""},
    {"meta iifname \"va\" accept", Action::kAccept, Tri::kYes, ""},
    {"oifname \"eth0\" drop", Action::kDrop, Tri::kNo, ""},
    {"ip daddr 198.18.0.1 drop", Action::kDrop, Tri::kYes, ""},
    {"ip daddr 198.18.0.0/15 drop", Action::kDrop, Tri::kYes, ""},
    {"ip daddr != 198.18.0.0/15 drop", Action::kDrop, Tri::kNo, ""},
    {"ip daddr @s4 drop", Action::kDrop, Tri::kYes, ""},
    {"ip saddr 10.0.0.0/8 accept", Action::kAccept, Tri::kMaybe, ""},
    {"ip saddr 0.0.0.0/0 accept", Action::kAccept, Tri::kYes, ""},
    {"ip6 saddr fe80::/10 accept", Action::kAccept, Tri::kNo, ""},
    {"ip6 daddr 2001:db8::1 drop", Action::kDrop, Tri::kNo, ""},
    {"ct state established,related accept", Action::kAccept, Tri::kNo, ""},
    {"ct state { established, related } accept", Action::kAccept, Tri::kNo, ""},
    {"ct state new accept", Action::kAccept, Tri::kYes, ""},
    {"ct state invalid drop", Action::kDrop, Tri::kNo, ""},
    {"ct status dnat accept", Action::kAccept, Tri::kNo, ""},
    {"icmp type echo-request accept", Action::kAccept, Tri::kNo, "icmp type echo-request"},
    {"log prefix \"x: \" level info drop", Action::kDrop, Tri::kYes, ""},
    {"log", Action::kNone, Tri::kYes, ""},
    {"counter", Action::kNone, Tri::kYes, ""},
    {"udp dport 4791 accept comment \"RoCE v2\"", Action::kAccept, Tri::kYes, ""},
    {"reject with icmpx admin-prohibited", Action::kReject, Tri::kYes, ""},
    {"reject with icmp type port-unreachable", Action::kReject, Tri::kYes, ""},
    {"reject with tcp reset", Action::kReject, Tri::kYes, ""},
    {"jump u", Action::kJump, Tri::kYes, ""},
    {"goto u", Action::kGoto, Tri::kYes, ""},
    {"return", Action::kReturn, Tri::kYes, ""},
    {"continue", Action::kContinue, Tri::kYes, ""},
    {"accept", Action::kAccept, Tri::kYes, ""},
    // Not understood: kept, and the rule becomes "may match".
    {"fib daddr type local drop", Action::kDrop, Tri::kMaybe, "fib daddr type local"},
    {"limit rate over 10/second drop", Action::kDrop, Tri::kMaybe, "limit rate over 10/second"},
    {"meta pkttype host udp dport 4791 drop", Action::kDrop, Tri::kMaybe, "meta pkttype host"},
    {"udp dport ssh drop", Action::kDrop, Tri::kMaybe, "value `ssh`"},
    {"ip saddr 10.0.0.1-10.0.0.9 drop", Action::kDrop, Tri::kMaybe, "10.0.0.1-10.0.0.9"},
    // A netfilter queue: the userspace program's verdict decides (evaluate).
    {"queue", Action::kQueue, Tri::kYes, ""},
    {"ct state related,new queue num 0 bypass", Action::kQueue, Tri::kYes, ""},
    {"udp dport 4791 queue flags bypass,fanout to 2-3", Action::kQueue, Tri::kYes, ""},
};

class NftFormTest : public ::testing::TestWithParam<FormCase> {};

TEST_P(NftFormTest, ReadsTheRuleAndMatchesRoce) {
  const FormCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset(OneRule(c.rule), "one.nft"));
  ASSERT_EQ(rs.tables.size(), 1u);
  const Chain* chain = rs.tables[0].FindChain("c");
  ASSERT_NE(chain, nullptr);
  ASSERT_EQ(chain->rules.size(), 1u);
  const Rule& r = chain->rules[0];
  EXPECT_EQ(r.action, c.action) << ActionName(r.action);
  EXPECT_EQ(r.line, 4);
  EXPECT_EQ(r.position, 1);
  EXPECT_EQ(r.text, c.rule);
  Packet p = RocePacket("va", "198.18.0.1");
  Tri t = Tri::kYes;
  for (const Match& m : r.matches) {
    Tri x = Matches(m, p);
    if (x == Tri::kNo) { t = Tri::kNo; break; }
    if (x == Tri::kMaybe) t = Tri::kMaybe;
  }
  if (t != Tri::kNo && !r.not_understood.empty()) t = Tri::kMaybe;
  EXPECT_EQ(static_cast<int>(t), static_cast<int>(c.on_roce));
  if (*c.not_understood) {
    ASSERT_FALSE(r.not_understood.empty());
    EXPECT_THAT(r.not_understood[0], HasSubstr(c.not_understood));
  } else {
    EXPECT_TRUE(r.not_understood.empty()) << r.not_understood[0];
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, NftFormTest, ::testing::ValuesIn(kForms));

TEST(NftRulesetTest, ReadsTablesChainsHooksPrioritiesPolicies) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset(testing::Fixture("firewalld_public.nft"),
                                                   "firewalld_public.nft"));
  ASSERT_EQ(rs.tables.size(), 1u);
  const Table& t = rs.tables[0];
  EXPECT_EQ(t.family, "inet");
  EXPECT_EQ(t.name, "firewalld");
  const Chain* in = t.FindChain("filter_INPUT");
  ASSERT_NE(in, nullptr);
  EXPECT_TRUE(in->base);
  EXPECT_EQ(in->hook, "input");
  EXPECT_EQ(in->priority, 10);
  EXPECT_EQ(in->policy, "accept");
  const Chain* mangle = t.FindChain("mangle_PREROUTING");
  ASSERT_NE(mangle, nullptr);
  EXPECT_EQ(mangle->priority, -140);
  EXPECT_FALSE(t.FindChain("filter_IN_public")->base);
  EXPECT_THAT(rs.notes.at(0), HasSubstr("ct helper"));
}

TEST(NftRulesetTest, ReadsNamedSetsOverSeveralLines) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset(testing::Fixture("nft_set_drop.nft"), "s"));
  const Set& s = rs.tables[0].sets.at("blocked_udp");
  EXPECT_EQ(s.ports, (std::vector<std::pair<int, int>>{{111, 111}, {2049, 2049}, {4000, 5000}}));
  const Rule& drop = rs.tables[0].FindChain("input")->rules[1];
  ASSERT_EQ(drop.matches.size(), 2u);  // l4proto udp, dport @blocked_udp
  EXPECT_EQ(drop.matches[1].ports.size(), 3u);
}

TEST(NftRulesetTest, ExpandsVerdictMapsIntoOneRulePerKey) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs,
                       ParseNftRuleset(testing::Fixture("nft_policy_drop_accept.nft"), "v"));
  const Chain* in = rs.tables[0].FindChain("input");
  ASSERT_EQ(in->rules.size(), 6u);  // 3 vmap keys + 3 rules
  EXPECT_EQ(in->rules[0].action, Action::kDrop);
  EXPECT_EQ(in->rules[0].matches[0].values, std::vector<std::string>{"invalid"});
  EXPECT_EQ(in->rules[2].position, 1);
  EXPECT_EQ(in->rules[3].position, 2);
}

TEST(NftRulesetTest, MarksTablesIptablesNftManages) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset(testing::Fixture("nft_iptables_managed.nft"), "m"));
  ASSERT_EQ(rs.tables.size(), 2u);
  EXPECT_TRUE(rs.tables[0].iptables_managed);
  EXPECT_FALSE(rs.tables[1].iptables_managed);
}

TEST(NftRulesetTest, HandlesFromListingWithDashAAreIgnored) {
  ASSERT_OK_AND_ASSIGN(
      Ruleset rs,
      ParseNftRuleset("table inet f { # handle 1\n\tchain input { # handle 1\n\t\ttype filter hook "
                      "input priority 0; policy drop;\n\t\tudp dport 4791 accept # handle 4\n\t}\n}\n",
                      "a"));
  EXPECT_EQ(rs.tables[0].chains[0].rules[0].text, "udp dport 4791 accept");
  EXPECT_EQ(rs.tables[0].chains[0].policy, "drop");
}

TEST(NftRulesetTest, EmptyRulesetHasNoTables) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset("", "empty"));
  EXPECT_TRUE(rs.tables.empty());
}

struct BadCase {
  const char* name;
  const char* text;
  const char* want;  // "file:line: what" substring
};

const BadCase kBad[] = {
    {"garbage", "hello world\n", "bad.nft:1: expected `table FAMILY NAME {`"},
    {"bad_family", "table foo t {\n}\n", "bad.nft:1: unknown table family `foo`"},
    {"rule_outside_chain", "table inet t {\n\tudp dport 4791 drop\n}\n",
     "bad.nft:2: expected `chain NAME {`"},
    {"chain_twice", "table inet t {\n\tchain c {\n\t}\n\tchain c {\n\t}\n}\n",
     "bad.nft:4: chain c defined twice"},
    {"hook_without_priority", "table inet t {\n\tchain c {\n\t\ttype filter hook input;\n\t}\n}\n",
     "bad.nft:3: expected `type TYPE hook HOOK priority P;`"},
    {"bad_priority", "table inet t {\n\tchain c {\n\t\ttype filter hook input priority lots;\n\t}\n}\n",
     "bad.nft:3: chain c: bad priority `lots`"},
    {"bad_priority_offset",
     "table inet t {\n\tchain c {\n\t\ttype filter hook input priority filter * 2;\n\t}\n}\n",
     "bad.nft:3: chain c: bad priority in"},
    {"bad_policy",
     "table inet t {\n\tchain c {\n\t\ttype filter hook input priority 0; policy reject;\n\t}\n}\n",
     "bad.nft:3: chain c: expected `policy accept;`"},
    {"jump_nowhere", "table inet t {\n\tchain c {\n\t\tjump nowhere\n\t}\n}\n",
     "bad.nft:3: jump to chain nowhere which table inet t does not define"},
    {"jump_without_target", "table inet t {\n\tchain c {\n\t\tjump\n\t}\n}\n",
     "bad.nft:3: `jump` without a chain name"},
    {"undefined_set", "table inet t {\n\tchain c {\n\t\tudp dport @nope drop\n\t}\n}\n",
     "bad.nft:3: set @nope is not defined in table inet t"},
    {"unterminated_string", "table inet t {\n\tchain c {\n\t\tiifname \"va drop\n\t}\n}\n",
     "bad.nft:3: unterminated string"},
    {"unclosed_brace_set", "table inet t {\n\tchain c {\n\t\tudp dport { 1, 2 drop\n\t}\n}\n",
     "bad.nft:3: unclosed '{'"},
    {"selector_without_value", "table inet t {\n\tchain c {\n\t\tudp dport\n\t}\n}\n",
     "bad.nft:3: `udp` without a value"},
    {"anonymous_chain_after_a_non_rule",
     "table netdev t {\n\tchain c {\n\t\tdevices jump {\n\t\t}\n\t}\n}\n",
     "bad.nft:3: `devices jump {` opens an anonymous chain but is not a rule"},
    {"bad_vmap", "table inet t {\n\tchain c {\n\t\tct state vmap { new accept }\n\t}\n}\n",
     "bad.nft:3: vmap element `new accept`"},
};

class NftBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(NftBadTest, IsInvalidArgumentWithFileAndLine) {
  EXPECT_THAT(ParseNftRuleset(GetParam().text, "bad.nft"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().want)));
}

INSTANTIATE_TEST_SUITE_P(Rows, NftBadTest, ::testing::ValuesIn(kBad),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace rdmacheck::firewall
