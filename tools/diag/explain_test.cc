#include "tools/diag/explain.h"

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/diag/explain_command.h"
#include "tools/diag/explain_output.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ExplainTest : public ::testing::Test {
 protected:
  // Loaded once for all tests.
  static void SetUpTestSuite() {
    auto rules = ExplainRuleSet::LoadEmbedded();
    ASSERT_TRUE(rules.ok()) << rules.status();
    shared_ = std::move(rules).value().release();
  }
  void SetUp() override { ASSERT_NE(rules_, nullptr); }
  static const ExplainRuleSet* shared_;
  const ExplainRuleSet* const& rules_ = shared_;
};
const ExplainRuleSet* ExplainTest::shared_ = nullptr;

constexpr char kMixed[] =
    "boot ok\n"                                                     // 1
    "IB device mlx5_0 not found\n"                                  // 2
    "unrelated: everything is fine\n"                               // 3
    "IB device mlx5_1 not found\n"                                  // 4
    "Couldn't listen to port 18515\n"                               // 5
    "IB device mlx5_0 not found\n"                                  // 6
    "more noise\n"                                                  // 7
    "IB device mlx5_0 not found";                                   // 8, no '\n'

void ExpectMixedFindings(const Explainer& ex) {
  ASSERT_EQ(ex.findings().size(), 3u);
  const Finding& a = ex.findings()[0];
  EXPECT_EQ(a.rule->id, "perftest-device-not-found");
  EXPECT_EQ(a.captures, (Captures{{"dev", "mlx5_0"}}));
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.first.line, 2);
  EXPECT_EQ(a.last.line, 8);
  EXPECT_EQ(a.first.source, "mixed.log");
  const Finding& b = ex.findings()[1];
  EXPECT_EQ(b.captures, (Captures{{"dev", "mlx5_1"}}));  // another key
  EXPECT_EQ(b.count, 1);
  EXPECT_EQ(b.first.line, 4);
  EXPECT_EQ(b.last.line, 4);
  EXPECT_EQ(ex.findings()[2].rule->id, "perftest-port-in-use");
  EXPECT_EQ(ex.findings()[2].first.line, 5);
  EXPECT_EQ(ex.stats().lines, 8);
  EXPECT_EQ(ex.stats().matched_lines, 5);
  EXPECT_EQ(ex.stats().bytes, static_cast<int64_t>(sizeof(kMixed) - 1));
}

TEST_F(ExplainTest, StreamingCountsAndLineNumbers) {
  Explainer ex(*rules_);
  std::istringstream in(kMixed);
  ASSERT_OK(ex.ConsumeStream(in, "mixed.log"));
  ExpectMixedFindings(ex);
}

// The same findings whatever the chunking: lines split across Feed calls.
TEST_F(ExplainTest, ChunkBoundariesDoNotMatter) {
  for (size_t chunk : {1u, 2u, 3u, 7u, 64u}) {
    Explainer ex(*rules_);
    ex.BeginSource("mixed.log");
    absl::string_view all(kMixed);
    for (size_t i = 0; i < all.size(); i += chunk) ex.Feed(all.substr(i, chunk));
    ex.EndSource();
    SCOPED_TRACE(chunk);
    ExpectMixedFindings(ex);
  }
}

TEST_F(ExplainTest, FindingSpansSourcesAndKeepsFirstAndLast) {
  Explainer ex(*rules_);
  std::istringstream a("x\nrdma_rxe: unloaded\n"), b("rdma_rxe: unloaded\ny\n");
  ASSERT_OK(ex.ConsumeStream(a, "a.log"));
  ASSERT_OK(ex.ConsumeStream(b, "b.log"));
  ASSERT_EQ(ex.findings().size(), 1u);
  const Finding& f = ex.findings()[0];
  EXPECT_EQ(f.count, 2);
  EXPECT_EQ(f.first.source, "a.log");
  EXPECT_EQ(f.first.line, 2);
  EXPECT_EQ(f.last.source, "b.log");
  EXPECT_EQ(f.last.line, 1);
  EXPECT_EQ(ex.stats().sources, (std::vector<std::string>{"a.log", "b.log"}));
}

// Lines over the cap: the first max_line_bytes are matched, the rest skipped;
// line numbering stays right.
TEST_F(ExplainTest, LongLinesAreCutAndCounted) {
  ExplainOptions opts;
  opts.max_line_bytes = 1024;
  std::string log = "rdma_rxe: unloaded " + std::string(5000, 'x') + "\n" +
                    std::string(5000, 'y') + " rdma_rxe: failed to add eth0\n" +
                    "Couldn't get port info\r\n";
  for (size_t chunk : {100u, 1u << 20}) {
    Explainer ex(*rules_, opts);
    ex.BeginSource("long.log");
    for (size_t i = 0; i < log.size(); i += chunk) {
      ex.Feed(absl::string_view(log).substr(i, chunk));
    }
    ex.EndSource();
    EXPECT_EQ(ex.stats().lines, 3);
    EXPECT_EQ(ex.stats().truncated_lines, 2);
    ASSERT_EQ(ex.findings().size(), 2u);  // the error past the cap is not seen
    EXPECT_EQ(ex.findings()[0].rule->id, "rxe-unloaded");
    EXPECT_EQ(ex.findings()[0].first_line.size(), opts.max_example_bytes);
    EXPECT_EQ(ex.findings()[1].rule->id, "pingpong-port-info");
    EXPECT_EQ(ex.findings()[1].first.line, 3);
    EXPECT_EQ(ex.findings()[1].first_line, "Couldn't get port info");  // no \r
  }
}

TEST_F(ExplainTest, DistinctFindingsAreCapped) {
  ExplainOptions opts;
  opts.max_findings = 2;
  Explainer ex(*rules_, opts);
  ex.BeginSource("-");
  for (int i = 0; i < 5; ++i) {
    ex.ConsumeLine(absl::StrCat("IB device dev", i, " not found"));
  }
  ex.ConsumeLine("IB device dev0 not found");
  EXPECT_EQ(ex.findings().size(), 2u);
  EXPECT_EQ(ex.findings()[0].count, 2);
  EXPECT_EQ(ex.stats().dropped_findings, 3);
}

// The fixture: ib_write_bw blocked by a firewall hangs, then fails with
// retry exceeded.
TEST_F(ExplainTest, PerftestFirewallLog) {
  std::ifstream in("fixtures/logs/ib_write_bw_firewall_client.log");
  ASSERT_TRUE(in) << "fixture missing";
  Explainer ex(*rules_);
  ASSERT_OK(ex.ConsumeStream(in, "client.log"));
  // perftest's closing "Failed to complete run_iter_bw" is grouped under
  // the completion error it follows: two causes to show, not three.
  ASSERT_EQ(ex.findings().size(), 3u);
  EXPECT_EQ(ex.root_findings(), 2u);
  EXPECT_EQ(ex.findings()[2].rule->id, "perftest-test-failed");
  EXPECT_EQ(ex.findings()[2].grouped_under, 1);
  const Finding& completion = ex.findings()[0];
  EXPECT_EQ(completion.rule->id, "perftest-completion-error");
  EXPECT_EQ(completion.captures, (Captures{{"side", "client"}}));
  EXPECT_EQ(completion.first.line, 29);
  const Finding& retry = ex.findings()[1];
  EXPECT_EQ(retry.rule->id, "wc-retry-exc-err");
  EXPECT_EQ(retry.first.line, 30);
  EXPECT_EQ(retry.count, 1);
  EXPECT_THAT(retry.ConfirmCommand(), HasSubstr("firewall-4791"));
  std::string remedy;
  for (const auto& r : retry.Remediation()) remedy += r + "\n";
  EXPECT_THAT(remedy, HasSubstr("--dport 4791"));
  EXPECT_EQ(ex.stats().lines, 32);
}

// The same log gives the same findings on either matcher.
TEST_F(ExplainTest, FindingsDoNotDependOnTheMatcher) {
  std::vector<std::vector<std::string>> runs;
  for (auto m : {ExplainRuleSet::Matcher::kSet, ExplainRuleSet::Matcher::kPrefilter}) {
    ExplainOptions o;
    o.matcher = m;
    Explainer ex(*rules_, o);
    for (const char* f : {"fixtures/logs/ib_write_bw_firewall_client.log", "fixtures/logs/nccl_port_flap.log"}) {
      std::ifstream in(f);
      ASSERT_TRUE(in) << f;
      ASSERT_OK(ex.ConsumeStream(in, f));
    }
    std::vector<std::string> got;
    for (const Finding& fd : ex.findings())
      got.push_back(absl::StrCat(fd.rule->id, " ", fd.first.line, " ", fd.count, " ", fd.grouped_under));
    got.push_back(absl::StrCat("unexplained ", ex.stats().unexplained_lines));
    runs.push_back(got);
    EXPECT_EQ(ex.matcher_choice().stretches(m), 0);  // fixed: never timed
  }
  EXPECT_GE(runs[0].size(), 4u);
  EXPECT_EQ(runs[0], runs[1]);
}

// The choice between the matchers, given each stretch's time per byte:
// four stretches on the prefilter, three on the set, then the faster by the
// best of each one's last three, the other timed again now and then.
TEST(MatcherChoice, TriesBothThenKeepsTheFaster) {
  using M = ExplainRuleSet::Matcher;
  auto run = [](double set_ns, double prefilter_ns, int n) {
    MatcherChoice c(std::nullopt);
    std::vector<M> seen;
    for (int i = 0; i < n; ++i) {
      seen.push_back(c.current());
      c.Timed(c.current() == M::kSet ? set_ns : prefilter_ns);
    }
    return seen;
  };
  auto where = [](const std::vector<M>& seen, M m, size_t from) {
    std::vector<size_t> at;
    for (size_t i = from; i < seen.size(); ++i)
      if (seen[i] == m) at.push_back(i);
    return at;
  };
  // The set at 1 ns/B, the prefilter at 3: a log of a few lines repeated.
  std::vector<M> warm = run(1.0, 3.0, 300);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(warm[i], M::kPrefilter) << i;
  for (int i = 4; i < 7; ++i) EXPECT_EQ(warm[i], M::kSet) << i;
  // Then the set, with the prefilter timed once every 65 stretches.
  std::vector<size_t> tries = where(warm, M::kPrefilter, 7);
  ASSERT_EQ(tries.size(), 4u);
  EXPECT_EQ(tries[1] - tries[0], 65u);
  EXPECT_EQ(tries[2] - tries[1], 65u);
  // A log the set has not seen: the prefilter, with the set tried again
  // after 16 stretches, then 32, 64, ... as it keeps losing.
  std::vector<M> cold = run(8.0, 2.0, 600);
  std::vector<size_t> set_tries = where(cold, M::kSet, 7);
  ASSERT_GE(set_tries.size(), 4u);
  EXPECT_EQ(set_tries[1] - set_tries[0], 33u);
  EXPECT_EQ(set_tries[2] - set_tries[1], 65u);
  EXPECT_EQ(set_tries[3] - set_tries[2], 129u);
  EXPECT_LE(set_tries.size(), 5u);
  // A big rule base's set warms over several MiB of a repeating log: its
  // first stretches lose by little (1.2x), its sixth on win (0.5x). It is
  // tried again every few stretches while it loses by little, and kept once
  // warm; without that it would wait 16, then 32 stretches.
  MatcherChoice warming(std::nullopt);
  std::vector<M> w;
  for (int i = 0, set_runs = 0; i < 60; ++i) {
    w.push_back(warming.current());
    if (warming.current() == M::kSet) {
      warming.Timed(++set_runs < 6 ? 2.4 : 1.0);
    } else {
      warming.Timed(2.0);
    }
  }
  std::vector<size_t> set_at = where(w, M::kSet, 0);
  ASSERT_GE(set_at.size(), 6u);
  EXPECT_LE(set_at[5], 20u);  // its sixth stretch by the 21st
  for (size_t i = 25; i < w.size(); ++i) EXPECT_EQ(w[i], M::kSet) << i;
  // Fixed: always that one, and no stretch timed.
  MatcherChoice fixed(M::kSet);
  fixed.Count(1 << 22);
  EXPECT_EQ(fixed.current(), M::kSet);
  EXPECT_EQ(fixed.stretches(M::kSet), 0);
}

TEST_F(ExplainTest, MixedNodeLog) {
  std::ifstream in("fixtures/logs/mixed_node.log");
  ASSERT_TRUE(in) << "fixture missing";
  Explainer ex(*rules_);
  ASSERT_OK(ex.ConsumeStream(in, "node.log"));
  std::vector<std::string> ids;
  for (const Finding& f : ex.findings()) ids.push_back(f.rule->id);
  EXPECT_EQ(ids, (std::vector<std::string>{"rxe-already-configured",
                                           "ucx-ib-enomem", "ompi-pml-ucx-worker",
                                           "nccl-retry-exceeded", "rxe-unloaded"}));
  EXPECT_EQ(ex.findings()[1].count, 2);  // two processes, same call
  EXPECT_EQ(ex.findings()[3].count, 2);  // same peer, other port
  EXPECT_EQ(ex.findings()[3].Remediation()[1],
            "allow RoCE v2 between the nodes: iptables -I INPUT -p udp --dport "
            "4791 -j ACCEPT (on both nodes)");
  // Open MPI's "Failed to create UCP worker" is the UCX failure before it.
  EXPECT_EQ(ex.findings()[2].grouped_under, 1);
}

// A real NCCL log of a port that keeps failing (fixtures/logs/nccl_port_flap.log,
// from Lightning-AI/lit-llama #380): the port errors of node ...-48 are one
// finding pointing at the link checks, and the peer's retry-exceeded on that
// node is the consequence.
TEST_F(ExplainTest, NcclPortFlapLog) {
  std::ifstream in("fixtures/logs/nccl_port_flap.log");
  ASSERT_TRUE(in) << "fixture missing";
  Explainer ex(*rules_);
  ASSERT_OK(ex.ConsumeStream(in, "job.log"));
  ASSERT_EQ(ex.findings().size(), 2u);
  const Finding& port = ex.findings()[0];
  EXPECT_EQ(port.rule->id, "nccl-async-port-error");
  EXPECT_EQ(port.count, 8);  // all 8 ranks of the node
  EXPECT_EQ(port.first.line, 11);
  EXPECT_EQ(port.last.line, 25);
  EXPECT_EQ(port.rule->confirm, (std::vector<std::string>{"link-health", "port-active"}));
  EXPECT_EQ(port.ConfirmCommand(), "rdmacheck --checks link-health,port-active");
  const Finding& retry = ex.findings()[1];
  EXPECT_EQ(retry.rule->id, "nccl-retry-exceeded");
  EXPECT_EQ(retry.first.line, 27);
  EXPECT_EQ(retry.captures[0], (std::pair<std::string, std::string>{"peer", "node48"}));
  EXPECT_EQ(ex.stats().lines, 27);
  EXPECT_EQ(ex.stats().matched_lines, 9);
}

TEST_F(ExplainTest, TextOutput) {
  Explainer ex(*rules_);
  std::istringstream in("x\nrdma_rxe: already configured on va\n");
  ASSERT_OK(ex.ConsumeStream(in, "dmesg.txt"));
  std::ostringstream out;
  RenderExplainText(ex, out);
  EXPECT_THAT(out.str(), HasSubstr("[FINDING] rxe-already-configured  x1  dmesg.txt:2\n"));
  EXPECT_THAT(out.str(), HasSubstr("  likely causes:\n    1. a setup script ran twice"));
  EXPECT_THAT(out.str(), HasSubstr("    rdma link show | grep va"));
  EXPECT_THAT(out.str(), HasSubstr("  confirm with: rdmacheck --checks rxe-setup\n"));
  EXPECT_THAT(out.str(), HasSubstr("explain: 1 finding from 1 matching line in 2 lines\n"));
}

// Two rules, the second known to follow the first (as perftest prints
// "Couldn't create IB resources" after "Unable to create QP.").
constexpr char kFollowRules[] =
    "rule: qp-fail\n"
    "family: perftest\n"
    "pattern: Unable to create QP\n"
    "diagnosis: d\ncause: c\nremedy: r\nconfirm: none\n"
    "example: Unable to create QP.\nexample:  Unable to create QP\n"
    "near-miss: created QP\n"
    "rule: resources\n"
    "family: perftest\n"
    "pattern: Couldn't create IB resources\n"
    "diagnosis: d2\ncause: c2\nremedy: r2\nconfirm: none\n"
    "follows: qp-fail\n"
    "example: Couldn't create IB resources\nexample:  Couldn't create IB resources\n"
    "near-miss: created IB resources\n";

TEST(ExplainGrouping, FollowOnLineIsGroupedUnderItsRoot) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::Parse(kFollowRules, "f.rules"));
  Explainer ex(*rules);
  ex.BeginSource("a.log");
  ex.Feed("noise\nUnable to create QP.\nCouldn't create IB resources\n"
          "Couldn't create IB resources\n");
  ex.EndSource();
  ASSERT_EQ(ex.findings().size(), 2u);
  EXPECT_EQ(ex.findings()[0].grouped_under, -1);
  EXPECT_EQ(ex.findings()[1].grouped_under, 0);
  EXPECT_EQ(ex.findings()[1].count, 2);
  EXPECT_EQ(ex.root_findings(), 1u);
  std::ostringstream text;
  RenderExplainText(ex, text);
  EXPECT_THAT(text.str(), HasSubstr("followed by (consequences of the above"));
  EXPECT_THAT(text.str(), HasSubstr("    resources  x2  a.log:3..4: Couldn't create IB resources"));
  EXPECT_THAT(text.str(), Not(HasSubstr("[FINDING] resources")));
  EXPECT_THAT(text.str(), HasSubstr("explain: 1 finding (and 1 follow-on finding grouped under them)"));
  std::ostringstream json;
  RenderExplainJson(ex, json);
  auto doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["root_findings"], 1);
  EXPECT_TRUE(doc["findings"][0]["grouped_under"].is_null());
  EXPECT_EQ(doc["findings"][1]["grouped_under"], 0);
}

TEST(ExplainGrouping, OnlyAnEarlierLineOfTheSameInputIsARoot) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::Parse(kFollowRules, "f.rules"));
  {  // the follow-on before its root: both stand alone
    Explainer ex(*rules);
    ex.BeginSource("a.log");
    ex.Feed("Couldn't create IB resources\nUnable to create QP.\n");
    ex.EndSource();
    ASSERT_EQ(ex.findings().size(), 2u);
    EXPECT_EQ(ex.root_findings(), 2u);
  }
  {  // root in one file, follow-on in another: not grouped
    Explainer ex(*rules);
    ex.BeginSource("a.log");
    ex.Feed("Unable to create QP.\n");
    ex.EndSource();
    ex.BeginSource("b.log");
    ex.Feed("Couldn't create IB resources\n");
    ex.EndSource();
    ASSERT_EQ(ex.findings().size(), 2u);
    EXPECT_EQ(ex.findings()[1].grouped_under, -1);
  }
}

TEST(ExplainCommand, ExitCodesAndJson) {
  std::istringstream in("noise\nCouldn't listen to port 18516\nnoise\n");
  std::ostringstream out, err;
  ExplainCommandOptions json;
  json.format = "json";
  json.files = {"-"};
  EXPECT_EQ(RunExplainCommand(json, in, out, err), 1);
  EXPECT_EQ(err.str(), "");
  nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["schema"], "rdmacheck.explain/1");
  EXPECT_EQ(doc["lines"], 3);
  ASSERT_EQ(doc["findings"].size(), 1u);
  const auto& f = doc["findings"][0];
  EXPECT_EQ(f["rule"], "perftest-port-in-use");
  EXPECT_EQ(f["captures"]["port"], "18516");
  EXPECT_EQ(f["first"]["line"], 2);
  EXPECT_EQ(f["first"]["source"], "-");
  EXPECT_EQ(f["count"], 1);
  EXPECT_EQ(f["remediation"][0], "ss -ltnp 'sport = :18516' (then kill the leftover process)");
  EXPECT_TRUE(f["confirm_command"].is_null());

  std::istringstream clean("all good\n");
  std::ostringstream out2, err2;
  EXPECT_EQ(RunExplainCommand(ExplainCommandOptions(), clean, out2, err2), 0);
  EXPECT_THAT(out2.str(), HasSubstr("explain: 0 findings"));
}

// A log from a stack no rule knows still says which of its lines read like
// errors: counted, the first max_unexplained kept with their positions.
TEST_F(ExplainTest, ErrorLikeLinesNoRuleKnowsAreShown) {
  ExplainOptions o;
  o.max_unexplained = 2;
  Explainer ex(*rules_, o);
  std::istringstream in(
      "mystack: starting\n"                                  // 1
      "mystack: connect to node7 failed: Connection refused\n"  // 2: error-like
      "IB device mlx5_0 not found\n"                         // 3: a rule's
      "[ 12.3] mydrv 0000:3b:00.0: error 733 on queue 5\n"   // 4: error-like
      "mystack: 0 packets, all good\n"                       // 5
      "mystack: WARN retrying\n"                             // 6: error-like, not kept
      "[1.0] [h:1:0]  ib_md.c:1  UCX  DEBUG probe failed\n"  // 7: debug level
      // 8: NCCL's INFO level (nvidia/nccl #1292: in every run with a net plugin)
      "NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.\n");
  ASSERT_OK(ex.ConsumeStream(in, "unknown.log"));
  EXPECT_EQ(ex.findings().size(), 1u);
  EXPECT_EQ(ex.stats().unexplained_lines, 3);
  ASSERT_EQ(ex.unexplained().size(), 2u);
  EXPECT_EQ(ex.unexplained()[0].at.line, 2);
  EXPECT_EQ(ex.unexplained()[0].text, "mystack: connect to node7 failed: Connection refused");
  EXPECT_EQ(ex.unexplained()[1].at.line, 4);
  std::ostringstream text;
  RenderExplainText(ex, text);
  EXPECT_THAT(text.str(), HasSubstr("[UNEXPLAINED] 3 lines read like an error that no rule knows (the first 2):"));
  EXPECT_THAT(text.str(), HasSubstr("  unknown.log:4: [ 12.3] mydrv 0000:3b:00.0: error 733 on queue 5"));
  EXPECT_THAT(text.str(), HasSubstr("; 3 error-like lines unexplained"));
  std::ostringstream json;
  RenderExplainJson(ex, json);
  nlohmann::json doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["unexplained_lines"], 3);
  ASSERT_EQ(doc["unexplained"].size(), 2u);
  EXPECT_EQ(doc["unexplained"][1]["line"], 4);
  EXPECT_EQ(doc["unexplained"][1]["source"], "unknown.log");
}

TEST(ExplainCommand, JsonSurvivesInvalidUtf8) {
  std::istringstream in("\xff\xfe IB device mlx5_0 not found \xc3\n");
  std::ostringstream out, err;
  ExplainCommandOptions json;
  json.format = "json";
  EXPECT_EQ(RunExplainCommand(json, in, out, err), 1);
  nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["findings"][0]["captures"]["dev"], "mlx5_0");
}

TEST(ExplainCommand, UnreadableInputIsTwo) {
  struct Case {
    std::vector<std::string> files;
    std::string rules;
    std::string message;
  };
  const Case kCases[] = {
      {{"/nonexistent/x.log"}, "", "cannot open '/nonexistent/x.log'"},
      {{}, "/nonexistent/r.txt", "LoadRuleFile(/nonexistent/r.txt): no such file"},
  };
  for (const Case& c : kCases) {
    std::istringstream in("");
    std::ostringstream out, err;
    ExplainCommandOptions o;
    o.files = c.files;
    o.rules_path = c.rules;
    EXPECT_EQ(RunExplainCommand(o, in, out, err), 2) << c.message;
    EXPECT_THAT(err.str(), HasSubstr(c.message));
  }
}

TEST(ExplainCommand, RulesOverride) {
  std::string path = ::testing::TempDir() + "/custom.rules";
  {
    std::ofstream f(path);
    f << "rule: custom-thing\nfamily: test\npattern: frobnicate (?P<n>\\d+)\n"
         "diagnosis: frob ${n}\ncause: c\nremedy: unfrob ${n}\nconfirm: hung-qp\n"
         "example: frobnicate 1\nexample: frobnicate 22\nnear-miss: frob\n";
  }
  std::istringstream in("frobnicate 7\nCouldn't listen to port 1\n");
  std::ostringstream out, err;
  ExplainCommandOptions custom;
  custom.rules_path = path;
  EXPECT_EQ(RunExplainCommand(custom, in, out, err), 1) << err.str();
  EXPECT_THAT(out.str(), HasSubstr("[FINDING] custom-thing  x1  -:1"));
  EXPECT_THAT(out.str(), HasSubstr("    unfrob 7\n"));
  EXPECT_THAT(out.str(), Not(HasSubstr("perftest-port-in-use")));

  std::string bad = ::testing::TempDir() + "/bad.rules";
  {
    std::ofstream f(bad);
    f << "rule: b\nfamily: t\npattern: (unclosed\n";
  }
  std::istringstream in2("");
  std::ostringstream out2, err2;
  ExplainCommandOptions broken;
  broken.rules_path = bad;
  EXPECT_EQ(RunExplainCommand(broken, in2, out2, err2), 2);
  EXPECT_THAT(err2.str(), HasSubstr(bad + ":1: rule 'b': missing field 'diagnosis'"));
}

}  // namespace
}  // namespace rdmacheck
