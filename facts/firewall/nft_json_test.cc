#include "facts/firewall/nft_json.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "facts/firewall/evaluate.h"
#include "facts/firewall/nft_ruleset.h"
#include "facts/firewall/test_util.h"
#include "gmock/gmock.h"
#include "nlohmann/json.hpp"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck::firewall {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using ::rdmacheck::testing::StatusIs;

// One line per chain and rule: what the evaluator uses of the model.
std::string Shape(const Ruleset& rs) {
  std::vector<std::string> out;
  for (const Table& t : rs.tables) {
    out.push_back(absl::StrCat("table ", t.family, " ", t.name, " managed=", t.iptables_managed));
    for (const auto& [name, s] : t.sets)
      out.push_back(absl::StrCat(" set ", name, " ", absl::StrJoin(s.elements, ","), " ", s.understood));
    for (const Chain& c : t.chains) {
      out.push_back(absl::StrCat(" chain ", c.name, " base=", c.base, " ", c.type, " ", c.hook, " ", c.priority,
                                 " ", c.policy, " handle=", c.handle));
      for (const Rule& r : c.rules) {
        std::string line = absl::StrCat("  rule ", r.position, " handle=", r.handle, " ", ActionName(r.action),
                                        " ", r.target, " unknown=", !r.not_understood.empty());
        // A rule read in part may keep more of its matches from JSON,
        // whose expressions are separate, than from text.
        if (!r.not_understood.empty()) {
          out.push_back(line);
          continue;
        }
        for (const Match& m : r.matches) {
          absl::StrAppend(&line, " [", static_cast<int>(m.field), m.negate ? "!" : "", " ", m.family, " ",
                          absl::StrJoin(m.values, ","));
          for (const auto& [lo, hi] : m.ports) absl::StrAppend(&line, " ", lo, "-", hi);
          if (m.field == Match::Field::kMark) absl::StrAppend(&line, " mask ", m.mark_mask);
          absl::StrAppend(&line, "]");
        }
        if (r.mark_set)
          absl::StrAppend(&line, " mark_set ", r.mark_set->mask, "/", r.mark_set->value, " known=", r.mark_set->known);
        out.push_back(line);
      }
    }
  }
  return absl::StrJoin(out, "\n");
}

std::vector<Packet> Packets() {
  return {RocePacket("va", "198.18.0.1"), RocePacket("vb", "198.18.0.2"), RocePacket("lo", "127.0.0.1"),
          RocePacket("va", "2001:db8::1"), RoceOutPacket("va", "198.18.0.1"), RoceOutPacket("vb", "198.18.0.2")};
}

std::string Verdicts(const Ruleset& rs) {
  std::vector<std::string> out;
  for (const Packet& p : Packets()) {
    Outcome o = Evaluate({rs}, p);
    // Not the rule's text: nft's text leaves out defaults its JSON spells
    // out (`reject` / `reject with icmp port-unreachable`).
    out.push_back(absl::StrCat(FateName(o.fate), " ", o.decided_by ? o.decided_by->Where() : "-",
                               " uncertain=", !o.uncertain.empty()));
  }
  return absl::StrJoin(out, "\n");
}

const char* const kCaptured[] = {
    "firewalld_public",   "firewalld_public_4791", "nft_iface_other",        "nft_iptables_managed",
    "nft_json_forms",     "nft_jump_user_chain",   "nft_not_understood",     "nft_plain_drop",
    "nft_policy_drop",    "nft_policy_drop_accept", "nft_reject",            "nft_set_drop",
    "nft_mark",
};

// nft's JSON and its text of one ruleset (both printed by nft 1.0.6):
// one model, the same verdicts, the same rules named by handle.
TEST(NftJson, SameModelAndVerdictsAsTheTextOfOneRuleset) {
  for (const char* name : kCaptured) {
    SCOPED_TRACE(name);
    std::string json = testing::Fixture(absl::StrCat("nft_json/", name, ".json"));
    std::string text = testing::Fixture(absl::StrCat("nft_json/", name, ".nft"));
    ASSERT_TRUE(IsNftJson(json));
    ASSERT_FALSE(IsNftJson(text));
    ASSERT_OK_AND_ASSIGN(Ruleset j, ParseNftListing(json, "nft"));
    ASSERT_OK_AND_ASSIGN(Ruleset t, ParseNftListing(text, "nft"));
    EXPECT_EQ(Shape(j), Shape(t));
    EXPECT_THAT(j.incomplete, IsEmpty());
    // The text names rules by line, the JSON by handle: compare without them.
    std::string vj = Verdicts(j), vt = Verdicts(t);
    for (std::string* v : {&vj, &vt}) {
      std::string out;
      for (absl::string_view l : absl::StrSplit(*v, '\n')) {
        size_t at = l.find(" (");
        size_t close = l.find(')', at);
        absl::StrAppend(&out, at == absl::string_view::npos ? l : absl::StrCat(l.substr(0, at), l.substr(close + 1)),
                        "\n");
      }
      *v = out;
    }
    EXPECT_EQ(vj, vt);
  }
}

TEST(NftJson, RuleFormsOfTheJsonInterface) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftJson(testing::Fixture("nft_json/nft_json_forms.json"), "nft"));
  ASSERT_EQ(rs.tables.size(), 1u);
  const Table& t = rs.tables[0];
  const Chain* input = t.FindChain("input");
  ASSERT_NE(input, nullptr);
  EXPECT_TRUE(input->base);
  EXPECT_EQ(input->policy, "drop");
  // The vmap is one rule per key, all at position 1.
  ASSERT_GE(input->rules.size(), 3u);
  EXPECT_EQ(input->rules[0].position, 1);
  EXPECT_EQ(input->rules[2].position, 1);
  EXPECT_EQ(input->rules[0].action, Action::kDrop);
  EXPECT_EQ(input->rules[1].action, Action::kAccept);
  EXPECT_EQ(input->rules[0].text, "ct state vmap { invalid : drop, established : accept, related : accept }");
  EXPECT_EQ(input->rules[3].text, "iifname \"lo\" accept");
  // fib is kept as not understood, as the text reader does.
  EXPECT_THAT(input->rules[4].not_understood, Contains(HasSubstr("fib daddr type != local")));
  EXPECT_EQ(input->rules[5].text, "ip6 daddr 2001:db8::/64 udp dport 4791 accept comment \"v6 RoCE\"");
  EXPECT_EQ(input->rules[6].action, Action::kGoto);
  EXPECT_EQ(input->rules[6].target, "trusted");
  ASSERT_EQ(input->rules[6].matches.size(), 1u);
  EXPECT_EQ(input->rules[6].matches[0].values, std::vector<std::string>{"vb*"});
  const Chain* udp_in = t.FindChain("udp_in");
  ASSERT_NE(udp_in, nullptr);
  ASSERT_EQ(udp_in->rules.size(), 3u);
  // `udp dport < 1024`: ports 0-1023 (and the protocol it implies).
  ASSERT_EQ(udp_in->rules[0].matches.size(), 2u);
  EXPECT_EQ(udp_in->rules[0].matches[1].ports, (std::vector<std::pair<int, int>>{{0, 1023}}));
  EXPECT_EQ(udp_in->rules[1].text, "udp dport 4000-4999 counter packets 3 bytes 300 drop");
  EXPECT_EQ(t.sets.at("roce_ifs").elements, (std::vector<std::string>{"va", "va.100"}));
}

TEST(NftJson, VerdictsOfTheFormsRuleset) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftJson(testing::Fixture("nft_json/nft_json_forms.json"), "nft"));
  // In on va: the fib rule may match (named), then udp_in drops 4000-4999.
  Outcome in = Evaluate({rs}, RocePacket("va", "198.18.0.1"));
  EXPECT_EQ(in.fate, Fate::kDropped);
  ASSERT_TRUE(in.decided_by.has_value());
  EXPECT_EQ(in.decided_by->Where(), absl::StrCat("nft table inet host chain udp_in rule 2 (handle ",
                                                 rs.tables[0].FindChain("udp_in")->rules[1].handle, ")"));
  EXPECT_THAT(in.uncertain, Contains(HasSubstr("fib daddr type != local")));
  // In on vb: `iifname "vb*" goto trusted` accepts first.
  Outcome vb = Evaluate({rs}, RocePacket("vb", "198.18.0.2"));
  EXPECT_EQ(vb.fate, Fate::kAccepted);
  EXPECT_EQ(vb.decided_by->chain, "trusted");
  // IPv6 in on va: the ip6 daddr rule accepts.
  Outcome v6 = Evaluate({rs}, RocePacket("va", "2001:db8::1"));
  EXPECT_EQ(v6.fate, Fate::kAccepted);
  EXPECT_THAT(v6.decided_by->text, HasSubstr("v6 RoCE"));
  // Out of va: the @roce_ifs reject; out of vb: the policy accept.
  Outcome out = Evaluate({rs}, RoceOutPacket("va", "198.18.0.1"));
  EXPECT_EQ(out.fate, Fate::kRejected);
  EXPECT_EQ(out.decided_by->text, "oifname @roce_ifs udp dport 4791 reject with icmpx admin-prohibited");
  EXPECT_EQ(Evaluate({rs}, RoceOutPacket("vb", "198.18.0.2")).fate, Fate::kAccepted);
}

TEST(NftJson, TextReaderTakesTheHandlesOfNftA) {
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftRuleset(testing::Fixture("nft_json/nft_plain_drop.nft"), "nft"));
  const Chain* input = rs.tables[0].FindChain("input");
  ASSERT_NE(input, nullptr);
  EXPECT_GT(input->handle, 0);
  for (const Rule& r : input->rules) EXPECT_GT(r.handle, 0) << r.text;
}

TEST(NftJson, CompatExpressionsMarkTheTableIptablesManaged) {
  // `xt` as nft >= 1.0.7 prints it, and as older nft did (null).
  for (const char* xt : {R"({"xt": {"type": "match", "name": "conntrack"}})", R"({"xt": null})"}) {
    SCOPED_TRACE(xt);
    std::string doc = absl::StrCat(
        R"({"nftables": [{"table": {"family": "ip", "name": "filter", "handle": 1}},)",
        R"({"chain": {"family": "ip", "table": "filter", "name": "INPUT", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "accept"}},)",
        R"({"rule": {"family": "ip", "table": "filter", "chain": "INPUT", "handle": 4, "expr": [)", xt,
        R"(, {"counter": {"packets": 0, "bytes": 0}}, {"drop": null}]}}]})");
    ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftJson(doc, "nft"));
    EXPECT_TRUE(rs.tables[0].iptables_managed);
    EXPECT_THAT(rs.tables[0].chains[0].rules[0].not_understood, Not(IsEmpty()));
  }
}

TEST(NftJson, ACutShortDocumentIsReadUpToItsLastObject) {
  std::string json = testing::Fixture("nft_json/firewalld_public.json");
  std::string cut = json.substr(0, json.size() / 2);
  ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftListing(cut, "pasted.json"));
  EXPECT_THAT(rs.incomplete, HasSubstr("the JSON stops after"));
  EXPECT_THAT(rs.incomplete, HasSubstr(absl::StrCat(" of ", cut.size(), ";")));
  ASSERT_FALSE(rs.tables.empty());
  EXPECT_EQ(rs.tables[0].name, "firewalld");
  // Cut inside its first object: nothing to read, and the byte named.
  absl::StatusOr<Ruleset> none = ParseNftJson(json.substr(0, 40), "pasted.json");
  EXPECT_THAT(none.status(), StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("pasted.json: byte 40: not JSON")));
}

TEST(NftJson, BadDocumentsAreNamedErrors) {
  struct Case {
    const char* doc;
    const char* error;
  } cases[] = {
      {R"({"tables": []})", "f.json: expected {\"nftables\": [...]}"},
      {R"({"nftables": [{"table": {"family": "ipx", "name": "t"}}]})", "f.json: nftables[0]: unknown table family \"ipx\""},
      {R"({"nftables": [{"chain": {"family": "ip", "table": "t", "name": "c", "hook": "input", "prio": "filter"}}]})",
       "f.json: nftables[0]: chain c: \"prio\" is \"filter\", not a number"},
      {R"({"nftables": [{"table": {"family": "ip", "name": "t"}}, {"chain": {"family": "ip", "table": "t", "name": "c"}},)"
       R"({"rule": {"family": "ip", "table": "t", "chain": "c", "handle": 9, "expr": [{"jump": {"target": "nowhere"}}]}}]})",
       "f.json: rule handle 9 in table ip t: jump to chain nowhere which table ip t does not define"},
      {R"({"nftables": [{"rule": {"family": "ip", "table": "t", "chain": "c", "expr": 5}}]})",
       "f.json: nftables[0]: rule handle 0: \"expr\" is not a list"},
      {R"({"nftables": [7]})", "f.json: nftables[0]: expected an object with one key"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.doc);
    EXPECT_THAT(ParseNftJson(c.doc, "f.json").status(),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(c.error)));
  }
}

TEST(NftJson, AnEmptyRulesetAndAPartialListing) {
  ASSERT_OK_AND_ASSIGN(
      Ruleset empty,
      ParseNftJson(R"({"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}}]})", "nft"));
  EXPECT_THAT(empty.tables, IsEmpty());
  // `nft -j list chain inet filter input` carries no table object: the
  // table is made, and a note says so.
  ASSERT_OK_AND_ASSIGN(
      Ruleset chain,
      ParseNftJson(R"({"nftables": [{"chain": {"family": "inet", "table": "filter", "name": "input", "handle": 1,)"
                   R"( "type": "filter", "hook": "input", "prio": 0, "policy": "drop"}}]})",
                   "nft"));
  ASSERT_EQ(chain.tables.size(), 1u);
  EXPECT_THAT(chain.notes, Contains(HasSubstr("which no table object listed before it")));
  EXPECT_EQ(Evaluate({chain}, RocePacket("va", "198.18.0.1")).fate, Fate::kDropped);
}

}  // namespace
}  // namespace rdmacheck::firewall

namespace rdmacheck::firewall {
namespace {

// Dumps of `nft -j list ruleset` from public sources (fixtures/rulesets/json/
// SOURCES.md), nft 0.9.3 to 1.1.4: every one reads, and every rule lands in
// the model, understood or named as not.
TEST(NftJsonInTheWild, EveryPublishedDumpReads) {
  const char* const kFiles[] = {
      "aleph_vm_docker_host_nft109",       "go_nftables_demo_ether_saddr_log_nft093",
      "insights_core_rhel_nft093_vmap",    "nftables_rs_gentoo_workstation",
      "nftables_rs_nftables_init_host",    "nftables_rs_space_keys",
      "nftables_rs_synproxy_nft106",       "nftables_tests_all_families_dependency_kill",
      "nftables_tests_different_defines",  "nftables_tests_firewalld_large_rule_pipe",
      "nftables_tests_flowtable",          "nftables_tests_maps_named_limits",
      "nftables_tests_maps_nat_addr_port", "nftables_tests_merge_vmaps",
      "nftables_tests_named_objects_comments", "nftables_tests_netdev_stacked_l2_headers",
      "nftables_tests_pknock",             "nftables_tests_sets_concatenated_ranges",
      "nftables_tests_sets_set_stmt",
  };
  for (const char* name : kFiles) {
    SCOPED_TRACE(name);
    std::string text = testing::Fixture(absl::StrCat("json/", name, ".json"));
    ASSERT_FALSE(text.empty());
    absl::StatusOr<Ruleset> rs = ParseNftListing(text, name);
    ASSERT_TRUE(rs.ok()) << rs.status();
    EXPECT_THAT(rs->incomplete, IsEmpty());
    ASSERT_FALSE(rs->tables.empty());
    size_t objects = 0, rules = 0;
    nlohmann::json doc = nlohmann::json::parse(text);
    for (const auto& o : doc["nftables"]) {
      if (o.contains("rule")) ++objects;
    }
    for (const Table& t : rs->tables)
      for (const Chain& c : t.chains)
        for (const Rule& r : c.rules) {
          // A vmap's keys share one position: count each rule once.
          if (&r == &c.rules.front() || r.position != (&r - 1)->position) ++rules;
          EXPECT_FALSE(r.text.empty());
        }
    EXPECT_EQ(rules, objects);
    for (const Packet& p : Packets()) (void)Evaluate({*rs}, p);
  }
}

// Whole-host rulesets from the wild, and what they do to RoCE v2 arriving
// on eth0 for 198.18.0.1 and leaving it.
TEST(NftJsonInTheWild, WholeHostRulesetsDecideAsTheirRulesSay) {
  struct Case {
    const char* file;
    Fate in;
    const char* in_by;  // substring of decided_by->Where() and text
    bool in_uncertain;
    Fate out;
  } cases[] = {
      // firewalld's default zone: the reject at the end of filter_INPUT.
      {"nftables_tests_firewalld_large_rule_pipe", Fate::kRejected,
       "inet firewalld chain filter_INPUT rule 6 reject with icmpx admin-prohibited", false, Fate::kAccepted},
      // The Gentoo wiki workstation: input policy drop, output open.
      {"nftables_rs_gentoo_workstation", Fate::kDropped, "ip filter chain input policy drop (handle 1) policy drop",
       false, Fate::kAccepted},
      // A policy accept past two source-address rules (the peer is unknown):
      // accepted, but not certainly. Its `tcp flags & ...` drops are TCP only.
      {"nftables_rs_nftables_init_host", Fate::kAccepted, "inet filter chain input policy accept", true,
       Fate::kAccepted},
      {"insights_core_rhel_nft093_vmap", Fate::kRejected, "ip nftables_svc chain INPUT rule 3 (handle 4) reject",
       true, Fate::kAccepted},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    ASSERT_OK_AND_ASSIGN(Ruleset rs, ParseNftJson(testing::Fixture(absl::StrCat("json/", c.file, ".json")), c.file));
    Outcome in = Evaluate({rs}, RocePacket("eth0", "198.18.0.1"));
    EXPECT_EQ(in.fate, c.in);
    ASSERT_TRUE(in.decided_by.has_value());
    EXPECT_THAT(absl::StrCat(in.decided_by->Where(), " ", in.decided_by->text), HasSubstr(c.in_by));
    EXPECT_EQ(!in.uncertain.empty(), c.in_uncertain) << absl::StrJoin(in.uncertain, "\n");
    for (const std::string& u : in.uncertain) EXPECT_THAT(u, Not(HasSubstr("tcp flags")));
    EXPECT_EQ(Evaluate({rs}, RoceOutPacket("eth0", "198.18.0.1")).fate, c.out);
  }
}

}  // namespace
}  // namespace rdmacheck::firewall
