#include "tools/fleet/fleet.h"

#include "tools/fleet/fleet_output.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

NodeSummary Node(const std::string& name, std::map<std::string, std::string> facts,
                 std::map<std::string, Verdict> verdicts = {}) {
  NodeSummary n;
  n.name = name;
  n.file = name + ".json";
  n.facts = std::move(facts);
  n.verdicts = std::move(verdicts);
  n.kind = n.verdicts.empty() ? NodeSummary::Kind::kProfile : NodeSummary::Kind::kBundle;
  return n;
}

NodeFigure Figure(const std::string& name, const std::string& hw, Better b, double v) {
  return NodeFigure{name, "Gb/s", hw, b, true, v};
}

std::vector<std::string> Nodes(const std::vector<NodeValue>& v) {
  std::vector<std::string> out;
  for (const NodeValue& x : v) out.push_back(x.node + "=" + x.value);
  return out;
}

TEST(AnalyzeFleet, MajorityAndTheNodesThatDiffer) {
  FleetInput in;
  in.nodes = {Node("n1", {{"netdev MTU", "9000"}, {"kernel", "6.1"}, {"only here", "x"}}),
              Node("n2", {{"netdev MTU", "9000"}, {"kernel", "6.1"}}),
              Node("n4", {{"netdev MTU", "1500"}, {"kernel", "6.1"}}),
              Node("n3", {{"netdev MTU", "9000"}, {"kernel", "6.1"}})};
  FleetReport rep = AnalyzeFleet(in);
  // "only here" has nothing to be compared with.
  EXPECT_EQ(rep.facts_compared, 2);
  ASSERT_EQ(rep.facts.size(), 1u);
  EXPECT_EQ(rep.facts[0].fact, "netdev MTU");
  EXPECT_EQ(rep.facts[0].majority, "9000");
  EXPECT_EQ(rep.facts[0].majority_nodes, 3);
  EXPECT_EQ(rep.facts[0].nodes, 4);
  EXPECT_THAT(Nodes(rep.facts[0].differ), ElementsAre("n4=1500"));
  ASSERT_EQ(rep.groups.size(), 1u);
  EXPECT_THAT(rep.groups[0].problems, ElementsAre("netdev MTU is not 9000"));
  EXPECT_THAT(rep.healthy, ElementsAre("n1", "n2", "n3"));
}

// Two values with as many nodes each: neither is the fleet's, every node
// is listed.
TEST(AnalyzeFleet, TieHasNoMajority) {
  FleetInput in;
  in.nodes = {Node("a", {{"kernel", "6.1"}}), Node("b", {{"kernel", "5.15"}}), Node("c", {{"kernel", "6.1"}}),
              Node("d", {{"kernel", "5.15"}})};
  FleetReport rep = AnalyzeFleet(in);
  ASSERT_EQ(rep.facts.size(), 1u);
  EXPECT_EQ(rep.facts[0].majority, "");
  EXPECT_EQ(rep.facts[0].majority_nodes, 0);
  EXPECT_THAT(Nodes(rep.facts[0].differ), ElementsAre("a=6.1", "b=5.15", "c=6.1", "d=5.15"));
  ASSERT_EQ(rep.groups.size(), 1u);
  EXPECT_THAT(rep.groups[0].problems, ElementsAre("kernel has no majority"));
  EXPECT_THAT(rep.groups[0].nodes, ElementsAre("a", "b", "c", "d"));
}

TEST(IsOutlier, OneRuleBothWays) {
  struct Row {
    double value, median;
    Better better;
    bool odd;
  } rows[] = {
      {80, 100, Better::kHigher, true},    // below 0.9 x 100
      {89.9, 100, Better::kHigher, true},
      {90, 100, Better::kHigher, false},   // 0.9 x the median is still a peer
      {120, 100, Better::kHigher, false},
      {0, 0, Better::kHigher, false},
      {1, 0, Better::kLower, true},        // errors where the peers have none
      {0, 0, Better::kLower, false},
      {10, 1, Better::kLower, false},      // 10 x the median is still a peer
      {10.5, 1, Better::kLower, true},
  };
  for (const Row& r : rows)
    EXPECT_EQ(IsOutlier(r.value, r.median, r.better), r.odd) << r.value << " vs median " << r.median;
}

TEST(AnalyzeFleet, FiguresAreComparedWithinTheirHardwareWithEnoughPeers) {
  FleetInput in;
  for (auto [name, hw, v] : {std::make_tuple("a1", "mlx5 part 4123", 100.0), std::make_tuple("a2", "mlx5 part 4123", 98.0),
                             std::make_tuple("a3", "mlx5 part 4123", 80.0), std::make_tuple("a4", "mlx5 part 4123", 97.0),
                             std::make_tuple("b1", "mlx5 part 4129", 200.0), std::make_tuple("b2", "mlx5 part 4129", 20.0)}) {
    NodeSummary n = Node(name, {});
    n.figures.push_back(Figure("bandwidth", hw, Better::kHigher, v));
    in.nodes.push_back(n);
  }
  FleetReport rep = AnalyzeFleet(in);
  // Part 4129 has two nodes: too few to say which is odd.
  ASSERT_EQ(rep.figures.size(), 1u);
  const FigureFinding& f = rep.figures[0];
  EXPECT_EQ(f.hardware, "mlx5 part 4123");
  EXPECT_DOUBLE_EQ(f.median, 97.5);
  EXPECT_EQ(f.nodes, 4);
  ASSERT_EQ(f.outliers.size(), 1u);
  EXPECT_EQ(f.outliers[0].node, "a3");
  EXPECT_THAT(rep.groups.at(0).problems, ElementsAre("bandwidth below its peers (mlx5 part 4123)"));
  ASSERT_EQ(rep.distributions.size(), 1u);
  EXPECT_THAT(rep.distributions[0].odd, ElementsAre("a3"));
  EXPECT_EQ(rep.distributions[0].values.size(), 4u);
}

TEST(AnalyzeFleet, GroupsLargestFirstWithTheirRemediationOnce) {
  FleetInput in;
  auto failing = [](const std::string& name, const std::string& check, std::vector<std::string> remedy) {
    NodeSummary n = Node(name, {{"kernel", "6.1"}}, {{check, Verdict::kFail}, {"pcie", Verdict::kWarn}});
    n.remediation[check] = std::move(remedy);
    return n;
  };
  in.nodes = {failing("d", "mtu-chain", {"ip link set dev eth1 mtu 9000"}),
              failing("c", "memlock", {"ulimit -l unlimited", "ulimit -l"}),
              failing("a", "memlock", {"ulimit -l unlimited", "ulimit -l"}),
              Node("e", {{"kernel", "6.1"}}, {{"memlock", Verdict::kPass}}),
              Node("f", {{"kernel", "5.15"}}),
              failing("b", "memlock", {"ulimit -l unlimited", "systemctl edit app"})};
  FleetReport rep = AnalyzeFleet(in);
  ASSERT_EQ(rep.groups.size(), 3u);
  EXPECT_THAT(rep.groups[0].problems, ElementsAre("FAIL memlock"));
  EXPECT_THAT(rep.groups[0].nodes, ElementsAre("a", "b", "c"));
  EXPECT_THAT(rep.groups[0].remediation, ElementsAre("ulimit -l unlimited", "ulimit -l", "systemctl edit app"));
  EXPECT_THAT(rep.groups[0].notes, IsEmpty());
  // Groups of one: by node name.
  EXPECT_THAT(rep.groups[1].nodes, ElementsAre("d"));
  EXPECT_THAT(rep.groups[1].problems, ElementsAre("FAIL mtu-chain"));
  EXPECT_THAT(rep.groups[2].nodes, ElementsAre("f"));
  EXPECT_THAT(rep.groups[2].problems, ElementsAre("kernel is not 6.1"));
  EXPECT_THAT(rep.groups[2].remediation, IsEmpty());
  EXPECT_THAT(rep.groups[2].notes,
              ElementsAre("f is a profile, facts only: `rdmacheck --profile f.json --plan PLAN` runs the checks on it"));
  EXPECT_THAT(rep.healthy, ElementsAre("e"));

  // Verdicts of the five nodes that have them; the profile has none.
  EXPECT_EQ(rep.nodes_with_verdicts, 5);
  ASSERT_EQ(rep.checks.size(), 3u);
  EXPECT_EQ(rep.checks[0].id, "memlock");
  EXPECT_EQ(rep.checks[0].fail, 3);
  EXPECT_EQ(rep.checks[0].pass, 1);
  EXPECT_THAT(rep.checks[0].failing, ElementsAre("a", "b", "c"));
  EXPECT_EQ(rep.checks[2].id, "pcie");
  EXPECT_EQ(rep.checks[2].warn, 4);
  EXPECT_EQ(FleetExitCode(rep), 1);
}

TEST(FleetExitCode, NothingReadNothingWrongAFileLeftOut) {
  FleetInput none;
  none.unreadable.push_back({"x.json", "x.json:1: not valid JSON: ..."});
  EXPECT_EQ(FleetExitCode(AnalyzeFleet(none)), 2);

  FleetInput fine;
  fine.nodes = {Node("a", {{"kernel", "6.1"}}, {{"memlock", Verdict::kWarn}}), Node("b", {{"kernel", "6.1"}})};
  EXPECT_EQ(FleetExitCode(AnalyzeFleet(fine)), 0);

  fine.duplicates.push_back({"a2.json", "a2.json: node a was read from a.json already; left out"});
  EXPECT_EQ(FleetExitCode(AnalyzeFleet(fine)), 1);
}

TEST(FleetOutput, FiguresAndNames) {
  struct Row {
    double v;
    const char* text;
  } rows[] = {{58.88, "58.9"}, {0.998004, "0.998"}, {17.96, "18"}, {4096, "4096"}, {0, "0"}, {123456.7, "123457"}};
  for (const Row& r : rows) EXPECT_EQ(FormatFigure(r.v), r.text) << r.v;
  EXPECT_EQ(FirstNames({"a", "b"}, 5), "a, b");
  EXPECT_EQ(FirstNames({"a", "b", "c", "d"}, 2), "a, b +2 more");
  EXPECT_EQ(FirstNames({}, 2), "");
}

}  // namespace
}  // namespace rdmacheck
