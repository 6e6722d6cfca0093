// `rdmacheck fleet`: many nodes' reports, bundles and profiles compared
// with each other. A node is odd when a check FAILs on it, when a fact that
// should be uniform (firmware per part, kernel, MTUs, limits, memlock,
// sysctls, ...) differs from the fleet's majority, or when a measured
// figure is far from the median of its peers of the same hardware: no
// static threshold. docs/fleet.md says what is compared and why.
//
//   FleetInput in;
//   in.nodes.push_back(*ReadNodeFile("out/gpu-node01.json", {}));   // ...
//   FleetReport rep = AnalyzeFleet(in);
//   std::cout << RenderFleetText(rep);     // tools/fleet/fleet_output.h
//   return FleetExitCode(rep);
#ifndef RDMACHECK_TOOLS_FLEET_FLEET_H_
#define RDMACHECK_TOOLS_FLEET_FLEET_H_

#include <string>
#include <vector>

#include "tools/fleet/node_summary.h"

namespace rdmacheck {

// A file that gave no node: unreadable, or a node read already.
struct FileProblem {
  std::string file;
  std::string message;  // names the file (and line or field) itself
};

struct FleetInput {
  int files = 0;
  std::vector<NodeSummary> nodes;  // in reading order, names unique
  std::vector<FileProblem> unreadable;
  std::vector<FileProblem> duplicates;
};

struct CheckTally {
  std::string id;
  int pass = 0, warn = 0, fail = 0, skip = 0;
  std::vector<std::string> failing;  // nodes, sorted
};

struct NodeValue {
  std::string node;
  std::string value;
};

struct FactFinding {
  std::string fact;
  // The value most nodes have; empty when two values tie for most (then
  // every node is listed in `differ`).
  std::string majority;
  int majority_nodes = 0;
  int nodes = 0;                  // nodes that have the fact
  std::vector<NodeValue> differ;  // by node name
};

struct NodeNumber {
  std::string node;
  double value = 0;
};

struct FigureFinding {
  std::string figure;
  std::string unit;
  std::string hardware;
  Better better = Better::kLower;
  double median = 0;
  int nodes = 0;
  std::vector<NodeNumber> outliers;  // worst first
};

// What is wrong with a set of nodes, and how to fix it.
struct NodeGroup {
  // "FAIL mtu-chain", "netdev MTU is not 9000", "symbol_error /s above its
  // peers (mlx5 part 4123)".
  std::vector<std::string> problems;
  std::vector<std::string> nodes;        // sorted
  // The FAILing checks' remediation from the nodes' reports, each line once.
  std::vector<std::string> remediation;
  // How to get verdicts for its nodes that are profiles (facts only).
  std::vector<std::string> notes;
};

// One figure across the nodes, for a histogram.
struct Distribution {
  std::string figure;
  std::string unit;
  std::string hardware;
  std::vector<NodeNumber> values;   // by node
  std::vector<std::string> odd;     // nodes flagged on it
};

struct FleetReport {
  int files = 0;
  int nodes = 0;
  int nodes_with_verdicts = 0;      // reports and bundles
  std::vector<FileProblem> unreadable;
  std::vector<FileProblem> duplicates;
  std::vector<CheckTally> checks;   // by id
  int facts_compared = 0;           // facts that 2 or more nodes have
  std::vector<FactFinding> facts;   // those that differ, by fact (case aside)
  std::vector<FigureFinding> figures;
  std::vector<NodeGroup> groups;    // largest first
  int odd = 0;                      // nodes in the groups
  std::vector<std::string> healthy; // nodes in no group
  // For the histograms: the figures with outliers, then those only drawn
  // (active_mtu).
  std::vector<Distribution> distributions;
};

// The one outlier rule, for any figure: "higher is better" figures
// (bandwidth) below kLowFactor x the median of their peers, "lower is
// better" ones (error rates) above kHighFactor x the median (above 0 when
// the median is 0). Judged only with kMinPeers nodes of the hardware.
inline constexpr double kLowFactor = 0.9;
inline constexpr double kHighFactor = 10;
inline constexpr int kMinPeers = 3;
bool IsOutlier(double value, double median, Better better);

FleetReport AnalyzeFleet(const FleetInput& in);

// 0 nothing FAILed on any node and nothing differs; 1 some node FAILs,
// differs or is an outlier, or a file could not be read; 2 no node read.
int FleetExitCode(const FleetReport& rep);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_FLEET_FLEET_H_
