#include "checks/firewall_4791.h"

#include <string>

#include "absl/strings/match.h"
#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::OnDevice;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

DeviceView WithRuleset(const std::string& source, const std::string& text) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.host.udp4791_socket = true;
  v.host.rulesets[source] = text;
  return v;
}

TEST(Firewall4791, FailsOnNftDropQuotingTheRuleAndGivingTheNftInsert) {
  Result r = RunOn(Firewall4791Check(), "rxe_nft_drop.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence,
              Contains(EvidenceRow("UDP 4791 in on va (rxe0) to 198.18.0.1",
                                   "dropped by nft table inet filter chain input rule 3 (line 6): "
                                   "`udp dport 4791 counter packets 12 bytes 3456 drop`",
                                   Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("kernel UDP socket on port 4791", "present", Verdict::kPass)));
  EXPECT_THAT(r.remediation,
              Contains("nft insert rule inet filter input iifname \"va\" udp dport 4791 accept"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("nft list chain inet filter input | grep 4791")));
}

TEST(Firewall4791, FailsOnIptablesRejectWithTheIptablesInsert) {
  Result r = RunOn(Firewall4791Check(), "rxe_iptables_reject.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow(
                              "UDP 4791 in on va", "rejected by iptables-nft table ip filter chain INPUT rule 4",
                              Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains("iptables -I INPUT -i va -p udp --dport 4791 -j ACCEPT"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("iptables -L INPUT -n --line-numbers | grep 4791")));
}

struct ToolCase {
  const char* source;
  const char* text;
  Verdict verdict;
  const char* actual;  // substring of the va row
  const char* remedy;  // substring of a remediation line; "" for none
};

constexpr char kUfwDeny[] =
    "*filter\n:INPUT DROP [0:0]\n:ufw-before-input - [0:0]\n:ufw-user-input - [0:0]\n"
    "-A INPUT -j ufw-before-input\n-A ufw-before-input -i lo -j ACCEPT\n"
    "-A ufw-before-input -j ufw-user-input\n-A ufw-user-input -p tcp -m tcp --dport 22 -j ACCEPT\n"
    "COMMIT\n";
constexpr char kFirewalld[] =
    "table inet firewalld {\n\tchain filter_INPUT {\n\t\ttype filter hook input priority filter "
    "+ 10; policy accept;\n\t\tjump filter_IN_public\n\t\treject with icmpx admin-prohibited\n\t}"
    "\n\tchain filter_IN_public {\n\t\ttcp dport 22 accept\n\t}\n}\n";

const ToolCase kTools[] = {
    {"iptables-legacy", "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p udp --dport 4791 -j DROP\nCOMMIT\n",
     Verdict::kFail, "dropped by iptables-legacy table ip filter chain INPUT rule 1 (line 3)",
     "iptables-legacy -I INPUT -i va -p udp --dport 4791 -j ACCEPT"},
    {"iptables-nft", "*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n-A PREROUTING -i va -j DROP\nCOMMIT\n",
     Verdict::kFail, "chain PREROUTING rule 1", "iptables -t raw -I PREROUTING -i va -p udp --dport 4791 -j ACCEPT"},
    {"iptables-nft", kUfwDeny, Verdict::kFail, "dropped by iptables-nft table ip filter chain INPUT policy drop",
     "ufw allow 4791/udp"},
    {"nft", kFirewalld, Verdict::kFail, "rejected by nft table inet firewalld chain filter_INPUT rule 2",
     "firewall-cmd --permanent --add-port=4791/udp && firewall-cmd --reload"},
    {"nft", "table inet f {\n\tchain input {\n\t\ttype filter hook input priority 0; policy drop;\n\t}\n}\n",
     Verdict::kFail, "dropped by nft table inet f chain input policy drop (line 2)",
     "nft insert rule inet f input iifname \"va\" udp dport 4791 accept"},
    {"nft", "table inet f {\n\tchain input {\n\t\ttype filter hook input priority 0; policy drop;\n"
            "\t\tiifname \"va\" udp dport 4791 accept\n\t}\n}\n",
     Verdict::kPass, "accepted", ""},
    {"nft", "table inet f {\n\tchain input {\n\t\ttype filter hook input priority 0;\n"
            "\t\tfib daddr type local udp dport 4791 drop\n\t}\n}\n",
     Verdict::kWarn, "accepted", "nft list ruleset; iptables-save"},
    {"nft", "", Verdict::kPass, "accepted (no base chain on its path)", ""},
    // Cut short inside its chain: read as far as it goes; the rest is unknown.
    {"nft", "table inet f {\n\tchain input {\n", Verdict::kWarn,
     "not judged: the nft (cut short) ruleset could not be read", "nft -j list ruleset > ruleset.json"},
    // What the gather reads: `nft -j list ruleset`. Rules are named by handle.
    {"nft",
     R"({"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}},)"
     R"( {"table": {"family": "inet", "name": "filter", "handle": 1}},)"
     R"( {"chain": {"family": "inet", "table": "filter", "name": "input", "handle": 1, "type": "filter",)"
     R"( "hook": "input", "prio": 0, "policy": "accept"}},)"
     R"( {"rule": {"family": "inet", "table": "filter", "chain": "input", "handle": 7, "expr": [{"match":)"
     R"( {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 4791}},)"
     R"( {"counter": {"packets": 12, "bytes": 3456}}, {"drop": null}]}}]})",
     Verdict::kFail,
     "dropped by nft table inet filter chain input rule 1 (handle 7): `udp dport 4791 counter packets 12 "
     "bytes 3456 drop`",
     "nft insert rule inet filter input iifname \"va\" udp dport 4791 accept"},
    // Cut short after its base chain: what was read accepts, the rest is unknown.
    {"nft",
     R"({"nftables": [{"table": {"family": "inet", "name": "filter", "handle": 1}},)"
     R"( {"chain": {"family": "inet", "table": "filter", "name": "input", "handle": 1, "type": "filter",)"
     R"( "hook": "input", "prio": 0, "policy": "accept"}}, {"rule": {"family": "inet", "tab)",
     Verdict::kWarn, "not judged: the nft (cut short) ruleset could not be read", "nft -j list ruleset > ruleset.json"},
};

class ToolTest : public ::testing::TestWithParam<ToolCase> {};

TEST_P(ToolTest, VerdictEvidenceAndTheToolsOwnRemedy) {
  const ToolCase& c = GetParam();
  Result r = RunOnView(Firewall4791Check(), WithRuleset(c.source, c.text),
                       FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, c.verdict) << AllText(r);
  if (*c.actual) {
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0)", c.actual, c.verdict)));
  }
  if (*c.remedy) {
    EXPECT_THAT(r.remediation, Contains(HasSubstr(c.remedy))) << AllText(r);
  }
  if (c.verdict == Verdict::kPass) {
    EXPECT_TRUE(r.remediation.empty()) << AllText(r);
  }
}

INSTANTIATE_TEST_SUITE_P(Tools, ToolTest, ::testing::ValuesIn(kTools));

// nft timed out while iptables-nft-save printed an accepting ruleset: the
// path is judged on what was read, and cannot pass.
TEST(Firewall4791, AListingThatTimedOutBesideOneReadIsAWarn) {
  DeviceView v = WithRuleset("iptables-nft", "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n");
  v.host.rulesets_not_read["nft"] = "'nft -j list ruleset' did not finish within 3 s; killed";
  Result r = RunOnView(Firewall4791Check(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("nft ruleset", "not read: 'nft -j list ruleset' did not finish",
                                               Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0)", "not judged: the nft ruleset",
                                               Verdict::kWarn)));
  // Alone, a ruleset read in full still passes.
  Result alone = RunOnView(Firewall4791Check(), WithRuleset("iptables-nft", "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n"),
                           FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(alone.verdict, Verdict::kPass) << AllText(alone);
}

TEST(Firewall4791, UnreadableRulesetIsAWarnNamingFileAndLine) {
  Result r = RunOnView(Firewall4791Check(),
                       WithRuleset("nft", "table inet f {\n\tchain input {\n\t\tudp dport { 1, 2 drop\n\t}\n}\n"),
                       DefaultPlan(), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("nft ruleset", "nft:3: unclosed '{'", Verdict::kWarn)));
  // The path was judged without the unreadable ruleset: its row says so
  // and cannot pass.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0)",
                                               "not judged: the nft ruleset could not be read", Verdict::kWarn)));
  for (const Evidence& e : r.evidence)
    if (absl::StartsWith(e.subject, "UDP 4791 in on")) EXPECT_NE(e.verdict, Verdict::kPass) << e.actual;
}

// A listing cut short inside the input chain: a drop rule read before the
// cut is a drop (FAIL); the chain's policy is not what decides once rules
// are missing before it (WARN, saying so).
Result OnNftListing(const std::string& listing) {
  return RunOnView(Firewall4791Check(), WithRuleset("nft", listing), DefaultPlan(), OnDevice("rxe0"));
}

TEST(Firewall4791, CutListingFailsOnADropReadAndWarnsOnAPolicyPastTheCut) {
  Result dropped = OnNftListing("table inet f {\n\tchain input {\n\t\ttype filter hook input "
                                "priority 0;\n\t\tudp dport 4791 drop\n\t\tct state new ");
  EXPECT_EQ(dropped.verdict, Verdict::kFail) << AllText(dropped);
  EXPECT_THAT(dropped.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0)",
                                                     "dropped by nft table inet f chain input rule 1 (line 4)",
                                                     Verdict::kFail)));
  EXPECT_THAT(dropped.notes, Contains(HasSubstr("its last line, cut mid-line, was not read: `ct state new`")));
  Result policy = OnNftListing("table inet f {\n\tchain input {\n\t\ttype filter hook input "
                               "priority 0; policy drop;\n\t\tct state established accept\n");
  EXPECT_EQ(policy.verdict, Verdict::kWarn) << AllText(policy);
  EXPECT_THAT(policy.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0)",
                                                    "dropped by nft table inet f chain input policy drop (line 2): "
                                                    "`policy drop` (as far as the dump goes",
                                                    Verdict::kWarn)));
}

TEST(Firewall4791, NotUnderstoodRulesAreNamedInNotes) {
  Result r = RunOnView(Firewall4791Check(),
                       WithRuleset("nft", "table inet f {\n\tchain input {\n\t\ttype filter hook input "
                                          "priority 0;\n\t\tlimit rate over 5/second drop\n\t}\n}\n"),
                       DefaultPlan(), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.notes, Contains(HasSubstr("not understood: nft table inet f chain input rule 1 (line 4)")));
}

TEST(Firewall4791, MissingKernelSocketFails) {
  DeviceView v = WithRuleset("nft", "");
  v.host.udp4791_socket = false;
  Result r = RunOnView(Firewall4791Check(), v, DefaultPlan(), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("kernel UDP socket on port 4791", "absent", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ss -uln | grep ':4791 '")));
}

TEST(Firewall4791, SkipsWithoutRxeOrWithoutFacts) {
  Result hw = RunOn(Firewall4791Check(), "mlx5_cx6.profile");
  EXPECT_EQ(hw.verdict, Verdict::kSkip);
  EXPECT_THAT(hw.skip_reason, HasSubstr("in hardware"));
  Result none = RunOn(Firewall4791Check(), "no_device.profile");
  EXPECT_EQ(none.verdict, Verdict::kSkip);
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.host.rulesets.clear();  // e.g. a profile from before rulesets were captured
  Result nofacts = RunOnView(Firewall4791Check(), v, DefaultPlan());
  EXPECT_EQ(nofacts.verdict, Verdict::kSkip);
  EXPECT_THAT(nofacts.skip_reason, HasSubstr("fact missing: host rulesets"));
}

TEST(Firewall4791, EveryRxeDeviceIsLookedAt) {
  DeviceView v = WithRuleset("nft", "table ip f {\n\tchain input {\n\t\ttype filter hook input "
                                    "priority 0;\n\t\tiifname \"vb\" drop\n\t}\n}\n");
  Result r = RunOnView(Firewall4791Check(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0) to 198.18.0.1", "accepted", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on vb (rxe1) to 198.18.0.2", "dropped", Verdict::kFail)));
}

// An nftables output-chain rule dropping UDP dport 4791: hung-qp FAILs on a
// real host (the guest's scenario 49), and so must this check, naming the
// output chain and the oifname accept.
TEST(Firewall4791, FailsOnAnOutputChainDropNamingTheOutputPath) {
  Result r = RunOnView(Firewall4791Check(),
                       WithRuleset("nft", "table inet filter {\n\tchain output {\n\t\ttype filter hook output "
                                          "priority filter; policy accept;\n\t\tudp dport 4791 drop\n\t}\n}\n"),
                       FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0) to 198.18.0.1", "accepted", Verdict::kPass)));
  EXPECT_THAT(r.evidence,
              Contains(EvidenceRow("UDP 4791 out of va (rxe0) from 198.18.0.1 to the peer",
                                   "dropped by nft table inet filter chain output rule 1 (line 4)", Verdict::kFail)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("the output chain is on the output path")));
  EXPECT_THAT(r.remediation,
              Contains("nft insert rule inet filter output oifname \"va\" udp dport 4791 accept"));
}

TEST(Firewall4791, IptablesOutputDropGivesTheMinusOInsert) {
  Result r = RunOnView(Firewall4791Check(),
                       WithRuleset("iptables-nft", "*filter\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
                                                   "-A OUTPUT -p udp --dport 4791 -j REJECT\nCOMMIT\n"),
                       FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 out of va (rxe0)",
                                               "rejected by iptables-nft table ip filter chain OUTPUT rule 1",
                                               Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains("iptables -I OUTPUT -o va -p udp --dport 4791 -j ACCEPT"));
}

// rxe_vlan.profile (real capture: rxe0 on va, its address on va.100) with an
// nft output chain dropping UDP 4791 on oifname `oif`.
Result OnVlanWithOutputDrop(const std::string& oif) {
  DeviceView v = FixtureProfile("rxe_vlan.profile");
  v.host.rulesets["nft"] =
      "table inet t {\n\tchain out {\n\t\ttype filter hook output priority filter; policy accept;\n"
      "\t\toifname \"" + oif + "\" udp dport 4791 drop\n\t}\n}\n";
  return RunOnView(Firewall4791Check(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
}

// RoCE over a VLAN: the packets meet the rules as va.100's, so a rule on
// oifname "va.100" is what drops them, and the remedy names it.
TEST(Firewall4791, VlanTrafficIsEvaluatedOnTheVlanNetdev) {
  Result r = OnVlanWithOutputDrop("va.100");
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on va.100 (rxe0) to 198.18.1.1", "accepted", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 out of va.100 (rxe0) from 198.18.1.1 to the peer",
                                               "dropped by nft table inet t chain out rule 1", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains("nft insert rule inet t out oifname \"va.100\" udp dport 4791 accept"));
  for (const Evidence& e : r.evidence) EXPECT_THAT(e.subject, ::testing::Not(HasSubstr(" va (rxe0)")));
}

// A rule on the parent's name does not see the VLAN's packets.
TEST(Firewall4791, ARuleOnTheParentNameDoesNotDropVlanTraffic) {
  Result r = OnVlanWithOutputDrop("va");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
}

// A real Kubernetes node's filter table, and RoCE v2 marked 0x8000 in mangle
// (scenario 58): the drop follows the mark, and the note names who set it.
TEST(Firewall4791, AMarkDropNamesTheRuleAndWhereTheMarkCameFrom) {
  Result r = RunOn(Firewall4791Check(), "rxe_kube_mark_drop.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on va (rxe0) to 198.18.0.1",
                                               "dropped by iptables-nft table ip filter chain KUBE-FIREWALL rule 1",
                                               Verdict::kFail)));
  EXPECT_THAT(r.notes, Contains(HasSubstr("mark was set by iptables-nft table ip mangle chain PREROUTING rule 1")));
  // Leaving, RoCE is not marked: KUBE-FIREWALL's rule does not match.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 out of va (rxe0) from 198.18.0.1 to the peer", "accepted",
                                               Verdict::kPass)));
}

// The same node's ruleset without the mark: kubelet's rules do not touch
// RoCE, and nothing is uncertain about them.
TEST(Firewall4791, AKubernetesNodesRulesetWithoutTheMarkPasses) {
  DeviceView v = FixtureProfile("rxe_kube_mark_drop.profile");
  std::string& ipt = v.host.rulesets["iptables-nft"];
  size_t at = ipt.find("-A PREROUTING -p udp -m udp --dport 4791 -j MARK");
  ASSERT_NE(at, std::string::npos);
  ipt.erase(at, ipt.find('\n', at) - at + 1);
  Result r = RunOnView(Firewall4791Check(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
}

// rxe on bridge br0, br_netfilter on, and docker's FORWARD policy DROP
// (scenario 69): the host's own RoCE passes, RoCE bridged between br0's
// ports is dropped: WARN, with docker's DOCKER-USER remedy.
TEST(Firewall4791, BridgedRoceMeetsTheForwardChainWhenBrNetfilterIsOn) {
  Result r = RunOn(Firewall4791Check(), "rxe_bridge_fwd_drop.profile", "rxe_guest.plan", OnDevice("rxe0"));
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("UDP 4791 in on br0 (rxe0) to 198.18.0.1", "accepted", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow(
                              "UDP 4791 bridged across br0 (rxe0's bridge) between its ports, IPv4 "
                              "(net.bridge.bridge-nf-call-iptables 1)",
                              "dropped by iptables-nft table ip filter chain FORWARD policy drop", Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains("iptables -I DOCKER-USER -i br0 -o br0 -p udp --dport 4791 -j ACCEPT"));
  // Without br_netfilter the bridge's own forwarding never meets iptables.
  DeviceView v = FixtureProfile("rxe_bridge_fwd_drop.profile");
  v.host.sysctls.erase("net.bridge.bridge-nf-call-iptables");
  Result off = RunOnView(Firewall4791Check(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_EQ(off.verdict, Verdict::kPass) << AllText(off);
  EXPECT_THAT(off.notes, Contains(HasSubstr("br0 is a bridge; IPv4 bridged between its ports does not meet the "
                                            "iptables hooks (net.bridge.bridge-nf-call-iptables absent")));
}

// The bridged row judges as the input and output rows do: an accept beside
// a ruleset that was not read is not a PASS.
TEST(Firewall4791, BridgedAcceptBesideAnUnreadRulesetIsAWarn) {
  DeviceView v = FixtureProfile("rxe_bridge_fwd_drop.profile");
  v.host.rulesets["iptables-nft"] = "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n";
  v.host.rulesets_not_read["iptables-legacy"] = "timed out after 3 s";
  Result r = RunOnView(Firewall4791Check(), v, FixturePlan("rxe_guest.plan"), OnDevice("rxe0"));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow(
                              "UDP 4791 bridged across br0 (rxe0's bridge) between its ports, IPv4 "
                              "(net.bridge.bridge-nf-call-iptables 1)",
                              "not judged: the iptables-legacy ruleset could not be read", Verdict::kWarn)));
}

}  // namespace
}  // namespace rdmacheck
