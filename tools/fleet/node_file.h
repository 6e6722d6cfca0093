// Reading one node's file for `rdmacheck fleet`: the JSON report
// (`rdmacheck --format=json`, schema_version 1), the support bundle
// (`rdmacheck report --format=json`: the report and the node's profile) or
// a profile (`rdmacheck capture`: facts, no verdicts). The file is read
// whole but bounded, summarised, and dropped.
//
//   absl::StatusOr<NodeSummary> node = ReadNodeFile("out/gpu-node03.json", {});
//   // InvalidArgument "out/gpu-node07.json:40: not valid JSON (the file ends
//   //   inside it: cut short?): ..."
//
//   NodeFileList list = ListNodeFiles({"out/", "extra.profile"});
//   // list.files: out/ walked recursively and sorted, then extra.profile
#ifndef RDMACHECK_TOOLS_FLEET_NODE_FILE_H_
#define RDMACHECK_TOOLS_FLEET_NODE_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/fleet/node_summary.h"

namespace rdmacheck {

// A bundle carries the node's firewall rulesets, a few MiB on a Kubernetes
// node; profiles are read with the same bound (facts/profile.cc).
inline constexpr uint64_t kMaxNodeFileBytes = uint64_t{64} << 20;

// InvalidArgument naming the file, and the line (JSON syntax, profile
// fields) or the field (report fields) where it is wrong; the errors of
// ReadInputFile (util/input_file.h) for a file that cannot be read.
absl::StatusOr<NodeSummary> ReadNodeFile(const std::string& path, const FactOptions& options);

struct NodeFileList {
  std::vector<std::string> files;
  // "DIR: cannot list: ..." for a directory that cannot be walked.
  std::vector<std::string> errors;
};

// Each argument: a directory is walked recursively, its files sorted by
// path, entries whose name starts with '.' left out (editors' and rsync's
// temporaries); anything else is taken as a file (ReadNodeFile says what is
// wrong with it).
NodeFileList ListNodeFiles(const std::vector<std::string>& paths);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_FLEET_NODE_FILE_H_
