#include "tools/fleet/node_file.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "checks/run_report.h"
#include "facts/profile.h"
#include "nlohmann/json.hpp"
#include "util/input_file.h"
#include "util/status_macros.h"

namespace rdmacheck {
namespace {

using Json = nlohmann::json;

absl::Status FieldError(const std::string& path, const std::string& field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": field ", field, ": ", what));
}

const Json* Field(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

absl::StatusOr<std::string> StringField(const Json& obj, const std::string& path, const std::string& at,
                                        const char* key) {
  const Json* v = Field(obj, key);
  if (!v) return FieldError(path, at + key, "missing");
  if (!v->is_string()) return FieldError(path, at + key, absl::StrCat("a ", v->type_name(), ", not a string"));
  return v->get<std::string>();
}

absl::StatusOr<const Json*> ArrayField(const Json& obj, const std::string& path, const std::string& at,
                                       const char* key) {
  const Json* v = Field(obj, key);
  if (!v) return FieldError(path, at + key, "missing");
  if (!v->is_array()) return FieldError(path, at + key, absl::StrCat("a ", v->type_name(), ", not an array"));
  return v;
}

std::optional<Verdict> VerdictNamed(absl::string_view name) {
  for (Verdict v : {Verdict::kPass, Verdict::kSkip, Verdict::kWarn, Verdict::kFail})
    if (VerdictName(v) == name) return v;
  return std::nullopt;
}

// The line of byte offset `byte` (nlohmann counts from 1).
size_t LineAt(const std::string& text, size_t byte) {
  size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

// "[json.exception.parse_error.101] parse error at line 16, column 32:
// syntax error ..." -> "syntax error ...": the line is ours to say.
std::string ParseReason(const std::string& what) {
  size_t col = what.find("column ");
  size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
  if (colon != std::string::npos) return what.substr(colon + 2);
  size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

absl::StatusOr<Json> ParseJson(const std::string& text, const std::string& path) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // A node that died or a copy that stopped mid-write leaves the file
    // cut short: say so, it is the common case.
    const bool at_end = e.byte >= text.size();
    return absl::InvalidArgumentError(absl::StrCat(path, ":", LineAt(text, e.byte), ": not valid JSON",
                                                   at_end ? " (the file ends inside it: cut short?)" : "", ": ",
                                                   ParseReason(e.what())));
  } catch (const Json::exception& e) {
    // Valid syntax the library still refuses, as a number out of range.
    return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON: ", ParseReason(e.what())));
  }
}

// The fields of a JSON report (report/json.cc) that fleet uses; `at` is
// where the report sits in the file ("" or "run.").
absl::Status ReadReport(const Json& rep, const std::string& path, const std::string& at, bool facts,
                        NodeSummary* node) {
  const Json* version = Field(rep, "schema_version");
  if (!version) return FieldError(path, at + "schema_version", "missing");
  if (!version->is_number_integer() || version->get<int64_t>() != kJsonSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", at, "schema_version ", version->dump(),
                                                   ": this rdmacheck reads schema_version ", kJsonSchemaVersion,
                                                   " (docs/output-formats.md)"));
  }
  RDMACHECK_ASSIGN_OR_RETURN(node->name, StringField(rep, path, at, "host"));
  RDMACHECK_ASSIGN_OR_RETURN(std::string kernel, StringField(rep, path, at, "kernel"));
  RDMACHECK_ASSIGN_OR_RETURN(const Json* devices, ArrayField(rep, path, at, "devices"));
  RDMACHECK_ASSIGN_OR_RETURN(const Json* checks, ArrayField(rep, path, at, "checks"));
  for (size_t i = 0; i < checks->size(); ++i) {
    const std::string c_at = absl::StrCat(at, "checks[", i, "].");
    const Json& c = (*checks)[i];
    if (!c.is_object()) return FieldError(path, absl::StrCat(at, "checks[", i, "]"), "not an object");
    RDMACHECK_ASSIGN_OR_RETURN(std::string id, StringField(c, path, c_at, "id"));
    RDMACHECK_ASSIGN_OR_RETURN(std::string name, StringField(c, path, c_at, "verdict"));
    std::optional<Verdict> v = VerdictNamed(name);
    if (!v) return FieldError(path, c_at + "verdict", absl::StrCat("'", name, "' is not PASS, WARN, FAIL or SKIP"));
    RDMACHECK_ASSIGN_OR_RETURN(const Json* remedy, ArrayField(c, path, c_at, "remediation"));
    Verdict& kept = node->verdicts.emplace(id, *v).first->second;
    kept = std::max(kept, *v);
    if (*v != Verdict::kFail) continue;
    std::vector<std::string>& lines = node->remediation[id];
    for (const Json& line : *remedy)
      if (line.is_string()) lines.push_back(line.get<std::string>());
  }
  if (!facts) return absl::OkStatus();
  // A plain report names its devices' driver and firmware, not their part.
  if (!kernel.empty()) AddFact("kernel", kernel, node);
  for (size_t i = 0; i < devices->size(); ++i) {
    const Json& d = (*devices)[i];
    const std::string d_at = absl::StrCat(at, "devices[", i, "].");
    if (!d.is_object()) return FieldError(path, absl::StrCat(at, "devices[", i, "]"), "not an object");
    RDMACHECK_ASSIGN_OR_RETURN(std::string driver, StringField(d, path, d_at, "driver"));
    RDMACHECK_ASSIGN_OR_RETURN(std::string fw, StringField(d, path, d_at, "fw_ver"));
    DeviceInfo dev;
    dev.driver = driver;
    if (!driver.empty() && !fw.empty() && !IsSoftDevice(dev))
      AddFact(absl::StrCat("firmware of ", driver, " (part not in a plain report)"), fw, node);
  }
  return absl::OkStatus();
}

absl::StatusOr<NodeSummary> FromJson(const std::string& text, const std::string& path, const FactOptions& o) {
  RDMACHECK_ASSIGN_OR_RETURN(Json j, ParseJson(text, path));
  if (!j.is_object()) return absl::InvalidArgumentError(absl::StrCat(path, ": JSON ", j.type_name(), ", not a report"));
  NodeSummary node;
  node.file = path;
  const Json* schema = Field(j, "schema");
  if (!schema) {
    if (!Field(j, "schema_version")) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": JSON without schema_version or schema: not a report (rdmacheck --format=json) or a "
                "support bundle (rdmacheck report --format=json)"));
    }
    node.kind = NodeSummary::Kind::kReport;
    RDMACHECK_RETURN_IF_ERROR(ReadReport(j, path, "", /*facts=*/true, &node));
  } else {
    if (!schema->is_string() || schema->get<std::string>() != kSupportBundleSchema) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": schema ", schema->dump(),
                                                     ": not a support bundle this rdmacheck reads (",
                                                     kSupportBundleSchema, ")"));
    }
    node.kind = NodeSummary::Kind::kBundle;
    const Json* run = Field(j, "run");
    if (!run || !run->is_object()) return FieldError(path, "run", "missing or not an object");
    RDMACHECK_ASSIGN_OR_RETURN(std::string profile, StringField(j, path, "", "profile"));
    // The profile has every fact the report has, and more.
    RDMACHECK_RETURN_IF_ERROR(ReadReport(*run, path, "run.", /*facts=*/false, &node));
    RDMACHECK_ASSIGN_OR_RETURN(DeviceView view, ParseProfile(profile, absl::StrCat(path, ": field profile")));
    if (node.name.empty()) node.name = view.host.hostname.value_or("");
    AddViewFacts(view, o, &node);
  }
  if (node.name.empty())
    return absl::InvalidArgumentError(absl::StrCat(path, ": host is empty: fleet names each node by it"));
  return node;
}

absl::StatusOr<NodeSummary> FromProfile(const std::string& text, const std::string& path, const FactOptions& o) {
  RDMACHECK_ASSIGN_OR_RETURN(DeviceView view, ParseProfile(text, path));
  if (!view.host.hostname || view.host.hostname->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no hostname in its [host] section: fleet names each node by it"));
  }
  NodeSummary node;
  node.name = *view.host.hostname;
  node.file = path;
  node.kind = NodeSummary::Kind::kProfile;
  AddViewFacts(view, o, &node);
  return node;
}

}  // namespace

absl::StatusOr<NodeSummary> ReadNodeFile(const std::string& path, const FactOptions& options) {
  RDMACHECK_ASSIGN_OR_RETURN(std::string text, ReadInputFile("ReadNodeFile", path, "a report, bundle or profile",
                                                             kMaxNodeFileBytes));
  size_t first = text.find_first_not_of(" \t\r\n");
  // A profile starts with a comment or its version line, never a bracket.
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) return FromJson(text, path, options);
  return FromProfile(text, path, options);
}

NodeFileList ListNodeFiles(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  NodeFileList list;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      list.files.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(p, fs::directory_options::none, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code entry_ec;  // a dangling symlink is skipped, not the end of the walk
      if (it->path().filename().string().rfind('.', 0) == 0) {
        if (it->is_directory(entry_ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(entry_ec)) found.push_back(it->path().string());
    }
    if (ec) list.errors.push_back(absl::StrCat(p, ": cannot list: ", ec.message()));
    std::sort(found.begin(), found.end());
    list.files.insert(list.files.end(), found.begin(), found.end());
  }
  return list;
}

}  // namespace rdmacheck
