#include "tools/diag/explain_command.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "absl/strings/match.h"
#include "tools/diag/explain.h"
#include "tools/diag/explain_output.h"
#include "tools/diag/explain_rules.h"

namespace rdmacheck {

const char* ExplainUsage() {
  return "usage: rdmacheck explain [--format=text|json] [--rules FILE] [FILE...]\n"
         "  Maps error lines of perftest, rdma-core tools, rdma_cm, UCX, NCCL,\n"
         "  Open MPI and the kernel (rdma_rxe) to cause and remedy.\n"
         "  FILE: a log file; none or \"-\" reads stdin.\n"
         "  --format  text (default) or json\n"
         "  --rules   use this rule file instead of the built-in rules\n"
         "  exit: 0 no findings, 1 findings, 2 bad usage or unreadable input\n";
}

int RunExplainCommand(const std::vector<std::string>& args, std::istream& in,
                      std::ostream& out, std::ostream& err,
                      std::vector<std::string>* confirm_ids) {
  std::string format = "text";
  std::string rules_path;
  std::vector<std::string> files;
  bool only_files = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_files || a == "-" || !absl::StartsWith(a, "-")) {
      files.push_back(a);
    } else if (a == "--") {
      only_files = true;
    } else if (a == "-h" || a == "--help") {
      out << ExplainUsage();
      return 0;
    } else if (absl::StartsWith(a, "--format=") || a == "--format") {
      if (a == "--format") {
        if (i + 1 == args.size()) {
          err << "rdmacheck explain: --format needs a value (text or json)\n";
          return 2;
        }
        format = args[++i];
      } else {
        format = a.substr(std::strlen("--format="));
      }
      if (format != "text" && format != "json") {
        err << "rdmacheck explain: --format must be text or json, got '"
            << format << "'\n";
        return 2;
      }
    } else if (absl::StartsWith(a, "--rules=") || a == "--rules") {
      if (a == "--rules") {
        if (i + 1 == args.size()) {
          err << "rdmacheck explain: --rules needs a file name\n";
          return 2;
        }
        rules_path = args[++i];
      } else {
        rules_path = a.substr(std::strlen("--rules="));
      }
    } else {
      err << "rdmacheck explain: unknown option '" << a << "'\n" << ExplainUsage();
      return 2;
    }
  }
  if (files.empty()) files.push_back("-");

  auto rules = rules_path.empty() ? ExplainRuleSet::LoadEmbedded()
                                  : ExplainRuleSet::LoadFile(rules_path);
  if (!rules.ok()) {
    err << "rdmacheck explain: " << rules.status().message() << "\n";
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
        err << "rdmacheck explain: cannot open '" << f
            << "': " << std::strerror(errno) << "\n";
        return 2;
      }
      s = explainer.ConsumeStream(file, f);
    }
    if (!s.ok()) {
      err << "rdmacheck explain: " << s.message() << "\n";
      return 2;
    }
  }
  if (format == "json") {
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
