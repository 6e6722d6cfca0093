#include "tools/fleet/fleet_command.h"

#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "checks/exit_codes.h"
#include "tools/fleet/fleet_output.h"
#include "tools/fleet/node_file.h"

namespace rdmacheck {

FleetInput ReadFleet(const std::vector<std::string>& paths, const FactOptions& options) {
  FleetInput in;
  NodeFileList list = ListNodeFiles(paths);
  for (const std::string& e : list.errors) in.unreadable.push_back(FileProblem{"", e});
  std::map<std::string, std::string> file_of;  // node -> the file it was read from
  for (const std::string& path : list.files) {
    ++in.files;
    absl::StatusOr<NodeSummary> node = ReadNodeFile(path, options);
    if (!node.ok()) {
      in.unreadable.push_back(FileProblem{path, std::string(node.status().message())});
      continue;
    }
    auto [it, fresh] = file_of.emplace(node->name, path);
    if (!fresh) {
      in.duplicates.push_back(FileProblem{
          path, absl::StrCat(path, ": node ", node->name, " was read from ", it->second, " already; left out")});
      continue;
    }
    in.nodes.push_back(*std::move(node));
  }
  return in;
}

int RunFleetCommand(const FleetOptions& options, std::ostream& out, std::ostream& err) {
  FleetReport rep = AnalyzeFleet(ReadFleet(options.paths, options.facts));
  const std::string text = options.format == "json"   ? RenderFleetJson(rep)
                           : options.format == "html" ? RenderFleetHtml(rep)
                                                      : RenderFleetText(rep);
  if (!options.output) {
    out << text;
    out.flush();
    return FleetExitCode(rep);
  }
  for (const FileProblem& p : rep.unreadable) err << "rdmacheck fleet: unreadable: " << p.message << "\n";
  for (const FileProblem& p : rep.duplicates) err << "rdmacheck fleet: duplicate: " << p.message << "\n";
  std::ofstream file(*options.output, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    err << "rdmacheck fleet: -o: cannot write " << *options.output << "\n";
    return kExitUsage;
  }
  return FleetExitCode(rep);
}

}  // namespace rdmacheck
