#include "tools/diag/explain_command.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "tools/diag/explain.h"
#include "tools/diag/explain_output.h"
#include "tools/diag/explain_rules.h"

namespace rdmacheck {

std::string UnreadableLogFile(const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    if (f == "-") continue;
    std::ifstream file(f, std::ios::binary);
    if (!file) return std::string("cannot open '") + f + "': " + std::strerror(errno);
  }
  return "";
}

int RunExplainCommand(const ExplainCommandOptions& options, std::istream& in, std::ostream& out,
                      std::ostream& err, std::vector<std::string>* confirm_ids) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");

  auto rules = options.rules_path.empty() ? ExplainRuleSet::LoadEmbedded()
                                          : ExplainRuleSet::LoadFile(options.rules_path);
  if (!rules.ok()) {
    err << options.program << ": " << rules.status().message() << "\n";
    return 2;
  }
  Explainer explainer(**rules);
  for (const std::string& f : files) {
    absl::Status s;
    if (f == "-") {
      s = explainer.ConsumeStream(in, "-");
    } else {
      std::ifstream file(f, std::ios::binary);
      if (!file) {
        err << options.program << ": cannot open '" << f << "': " << std::strerror(errno) << "\n";
        return 2;
      }
      s = explainer.ConsumeStream(file, f);
    }
    if (!s.ok()) {
      err << options.program << ": " << s.message() << "\n";
      return 2;
    }
  }
  if (options.format == "json") {
    RenderExplainJson(explainer, out);
  } else {
    RenderExplainText(explainer, out);
  }
  if (confirm_ids != nullptr) {
    for (const Finding& f : explainer.findings())
      for (const std::string& id : f.rule->confirm)
        if (std::find(confirm_ids->begin(), confirm_ids->end(), id) == confirm_ids->end())
          confirm_ids->push_back(id);
  }
  return explainer.findings().empty() ? 0 : 1;
}

}  // namespace rdmacheck
