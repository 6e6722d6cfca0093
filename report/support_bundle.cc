#include "report/support_bundle.h"

#include "absl/strings/str_cat.h"
#include "facts/profile.h"
#include "nlohmann/json.hpp"
#include "report/json.h"

namespace rdmacheck {

std::string RenderSupportBundle(const DeviceView& view, const RunReport& rep, const std::string& checks_text,
                                const std::optional<std::string>& explained, SupportFormat format) {
  if (format == SupportFormat::kJson) {
    nlohmann::ordered_json j;
    j["schema"] = kSupportBundleSchema;
    j["tool_version"] = kToolVersion;
    j["profile"] = WriteProfile(view);
    j["run"] = nlohmann::ordered_json::parse(RenderJson(rep));
    j["explain"] = explained ? nlohmann::ordered_json::parse(*explained) : nlohmann::ordered_json();
    return j.dump(2) + "\n";
  }
  std::string text = absl::StrCat("==== rdmacheck report ", kToolVersion, " ====\n\n==== profile ====\n",
                                  WriteProfile(view), "\n==== checks ====\n", checks_text);
  if (explained) absl::StrAppend(&text, "\n==== explain ====\n", *explained);
  return text;
}

}  // namespace rdmacheck
