#include "facts/firewall/evaluate.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/firewall/generated.h"
#include "facts/firewall/iptables_save.h"
#include "facts/firewall/nft_json.h"
#include "facts/firewall/nft_ruleset.h"
#include "facts/firewall/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck::firewall {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::rdmacheck::testing::StatusIs;

Ruleset Load(const std::string& name) {
  std::string text = testing::Fixture(name);
  EXPECT_FALSE(text.empty()) << name;
  absl::StatusOr<Ruleset> rs;
  if (name.size() > 4 && name.substr(name.size() - 4) == ".nft") {
    rs = ParseNftRuleset(text, name);
  } else {
    bool v6 = name.rfind("ip6", 0) == 0;
    rs = ParseIptablesSave(text, name, v6 ? 6 : 4);
    if (rs.ok()) rs->source = v6 ? "ip6tables-legacy" : (name.find("legacy") != std::string::npos ? "iptables-legacy" : "iptables-nft");
  }
  EXPECT_TRUE(rs.ok()) << rs.status();
  return rs.ok() ? *rs : Ruleset();
}

struct FixtureCase {
  const char* file;
  Fate fate;
  const char* where;     // substring of decided_by->Where()
  bool by_policy;
  bool uncertain;
};

// RoCE v2 to 198.18.0.1 on va, from an unknown peer.
const FixtureCase kFixtures[] = {
    {"nft_plain_drop.nft", Fate::kDropped, "nft table inet filter chain input rule 3 (line 11)", false, false},
    {"nft_reject.nft", Fate::kRejected, "table ip filter chain INPUT rule 2", false, false},
    {"nft_jump_user_chain.nft", Fate::kDropped, "chain roce_guard rule 2", false, true},
    {"nft_set_drop.nft", Fate::kDropped, "chain input rule 2", false, true},
    {"nft_iface_other.nft", Fate::kAccepted, "policy accept", true, false},
    {"nft_policy_drop_accept.nft", Fate::kAccepted, "chain input rule 3 (line 11)", false, false},
    {"nft_policy_drop.nft", Fate::kDropped, "chain input policy drop", true, false},
    {"nft_not_understood.nft", Fate::kAccepted, "policy accept", true, true},
    {"firewalld_public.nft", Fate::kRejected, "inet firewalld chain filter_IN_public rule 7", false, false},
    {"firewalld_public_4791.nft", Fate::kAccepted, "chain filter_IN_public_allow rule 3", false, false},
    {"iptables_nft_reject.save", Fate::kRejected, "iptables-nft table ip filter chain INPUT rule 4 (line 9)", false, false},
    {"iptables_legacy_drop.save", Fate::kDropped, "chain RDMA-GUARD rule 3", false, true},
    {"iptables_all_forms.save", Fate::kAccepted, "chain roce-tail rule 1", false, false},
    {"ufw_deny.save", Fate::kDropped, "table ip filter chain INPUT policy drop", true, false},
    {"ufw_allow_4791.save", Fate::kAccepted, "chain ufw-user-input rule 2", false, false},
    // kubelet's KUBE-FIREWALL drops packets marked 0x8000: RoCE is unmarked.
    {"kube_docker_filter.save", Fate::kAccepted, "table ip filter chain INPUT policy accept", true, false},
};

class EvalFixtureTest : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(EvalFixtureTest, DecidesRoceOnVa) {
  const FixtureCase& c = GetParam();
  Outcome o = Evaluate({Load(c.file)}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(FateName(o.fate), FateName(c.fate));
  if (*c.where) {
    ASSERT_TRUE(o.decided_by.has_value());
    EXPECT_THAT(o.decided_by->Where(), HasSubstr(c.where));
  }
  EXPECT_EQ(o.by_policy, c.by_policy);
  EXPECT_EQ(!o.uncertain.empty(), c.uncertain) << (o.uncertain.empty() ? "" : o.uncertain[0]);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EvalFixtureTest, ::testing::ValuesIn(kFixtures));

TEST(EvaluateTest, PeerInsideTheReturnRangeIsAccepted) {
  Packet p = RocePacket("va", "198.18.0.1");
  p.saddr = "10.1.2.3";
  Outcome o = Evaluate({Load("nft_jump_user_chain.nft")}, p);
  EXPECT_EQ(o.fate, Fate::kAccepted);
  EXPECT_TRUE(o.uncertain.empty());
}

TEST(EvaluateTest, UncertaintyNamesTheRuleAndWhatWasNotUnderstood) {
  Outcome o = Evaluate({Load("nft_not_understood.nft")}, RocePacket("va", "198.18.0.1"));
  ASSERT_EQ(o.uncertain.size(), 2u);
  EXPECT_THAT(o.uncertain[0], HasSubstr("rule 1 (line 9)"));
  EXPECT_THAT(o.uncertain[0], HasSubstr("fib daddr type local"));
}

TEST(EvaluateTest, SetMatchUsesTheSetElements) {
  Packet p = RocePacket("va", "192.0.2.7");  // not the address, but inside @trusted_v4 as saddr
  p.saddr = "192.0.2.9";
  Outcome o = Evaluate({Load("nft_set_drop.nft")}, p);
  EXPECT_EQ(o.fate, Fate::kAccepted);
  ASSERT_TRUE(o.decided_by.has_value());
  EXPECT_EQ(o.decided_by->position, 1);
  p.saddr = "203.0.113.1";
  p.dport = 5001;
  EXPECT_EQ(Evaluate({Load("nft_set_drop.nft")}, p).fate, Fate::kAccepted);
  p.dport = 4500;
  EXPECT_EQ(Evaluate({Load("nft_set_drop.nft")}, p).fate, Fate::kDropped);
}

TEST(EvaluateTest, ADropInAnyRulesetDropsAndAcceptEndsOnlyItsChain) {
  // firewalld (prio +10) accepts 4791, but iptables-nft's filter INPUT (prio 0) rejects first.
  Outcome o = Evaluate({Load("firewalld_public_4791.nft"), Load("iptables_nft_reject.save")},
                       RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kRejected);
  EXPECT_EQ(o.decided_by->source, "iptables-nft");
  // Both walked: the prerouting chains of firewalld, then INPUT.
  EXPECT_THAT(o.walked, Contains(HasSubstr("iptables-nft ip filter INPUT: reject")));
}

TEST(EvaluateTest, NftCopyOfIptablesNftTablesIsSkippedWhenTheSaveOutputIsRead) {
  Outcome both = Evaluate({Load("nft_iptables_managed.nft"), Load("iptables_nft_reject.save")},
                          RocePacket("va", "198.18.0.1"));
  EXPECT_THAT(both.skipped, Contains(HasSubstr("managed by iptables-nft")));
  EXPECT_EQ(both.decided_by->source, "iptables-nft");
  // Alone, the nft listing's copy counts.
  Outcome alone = Evaluate({Load("nft_iptables_managed.nft")}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(alone.fate, Fate::kRejected);
  EXPECT_EQ(alone.decided_by->source, "nft");
}

TEST(EvaluateTest, InterfaceAndFamilyDecide) {
  // The eth0-only drop does not apply on va but does on eth0.
  EXPECT_EQ(Evaluate({Load("nft_iface_other.nft")}, RocePacket("eth0", "203.0.113.5")).fate,
            Fate::kDropped);
  // An IPv4-only iptables table does not see IPv6; the ip6tables one does.
  EXPECT_EQ(Evaluate({Load("iptables_nft_reject.save")}, RocePacket("va", "2001:db8::1")).fate,
            Fate::kAccepted);
  EXPECT_EQ(Evaluate({Load("ip6tables_legacy_drop.save")}, RocePacket("va", "2001:db8::1")).fate,
            Fate::kDropped);
}

TEST(EvaluateTest, NoRulesetsAccept) {
  Outcome o = Evaluate({}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kAccepted);
  EXPECT_FALSE(o.decided_by.has_value());
}

Ruleset Nft(const std::string& text) {
  absl::StatusOr<Ruleset> rs = ParseNftRuleset(text, "nft");
  EXPECT_TRUE(rs.ok()) << rs.status();
  return rs.ok() ? *rs : Ruleset();
}

std::string OutputChain(const std::string& rule) {
  return "table inet filter {\n\tchain output {\n\t\ttype filter hook output priority filter; "
         "policy accept;\n\t\t" + rule + "\n\t}\n}\n";
}

// Every RoCE v2 packet goes to UDP 4791, the ACKs this host sends too: an
// output-chain drop stops RoCE leaving, and does not touch arriving packets.
TEST(EvaluateOutTest, AnOutputChainDropStopsRoceLeavingOnly) {
  Ruleset rs = Nft(OutputChain("udp dport 4791 drop"));
  Outcome out = Evaluate({rs}, RoceOutPacket("va", "198.18.0.1"));
  EXPECT_EQ(out.fate, Fate::kDropped);
  ASSERT_TRUE(out.decided_by.has_value());
  EXPECT_THAT(out.decided_by->Where(), HasSubstr("nft table inet filter chain output rule 1 (line 4)"));
  EXPECT_EQ(Evaluate({rs}, RocePacket("va", "198.18.0.1")).fate, Fate::kAccepted);
}

TEST(EvaluateOutTest, InterfaceMatchesFollowTheDirection) {
  EXPECT_EQ(Evaluate({Nft(OutputChain("oifname \"va\" udp dport 4791 drop"))}, RoceOutPacket("va", "198.18.0.1")).fate,
            Fate::kDropped);
  EXPECT_EQ(Evaluate({Nft(OutputChain("oifname \"vb\" udp dport 4791 drop"))}, RoceOutPacket("va", "198.18.0.1")).fate,
            Fate::kAccepted);
  // A sent packet has no input interface.
  EXPECT_EQ(Evaluate({Nft(OutputChain("iifname \"va\" drop"))}, RoceOutPacket("va", "198.18.0.1")).fate,
            Fate::kAccepted);
  // And an arriving one no output interface, on the input hook.
  Ruleset in = Nft("table inet f {\n\tchain input {\n\t\ttype filter hook input priority 0;\n"
                   "\t\toifname \"va\" drop\n\t}\n}\n");
  EXPECT_EQ(Evaluate({in}, RocePacket("va", "198.18.0.1")).fate, Fate::kAccepted);
}

TEST(EvaluateOutTest, IptablesOutputAndPostroutingChains) {
  absl::StatusOr<Ruleset> rs = ParseIptablesSave(
      "*mangle\n:POSTROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n"
      "*filter\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n-A OUTPUT -o va -p udp -m udp --dport 4791 -j DROP\nCOMMIT\n",
      "iptables-nft", 4);
  ASSERT_TRUE(rs.ok()) << rs.status();
  rs->source = "iptables-nft";
  Outcome out = Evaluate({*rs}, RoceOutPacket("va", "198.18.0.1"));
  EXPECT_EQ(out.fate, Fate::kDropped);
  EXPECT_THAT(out.decided_by->Where(), HasSubstr("iptables-nft table ip filter chain OUTPUT rule 1"));
  EXPECT_THAT(out.walked, Contains(HasSubstr("iptables-nft ip mangle OUTPUT: accept (policy)")));
  EXPECT_EQ(Evaluate({*rs}, RocePacket("va", "198.18.0.1")).fate, Fate::kAccepted);
  EXPECT_EQ(Evaluate({*rs}, RoceOutPacket("vb", "198.18.0.2")).fate, Fate::kAccepted);
}

TEST(EvaluateOutTest, ThePeersAddressIsUnknownSoADaddrRuleIsUncertain) {
  Outcome out = Evaluate({Nft(OutputChain("ip daddr 10.0.0.0/8 udp dport 4791 drop"))},
                         RoceOutPacket("va", "198.18.0.1"));
  EXPECT_EQ(out.fate, Fate::kAccepted);
  ASSERT_EQ(out.uncertain.size(), 1u);
  EXPECT_THAT(out.uncertain[0], HasSubstr("may match"));
}

// Chains that jump to shared chains: each chain is walked once per packet.
// Without that, 22 layers of one chain jumping twice to the next are 2^21
// walks of the last one (seconds), and the layered shape below 100 x 2^9.
TEST(EvaluateScaleTest, SharedChainsAreWalkedOncePerPacket) {
  for (GeneratedShape shape : {GeneratedShape{22, 1, 2}, GeneratedShape{10, 100, 20}}) {
    SCOPED_TRACE(absl::StrCat(shape.layers, " layers of ", shape.width));
    const int rules = GeneratedRuleCount(shape);
    absl::StatusOr<Ruleset> ipt = ParseIptablesSave(GeneratedIptablesSave(shape), "generated.save", 4);
    ASSERT_TRUE(ipt.ok()) << ipt.status();
    ipt->source = "iptables-nft";
    absl::StatusOr<Ruleset> nft = ParseNftRuleset(GeneratedNftRuleset(shape), "generated.nft");
    ASSERT_TRUE(nft.ok()) << nft.status();
    for (const Ruleset& rs : {*ipt, *nft}) {
      SCOPED_TRACE(rs.source);
      Outcome o = Evaluate({rs}, RocePacket("va", "198.18.0.1"));
      EXPECT_EQ(o.fate, Fate::kDropped);
      ASSERT_TRUE(o.decided_by.has_value());
      EXPECT_THAT(o.decided_by->Where(), HasSubstr(absl::StrCat("chain INPUT rule ", shape.width + 1)));
      EXPECT_LE(o.rules_examined, static_cast<uint64_t>(rules));
      EXPECT_GE(o.rules_examined, static_cast<uint64_t>(shape.width + 1));
      EXPECT_TRUE(o.uncertain.empty()) << o.uncertain[0];
    }
  }
}

TEST(EvaluateScaleTest, KubeProxyScaleRulesetIsExaminedRuleByRule) {
  GeneratedShape shape{20, 50, 21};  // 1,000 chains, 21,051 rules
  ASSERT_GE(GeneratedRuleCount(shape), 20000);
  absl::StatusOr<Ruleset> rs = ParseIptablesSave(GeneratedIptablesSave(shape), "generated.save", 4);
  ASSERT_TRUE(rs.ok()) << rs.status();
  Outcome o = Evaluate({*rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kDropped);
  EXPECT_LE(o.rules_examined, static_cast<uint64_t>(GeneratedRuleCount(shape)));
}

// A loop cannot be loaded into the kernel, but a pasted ruleset can have one:
// the jump back is named and not followed, and the walk ends.
TEST(EvaluateTest, ALoopIsReportedAndNotFollowed) {
  absl::StatusOr<Ruleset> rs = ParseIptablesSave(
      "*filter\n:INPUT ACCEPT [0:0]\n:A - [0:0]\n:B - [0:0]\n"
      "-A INPUT -j A\n-A A -p udp -j B\n-A B -p udp -j A\n-A B -p udp --dport 4791 -j DROP\nCOMMIT\n",
      "loop.save", 4);
  ASSERT_TRUE(rs.ok()) << rs.status();
  rs->source = "iptables-legacy";
  Outcome o = Evaluate({*rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kDropped);
  EXPECT_THAT(o.decided_by->Where(), HasSubstr("chain B rule 2"));
  ASSERT_EQ(o.uncertain.size(), 1u);
  EXPECT_THAT(o.uncertain[0], HasSubstr("filter A: jumped to again from a chain it jumps to (a loop"));
}

Ruleset Ipt(const std::string& text) {
  absl::StatusOr<Ruleset> rs = ParseIptablesSave(text, "kube.save", 4);
  EXPECT_TRUE(rs.ok()) << rs.status();
  if (!rs.ok()) return Ruleset();
  rs->source = "iptables-nft";
  return *rs;
}

// kube-proxy's pattern: a nat chain marks (KUBE-MARK-DROP), the filter
// table's KUBE-FIREWALL drops what is marked. The mark follows the packet.
const char kMarkInNat[] =
    "*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-MARK-DROP - [0:0]\n"
    "-A PREROUTING %s -j KUBE-MARK-DROP\n"
    "-A KUBE-MARK-DROP -j MARK --set-xmark 0x8000/0x8000\nCOMMIT\n"
    "*filter\n:INPUT ACCEPT [0:0]\n:KUBE-FIREWALL - [0:0]\n-A INPUT -j KUBE-FIREWALL\n"
    "-A KUBE-FIREWALL -m mark --mark 0x8000/0x8000 -m comment --comment \"kubernetes firewall for "
    "dropping marked packets\" -j DROP\nCOMMIT\n";

std::string MarkInNat(const std::string& match) {
  std::string s = kMarkInNat;
  s.replace(s.find("%s"), 2, match);
  return s;
}

TEST(EvaluateMarkTest, AMarkSetInNatIsDroppedByTheFilterRuleThatMatchesIt) {
  Outcome o = Evaluate({Ipt(MarkInNat("-p udp -m udp --dport 4791"))}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kDropped);
  ASSERT_TRUE(o.decided_by.has_value());
  EXPECT_THAT(o.decided_by->Where(), HasSubstr("table ip filter chain KUBE-FIREWALL rule 1"));
  EXPECT_TRUE(o.uncertain.empty()) << o.uncertain[0];
  ASSERT_EQ(o.marked_by.size(), 1u);
  EXPECT_THAT(o.marked_by[0], HasSubstr("table ip nat chain KUBE-MARK-DROP rule 1"));
  // nat chains mark; they do not count as base chains that decided.
  EXPECT_THAT(o.walked, ::testing::Not(Contains(HasSubstr("nat"))));
}

TEST(EvaluateMarkTest, AMarkSetForOtherTrafficLeavesRoceUnmarked) {
  Outcome o = Evaluate({Ipt(MarkInNat("-p tcp -m tcp --dport 30080"))}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kAccepted);
  EXPECT_TRUE(o.uncertain.empty()) << o.uncertain[0];
}

TEST(EvaluateMarkTest, AMarkThatDependsOnThePeerMakesTheDropUncertainAndSaysWhy) {
  Outcome o = Evaluate({Ipt(MarkInNat("-s 203.0.113.0/24 -p udp"))}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kAccepted);
  ASSERT_EQ(o.uncertain.size(), 1u);
  EXPECT_THAT(o.uncertain[0], HasSubstr("chain KUBE-FIREWALL rule 1"));
  EXPECT_THAT(o.uncertain[0], HasSubstr("the packet's mark is not known here, set in KUBE-MARK-DROP if "
                                        "iptables-nft table ip nat chain PREROUTING rule 1"));
}

TEST(EvaluateMarkTest, NftSetAndMatchForms) {
  Ruleset rs = Nft(testing::Fixture("nft_mark.nft"));
  // Inbound: the nat mark depends on the peer (saddr 203.0.113.0/24), so the
  // 0x8000 drop may match; `meta mark set 0x10` then makes `meta mark 0x10`
  // certain.
  Outcome in = Evaluate({rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(in.fate, Fate::kAccepted);
  ASSERT_TRUE(in.decided_by.has_value());
  EXPECT_THAT(in.decided_by->Where(), HasSubstr("chain input rule 3"));
  ASSERT_EQ(in.uncertain.size(), 1u);
  EXPECT_THAT(in.uncertain[0], HasSubstr("chain input rule 1"));
  // Outbound: the mark comes from the connection's (ct mark): unknown.
  Outcome out = Evaluate({rs}, RoceOutPacket("va", "198.18.0.1"));
  EXPECT_EQ(out.fate, Fate::kAccepted);
  ASSERT_EQ(out.uncertain.size(), 1u);
  EXPECT_THAT(out.uncertain[0], HasSubstr("`meta mark set ct mark`, from something not followed"));
}

TEST(EvaluateMarkTest, MarkArithmetic) {
  Packet p = RocePacket("va", "198.18.0.1");
  Match m;
  m.field = Match::Field::kMark;
  m.mark_mask = 0x8000;
  m.values = {"32768"};
  EXPECT_EQ(Matches(m, p), Tri::kNo);
  p.mark = 0x8001;
  EXPECT_EQ(Matches(m, p), Tri::kYes);
  p.mark = 0;
  p.mark_unknown = 0x0f00;  // unknown bits outside the mask do not matter
  EXPECT_EQ(Matches(m, p), Tri::kNo);
  p.mark_unknown = 0x8000;
  EXPECT_EQ(Matches(m, p), Tri::kMaybe);
  m.negate = true;
  EXPECT_EQ(Matches(m, p), Tri::kMaybe);
}

// A peer is never on loopback when the packet is on another netdev.
TEST(EvaluateOutTest, ALoopbackDestinationRuleDoesNotMatchAPeerOnAnotherNetdev) {
  Outcome out = Evaluate({Load("kube_docker_filter.save")}, RoceOutPacket("va", "198.18.0.1"));
  EXPECT_EQ(out.fate, Fate::kAccepted);
  EXPECT_TRUE(out.uncertain.empty()) << out.uncertain[0];
  Outcome lo = Evaluate({Nft(OutputChain("ip daddr 127.0.0.0/8 drop"))}, RoceOutPacket("lo", "127.0.0.1"));
  EXPECT_EQ(lo.uncertain.size(), 1u);
}

// Forwarded: prerouting, forward, postrouting; both interfaces match. On the
// real node's ruleset, docker's rules accept docker0 <-> docker0 and the
// policy drops what is bridged across br0.
TEST(EvaluateFwdTest, ForwardChainWithBothInterfaces) {
  Ruleset rs = Load("kube_docker_filter.save");
  Outcome br = Evaluate({rs}, RoceFwdPacket("br0", "br0", 4));
  EXPECT_EQ(br.fate, Fate::kDropped);
  ASSERT_TRUE(br.decided_by.has_value());
  EXPECT_THAT(br.decided_by->Where(), HasSubstr("table ip filter chain FORWARD policy drop"));
  EXPECT_TRUE(br.uncertain.empty()) << br.uncertain[0];
  Outcome d0 = Evaluate({rs}, RoceFwdPacket("docker0", "docker0", 4));
  EXPECT_EQ(d0.fate, Fate::kAccepted);
  EXPECT_THAT(d0.decided_by->Where(), HasSubstr("chain FORWARD rule 6"));
  // Not on the input or output path.
  EXPECT_EQ(Evaluate({rs}, RocePacket("br0", "198.18.0.1")).fate, Fate::kAccepted);
  Ruleset fwd = Nft("table inet f {\n\tchain fwd {\n\t\ttype filter hook forward priority 0;\n"
                    "\t\tiifname \"br0\" oifname \"eth1\" udp dport 4791 drop\n\t}\n}\n");
  EXPECT_EQ(Evaluate({fwd}, RoceFwdPacket("br0", "eth1", 4)).fate, Fate::kDropped);
  EXPECT_EQ(Evaluate({fwd}, RoceFwdPacket("br0", "br0", 4)).fate, Fate::kAccepted);
  EXPECT_EQ(Evaluate({fwd}, RocePacket("br0", "198.18.0.1")).fate, Fate::kAccepted);
}


// Rulesets from the world (fixtures/rulesets/world/SOURCES.tsv): each read
// as the check reads it and judged for RoCE v2 in on, and out of, an uplink
// named eth0 with the address 198.18.0.1.
struct WorldCase {
  const char* file;
  Fate in;
  Fate out;
  bool in_certain;  // no rule may-match, nothing cut short on the way
};

absl::StatusOr<Ruleset> LoadWorld(const std::string& file) {
  std::string text = testing::Fixture("world/" + file);
  if (text.empty()) return absl::NotFoundError(file);
  if (absl::EndsWith(file, ".save")) {
    const bool v6 = absl::StrContains(file, "ip6tables");
    absl::StatusOr<Ruleset> rs = ParseIptablesSave(text, file, v6 ? 6 : 4);
    if (rs.ok()) rs->source = v6 ? "ip6tables-nft" : "iptables-nft";
    return rs;
  }
  return ParseNftListing(text, file);
}

const WorldCase kWorld[] = {
    {"centos7_k8s_flannel_docker_libvirt_iptables_services.save", Fate::kRejected, Fate::kAccepted, true},
    {"docker_tailscale_free5gc_iptables_nft.save", Fate::kAccepted, Fate::kAccepted, false},  // -s 100.64.0.0/10
    {"firewalld_direct_xtables_save_182_ipset_drop_truncated.save", Fate::kAccepted, Fate::kAccepted, false},
    {"rhel7_firewalld_era_ip6tables_save_reject_adm_prohibited.save", Fate::kAccepted, Fate::kAccepted, true},
    // Cut inside a later chain: INPUT was read whole, so its policy stands.
    {"ubuntu1604_algo_ipsec_vpn_input_drop_truncated.save", Fate::kDropped, Fate::kAccepted, false},  // -m policy
    {"ubuntu_libvirt_sshguard_duplicated_rules.save", Fate::kAccepted, Fate::kAccepted, true},
    {"debian13_podman5_rootless_netavark_table_expand2.nft", Fate::kAccepted, Fate::kAccepted, true},
    // The last '}' is missing; out: `ct state related,new queue ...` hands it to OpenSnitch.
    {"devuan_opensnitch_leftover_queue_policy_drop_truncated.nft", Fate::kDropped, Fate::kAccepted, true},
    {"docker29_nftables_bridge_portmap_table.nft", Fate::kAccepted, Fate::kAccepted, true},
    {"nftables_tests_firewalld_zones_huge_transaction.nft", Fate::kRejected, Fate::kAccepted, true},
    // Anonymous chains (`tcp flags syn jump { ... }`), output policy drop.
    {"nftables_tests_user_router_sample_ruleset_vmaps.nft", Fate::kDropped, Fate::kDropped, false},  // fib, @sets
    {"opensnitch_host_ratelimited_reject_queue_truncated.nft", Fate::kAccepted, Fate::kAccepted, false},
    {"openwrt_fw4_passwall_fullcone_router.nft", Fate::kRejected, Fate::kAccepted, true},
    {"rhel8_iptables_services_translated_nft_host_prohibited.nft", Fate::kRejected, Fate::kAccepted, true},
    {"ubuntu_lxd_libvirt_iptables_nft_handles.nft", Fate::kAccepted, Fate::kAccepted, true},
    {"ubuntu_multipass_iptables_nft_warnings_xt_target.nft", Fate::kAccepted, Fate::kAccepted, true},
    {"v2ray_tproxy_host_inet_filter_reject.nft", Fate::kRejected, Fate::kAccepted, true},
    {"netfilter_devel_nft091_raw_notrack_oneline.json", Fate::kAccepted, Fate::kAccepted, true},
    {"netfilter_devel_nft092_secmark_only_jq_pretty.json", Fate::kAccepted, Fate::kAccepted, true},
};

class WorldRulesetTest : public ::testing::TestWithParam<WorldCase> {};

TEST_P(WorldRulesetTest, DecidesRoceInAndOut) {
  const WorldCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(Ruleset rs, LoadWorld(c.file));
  Outcome in = Evaluate({rs}, RocePacket("eth0", "198.18.0.1"));
  Outcome out = Evaluate({rs}, RoceOutPacket("eth0", "198.18.0.1"));
  EXPECT_EQ(FateName(in.fate), FateName(c.in)) << (in.decided_by ? in.decided_by->Where() : "");
  EXPECT_EQ(FateName(out.fate), FateName(c.out)) << (out.decided_by ? out.decided_by->Where() : "");
  EXPECT_EQ(in.uncertain.empty() && !in.cut, c.in_certain) << absl::StrJoin(in.uncertain, "\n");
}

INSTANTIATE_TEST_SUITE_P(World, WorldRulesetTest, ::testing::ValuesIn(kWorld));

// Over IPv6 the RHEL 7 ip6tables ruleset rejects it at its last INPUT rule.
TEST(WorldRulesetTest, Ip6tablesRejectsRoceOverIpv6) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, LoadWorld("rhel7_firewalld_era_ip6tables_save_reject_adm_prohibited.save"));
  Outcome in = Evaluate({rs}, RocePacket("eth0", "2001:db8::1"));
  EXPECT_EQ(in.fate, Fate::kRejected);
  ASSERT_TRUE(in.decided_by.has_value());
  EXPECT_THAT(in.decided_by->text, HasSubstr("icmp6-adm-prohibited"));
}

// nft printed a comment holding a tab and the next rule unquoted: a
// structural error, named with its line, never a guess.
TEST(WorldRulesetTest, MangledCommentsAreRefusedWithTheirLine) {
  EXPECT_THAT(LoadWorld("kube_nfproxy_ubuntu1804_nft091_mangled_comments.nft"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nft091_mangled_comments.nft:67:")));
}

// Cut short inside the base chain itself: its policy is what the dump
// shows, not what decides, so the outcome is marked cut.
TEST(CutDumpTest, NftPolicyOfAChainCutShortIsNotCertain) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset("table inet f {\n\tchain input {\n\t\ttype filter hook input "
                                                   "priority filter; policy drop;\n\t\tct state established accept\n",
                                                   "cut.nft"));
  EXPECT_THAT(rs.incomplete, HasSubstr("cut.nft:4: the listing ends inside table inet f chain input"));
  Outcome o = Evaluate({rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kDropped);
  EXPECT_TRUE(o.cut);
  EXPECT_THAT(o.uncertain, Contains(HasSubstr("the dump ends inside this chain; rules after line 4 are unknown")));
}

TEST(CutDumpTest, NftLineCutMidWayIsNotReadAsARule) {
  // "udp dport 47" of "udp dport 4791 accept": not a rule about port 47.
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset("table inet f {\n\tchain input {\n\t\ttype filter hook input "
                                                   "priority filter; policy accept;\n\t\tudp dport 47",
                                                   "cut.nft"));
  ASSERT_EQ(rs.tables.size(), 1u);
  EXPECT_TRUE(rs.tables[0].chains[0].rules.empty());
  EXPECT_THAT(rs.incomplete, HasSubstr("was not read: `udp dport 47`"));
}

TEST(CutDumpTest, NftJumpToAChainAfterTheCutMayMatch) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset("table inet f {\n\tchain input {\n\t\ttype filter hook input "
                                                   "priority filter; policy accept;\n\t\tjump later\n\t}\n",
                                                   "cut.nft"));
  const Rule& r = rs.tables[0].chains[0].rules[0];
  EXPECT_THAT(r.not_understood, Contains(HasSubstr("jump to chain later, which the cut dump does not reach")));
  EXPECT_FALSE(rs.tables[0].chains[0].cut);  // its '}' was read
}

TEST(CutDumpTest, NftSetCutShortIsNotUnderstood) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset("table inet t {\n\tset s {\n\t\ttype inet_service\n\t\telements "
                                                   "= { 1, 2,\n",
                                                   "cut.nft"));
  EXPECT_FALSE(rs.tables[0].sets.at("s").understood);
  EXPECT_THAT(rs.incomplete, HasSubstr("inside table inet t set s"));
}

TEST(CutDumpTest, IptablesChainsFromTheLastRuleOnMayHaveMore) {
  // *-save prints chains in order: INPUT's rules were followed by FORWARD's,
  // so INPUT is whole; FORWARD and OUTPUT may have more.
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseIptablesSave("*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n"
                                                     ":OUTPUT ACCEPT [0:0]\n-A INPUT -i lo -j ACCEPT\n"
                                                     "-A FORWARD -j ACCEPT\n",
                                                     "cut.save", 4));
  const Table& t = rs.tables[0];
  EXPECT_FALSE(t.FindChain("INPUT")->cut);
  EXPECT_TRUE(t.FindChain("FORWARD")->cut);
  EXPECT_TRUE(t.FindChain("OUTPUT")->cut);
  EXPECT_THAT(rs.incomplete, HasSubstr("cut.save:6: table filter ends without COMMIT"));
  Outcome in = Evaluate({rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(in.fate, Fate::kDropped);
  EXPECT_FALSE(in.cut);
}

TEST(QueueTest, AQueuedPacketIsAcceptedOnlyIfTheProgramSaysSo) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset("table inet f {\n\tchain input {\n\t\ttype filter hook input "
                                                   "priority filter; policy drop;\n\t\tct state new queue num 0 "
                                                   "bypass\n\t}\n}\n",
                                                   "q.nft"));
  Outcome o = Evaluate({rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kAccepted);
  EXPECT_THAT(o.uncertain, Contains(HasSubstr("hands the packet to a userspace program")));
}

TEST(AnonymousChainTest, ADropInsideAnAnonymousChainDrops) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs,
                       ParseNftRuleset("table inet f {\n\tchain input {\n\t\ttype filter hook input priority filter; "
                                       "policy accept;\n\t\tmeta l4proto udp jump {\n\t\t\tudp dport 4791 drop\n\t\t}\n"
                                       "\t\tudp dport 4791 accept\n\t}\n}\n",
                                       "anon.nft"));
  ASSERT_EQ(rs.tables[0].chains.size(), 2u);
  EXPECT_EQ(rs.tables[0].chains[1].name, "input/anonymous-4");
  EXPECT_EQ(rs.tables[0].chains[0].rules.size(), 2u);  // the jump, then the accept after the block
  Outcome o = Evaluate({rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(o.fate, Fate::kDropped);
  EXPECT_THAT(o.decided_by->Where(), HasSubstr("input/anonymous-4"));
}

TEST(OneLineCloseTest, ARuleFollowedByTheChainsBraceOnItsLine) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset("table inet f {\n\tchain input {\n\t\ttype filter hook input "
                                                   "priority filter; policy accept;\n\t\tudp dport 4791 drop "
                                                   "comment \"x\" }\n}\n",
                                                   "one.nft"));
  ASSERT_EQ(rs.tables[0].chains[0].rules.size(), 1u);
  EXPECT_EQ(Evaluate({rs}, RocePacket("va", "198.18.0.1")).fate, Fate::kDropped);
}

}  // namespace
}  // namespace rdmacheck::firewall
