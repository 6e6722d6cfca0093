// NodeSummary: the little that `rdmacheck fleet` keeps of one node's file
// (its verdicts, the remediation of what FAILed, the facts that should be
// uniform across a fleet and the measured figures), so thousands of nodes
// fit in memory while each file is read, summarised and dropped.
//
//   NodeSummary node;
//   node.name = "gpu-node03";
//   AddViewFacts(view, FactOptions{}, &node);
//   node.facts["netdev MTU"];        // "1500"
//   node.facts["firmware of mlx5 part 4123"];  // "20.31.1014"
#ifndef RDMACHECK_TOOLS_FLEET_NODE_SUMMARY_H_
#define RDMACHECK_TOOLS_FLEET_NODE_SUMMARY_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/check.h"
#include "facts/device_view.h"

namespace rdmacheck {

// Which way a figure is good: a bandwidth is better higher, an error rate
// lower.
enum class Better { kHigher, kLower };

// A measured number of one node, compared with the same figure of the nodes
// of the same hardware.
struct NodeFigure {
  std::string name;      // "symbol_error /s", "active_mtu"
  std::string unit;      // "/s", "bytes"
  std::string hardware;  // "mlx5 part 4123": compared only within it
  Better better = Better::kLower;
  // false: only drawn (active_mtu is judged as a fact already).
  bool judged = true;
  double value = 0;      // the node's worst port
};

struct NodeSummary {
  enum class Kind { kReport, kBundle, kProfile };
  std::string name;      // the report's host, the profile's hostname
  std::string file;
  Kind kind = Kind::kReport;
  // Check id -> verdict; empty for a profile (facts only).
  std::map<std::string, Verdict> verdicts;
  // The remediation lines of each check that FAILed.
  std::map<std::string, std::vector<std::string>> remediation;
  // Fact -> this node's value ("netdev MTU" -> "9000"); several distinct
  // values on one node (two ports) are joined: "1024 / 4096".
  std::map<std::string, std::string> facts;
  std::vector<NodeFigure> figures;
};

absl::string_view KindName(NodeSummary::Kind k);  // "report", "bundle", "profile"

struct FactOptions {
  // The GID index the deployment uses (fleet -x): its type is compared.
  // Without it, the index of each port's IPv4 RoCE v2 entry is.
  std::optional<int> gid_index;
};

// What the devices are, for grouping per part: "mlx5 part 4123"; soft
// devices and devices without a part by driver alone ("rxe", "mlx5").
std::string HardwareOf(const DeviceInfo& dev);

// Adds the facts and figures of `view` (a profile, or a bundle's) to *node.
void AddViewFacts(const DeviceView& view, const FactOptions& options, NodeSummary* node);

// Adds a fact value; a second distinct value on the node joins the first.
void AddFact(const std::string& fact, const std::string& value, NodeSummary* node);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_FLEET_NODE_SUMMARY_H_
