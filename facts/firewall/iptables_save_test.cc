#include "facts/firewall/iptables_save.h"

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
using ::testing::HasSubstr;

std::string OneRule(const std::string& rule) {
  return absl::StrCat("*filter\n:INPUT ACCEPT [0:0]\n:user - [0:0]\n-A INPUT ", rule, "\nCOMMIT\n");
}

struct FormCase {
  const char* rule;
  Action action;
  Tri on_roce;
  const char* not_understood;
};

const FormCase kForms[] = {
    {"-p udp -m udp --dport 4791 -j DROP", Action::kDrop, Tri::kYes, ""},
    {"-p udp --dport 4791 -j DROP", Action::kDrop, Tri::kYes, ""},
    {"-p udp -m udp ! --dport 4791 -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-p udp -m udp --dport 4000:5000 -j REJECT --reject-with icmp-port-unreachable",
     Action::kReject, Tri::kYes, ""},
    {"-p udp -m udp --dport 4792: -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-p tcp -m tcp --dport 4791 -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-p 17 -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"! -p udp -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-p all -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-p udp -m multiport --dports 22,4791,5000:5010 -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-p udp -m multiport --sports 1:1023 -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-p udp -m udp --sport 49152:65535 -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-p udp -m multiport --ports 4791 -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-i va -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-i v+ -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"! -i lo -j DROP", Action::kDrop, Tri::kYes, ""},
    {"-o eth0 -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-s 10.0.0.0/8 -j ACCEPT", Action::kAccept, Tri::kMaybe, ""},
    {"-s 0.0.0.0/0 -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-d 198.18.0.1/32 -j DROP", Action::kDrop, Tri::kYes, ""},
    {"-d 198.18.0.0/255.254.0.0 -j DROP", Action::kDrop, Tri::kYes, ""},
    {"! -d 198.18.0.0/15 -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-d 10.0.0.1,198.18.0.1 -j DROP", Action::kDrop, Tri::kYes, ""},
    {"-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT", Action::kAccept, Tri::kNo, ""},
    {"-m conntrack --ctstate NEW -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-m state --state INVALID -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-m addrtype --dst-type LOCAL -j RETURN", Action::kReturn, Tri::kYes, ""},
    {"-m addrtype --dst-type BROADCAST -j DROP", Action::kDrop, Tri::kNo, ""},
    {"-m comment --comment \"allow \\\"roce\\\"\" -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-j LOG --log-prefix \"[UFW BLOCK] \" --log-level 4", Action::kNone, Tri::kYes, ""},
    {"-j MARK --set-xmark 0x1/0xffffffff", Action::kNone, Tri::kYes, ""},
    {"-m mark --mark 0x8000/0x8000 -j DROP", Action::kDrop, Tri::kNo, ""},  // unmarked
    {"-m mark ! --mark 0x4000/0x4000 -j RETURN", Action::kReturn, Tri::kYes, ""},
    {"-m mark --mark 0 -j ACCEPT", Action::kAccept, Tri::kYes, ""},
    {"-m connmark --mark 0x1 -j DROP", Action::kDrop, Tri::kMaybe, "-m connmark --mark 0x1"},
    {"-j user", Action::kJump, Tri::kYes, ""},
    {"-g user", Action::kGoto, Tri::kYes, ""},
    {"-j RETURN", Action::kReturn, Tri::kYes, ""},
    {"-p icmp -m icmp --icmp-type 8 -j ACCEPT", Action::kAccept, Tri::kNo, ""},
    // Not understood: kept, "may match".
    {"-m limit --limit 3/min --limit-burst 10 -j DROP", Action::kDrop, Tri::kMaybe, "--limit 3/min"},
    {"-m recent --rcheck --seconds 60 -j DROP", Action::kDrop, Tri::kMaybe, "-m recent --rcheck"},
    {"-p udp -j NFQUEUE --queue-num 1 --queue-bypass", Action::kQueue, Tri::kYes, ""},
};

class IptFormTest : public ::testing::TestWithParam<FormCase> {};

TEST_P(IptFormTest, ReadsTheRuleAndMatchesRoce) {
  const FormCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseIptablesSave(OneRule(c.rule), "one.save", 4));
  ASSERT_EQ(rs.tables.size(), 1u);
  const Chain* in = rs.tables[0].FindChain("INPUT");
  ASSERT_NE(in, nullptr);
  ASSERT_EQ(in->rules.size(), 1u);
  const Rule& r = in->rules[0];
  EXPECT_EQ(r.action, c.action) << ActionName(r.action);
  EXPECT_EQ(r.line, 4);
  Packet p = RocePacket("va", "198.18.0.1");
  Tri t = Tri::kYes;
  for (const Match& m : r.matches) {
    Tri x = Matches(m, p);
    if (x == Tri::kNo) { t = Tri::kNo; break; }
    if (x == Tri::kMaybe) t = Tri::kMaybe;
  }
  if (t != Tri::kNo && !r.not_understood.empty()) t = Tri::kMaybe;
  // A non-terminal target with an unknown option still cannot change the fate.
  if (c.action == Action::kNone && t == Tri::kMaybe) t = Tri::kYes;
  EXPECT_EQ(static_cast<int>(t), static_cast<int>(c.on_roce));
  if (*c.not_understood) {
    ASSERT_FALSE(r.not_understood.empty());
    EXPECT_THAT(r.not_understood[0], HasSubstr(c.not_understood));
  } else {
    EXPECT_TRUE(r.not_understood.empty()) << r.not_understood[0];
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, IptFormTest, ::testing::ValuesIn(kForms));

TEST(IptablesSaveTest, ReadsTablesPoliciesAndBuiltInHooks) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseIptablesSave(testing::Fixture("iptables_legacy_drop.save"),
                                                     "legacy", 4));
  ASSERT_EQ(rs.tables.size(), 2u);
  EXPECT_EQ(rs.tables[0].name, "raw");
  const Chain* pre = rs.tables[0].FindChain("PREROUTING");
  EXPECT_TRUE(pre->base);
  EXPECT_EQ(pre->priority, -300);
  const Table& f = rs.tables[1];
  EXPECT_EQ(f.family, "ip");
  EXPECT_EQ(f.FindChain("INPUT")->policy, "accept");
  EXPECT_EQ(f.FindChain("FORWARD")->policy, "drop");
  EXPECT_FALSE(f.FindChain("RDMA-GUARD")->base);
  EXPECT_EQ(f.FindChain("RDMA-GUARD")->rules.size(), 3u);
}

TEST(IptablesSaveTest, ReadsCountersAndEveryFormOfTheFixture) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs,
                       ParseIptablesSave(testing::Fixture("iptables_all_forms.save"), "all", 4));
  const Chain* in = rs.tables[1].FindChain("INPUT");
  ASSERT_EQ(in->rules.size(), 6u);
  EXPECT_EQ(in->rules[5].action, Action::kGoto);
  EXPECT_EQ(in->rules[5].target, "roce-in");
  for (const Chain& c : rs.tables[1].chains)
    for (const Rule& r : c.rules) EXPECT_TRUE(r.not_understood.empty()) << r.text;
}

TEST(IptablesSaveTest, Ip6tablesIsFamilySix) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs,
                       ParseIptablesSave(testing::Fixture("ip6tables_legacy_drop.save"), "v6", 6));
  EXPECT_EQ(rs.tables[0].family, "ip6");
  EXPECT_EQ(rs.tables[0].FindChain("INPUT")->rules[1].matches[0].family, 6);
}

struct BadCase {
  const char* name;
  const char* text;
  int family;
  const char* want;
};

const BadCase kBad[] = {
    {"rule_outside_table", "-A INPUT -j ACCEPT\n", 4, "bad.save:1: `-A INPUT -j ACCEPT` outside a table"},
    {"undeclared_chain", "*filter\n:INPUT ACCEPT [0:0]\n-A FOO -j ACCEPT\nCOMMIT\n", 4,
     "bad.save:3: -A to chain FOO which table filter does not declare"},
    {"jump_undeclared", "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j nowhere\nCOMMIT\n", 4,
     "bad.save:3: -j nowhere: no such chain in table filter"},
    {"bad_policy", "*filter\n:INPUT REJECT [0:0]\nCOMMIT\n", 4,
     "bad.save:2: chain INPUT: policy must be ACCEPT or DROP"},
    {"user_chain_policy", "*filter\n:mine ACCEPT [0:0]\nCOMMIT\n", 4,
     "bad.save:2: user chain mine takes policy `-`"},
    {"chain_twice", "*filter\n:INPUT ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\nCOMMIT\n", 4,
     "bad.save:3: chain INPUT declared twice"},
    {"option_without_value", "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p\nCOMMIT\n", 4,
     "bad.save:3: -p without its value"},
    {"bad_port", "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p udp --dport roce -j DROP\nCOMMIT\n", 4,
     "bad.save:3: --dport: `roce` is not a port list"},
    {"v6_address_in_v4", "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s fe80::1 -j DROP\nCOMMIT\n", 4,
     "bad.save:3: -s: `fe80::1` is not an IPv4 address"},
    {"unterminated_quote",
     "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment \"x -j DROP\nCOMMIT\n", 4,
     "bad.save:3: unterminated quoted string"},
    {"garbage_line", "*filter\n:INPUT ACCEPT [0:0]\niptables -A INPUT\nCOMMIT\n", 4,
     "bad.save:3: expected `:CHAIN POLICY`"},
    {"table_in_table", "*filter\n*nat\nCOMMIT\n", 4, "bad.save:2: table nat starts before COMMIT"},
    {"bang_at_end", "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT !\nCOMMIT\n", 4,
     "bad.save:3: `!` at the end of the rule"},
    {"bad_family", "", 5, "family must be 4 or 6"},
    {"bad_mark", "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m mark --mark kube -j DROP\nCOMMIT\n", 4,
     "bad.save:3: --mark: `kube` is not VALUE[/MASK]"},
};

class IptBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(IptBadTest, IsInvalidArgumentWithFileAndLine) {
  EXPECT_THAT(ParseIptablesSave(GetParam().text, "bad.save", GetParam().family),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().want)));
}

INSTANTIATE_TEST_SUITE_P(Rows, IptBadTest, ::testing::ValuesIn(kBad),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

// libxt_MARK's forms, each as the kernel's (mark & ~mask) ^ value.
TEST(IptMarkTest, TargetFormsBecomeXmark) {
  struct Case {
    const char* target;
    uint32_t mask, value;
    bool known;
  } cases[] = {
      {"-j MARK --set-xmark 0x8000/0x8000", 0x8000, 0x8000, true},
      {"-j MARK --set-mark 0x10", 0xffffffff, 0x10, true},
      {"-j MARK --set-mark 0x10/0xf0", 0xf0, 0x10, true},
      {"-j MARK --or-mark 0x4000", 0x4000, 0x4000, true},
      {"-j MARK --and-mark 0xff", ~0xffu, 0, true},
      {"-j MARK --xor-mark 0x4000", 0, 0x4000, true},
      {"-j CONNMARK --restore-mark --nfmask 0xff --ctmask 0xff", 0xff, 0, false},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseIptablesSave(OneRule(c.target), "one.save", 4));
    const Rule& r = rs.tables[0].FindChain("INPUT")->rules[0];
    ASSERT_TRUE(r.mark_set.has_value()) << c.target;
    EXPECT_EQ(r.mark_set->mask, c.mask) << c.target;
    EXPECT_EQ(r.mark_set->value, c.value) << c.target;
    EXPECT_EQ(r.mark_set->known, c.known) << c.target;
    EXPECT_TRUE(r.not_understood.empty()) << c.target << ": " << r.not_understood[0];
  }
  // CONNMARK --save-mark and --set-xmark set the connection's mark, not the packet's.
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseIptablesSave(OneRule("-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff"), "one.save", 4));
  EXPECT_FALSE(rs.tables[0].FindChain("INPUT")->rules[0].mark_set.has_value());
}

}  // namespace
}  // namespace rdmacheck::firewall
