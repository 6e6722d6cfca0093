#include "tools/diag/create_qp_output.h"

#include "absl/strings/str_cat.h"
#include "facts/rdma_types.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

std::string FormatDiagnosisText(const CreateQpDiagnosis& d) {
  std::string out = absl::StrCat("create-qp on ", d.device_name, " (", d.device, ")\n",
                                 "  asked:   type=", QpTypeName(d.request.type), " ",
                                 FormatCaps(d.request.caps),
                                 d.request.with_srq ? " srq=yes" : "", "\n");
  if (d.granted) absl::StrAppend(&out, "  granted: ", FormatCaps(*d.granted), "\n");
  for (const CreateQpFinding& fd : d.findings) {
    absl::StrAppend(&out, "  ", QpFieldName(fd.field), ": asked ", fd.requested);
    if (fd.limit) {
      absl::StrAppend(&out, ", limit ", fd.limit_name, " ", *fd.limit, " (", fd.limit_source, ")",
                      fd.over_limit ? " OVER" : "");
    }
    if (fd.searched) {
      absl::StrAppend(&out, ", largest accepted ",
                      fd.largest_accepted ? absl::StrCat(*fd.largest_accepted) : "none",
                      fd.search_complete ? "" : " (search incomplete)");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "verdict:\n");
  for (const std::string& line : d.Verdict()) absl::StrAppend(&out, "  ", line, "\n");
  absl::StrAppend(&out, "(", d.creates, " creates, ", absl::StrCat(d.seconds * 1000).substr(0, 6),
                  " ms)\n");
  return out;
}

std::string FormatDiagnosisJson(const CreateQpDiagnosis& d) {
  auto caps = [](const QpCaps& c) {
    nlohmann::json j;
    for (QpField f : kAllQpFields) j[std::string(QpFieldName(f))] = GetField(c, f);
    return j;
  };
  nlohmann::json j;
  j["device"] = d.device_name;
  j["model"] = d.device;
  j["type"] = std::string(QpTypeName(d.request.type));
  j["srq"] = d.request.with_srq;
  j["requested"] = caps(d.request.caps);
  j["ok"] = d.ok();
  j["status"] = d.ok() ? "" : std::string(d.create_status.message());
  j["granted"] = d.granted ? caps(*d.granted) : nlohmann::json(nullptr);
  j["joint"] = d.joint;
  j["findings"] = nlohmann::json::array();
  for (const CreateQpFinding& fd : d.findings) {
    nlohmann::json f;
    f["field"] = std::string(QpFieldName(fd.field));
    f["requested"] = fd.requested;
    f["limit"] = fd.limit ? nlohmann::json(*fd.limit) : nlohmann::json(nullptr);
    f["limit_name"] = fd.limit_name;
    f["over_limit"] = fd.over_limit;
    f["searched"] = fd.searched;
    f["largest_accepted"] =
        fd.largest_accepted ? nlohmann::json(*fd.largest_accepted) : nlohmann::json(nullptr);
    f["search_complete"] = fd.search_complete;
    if (fd.searched) f["others"] = caps(fd.others);
    j["findings"].push_back(f);
  }
  j["verdict"] = d.Verdict();
  j["relations"] = d.relations;
  j["creates"] = d.creates;
  j["seconds"] = d.seconds;
  return j.dump(2) + "\n";
}

}  // namespace rdmacheck
