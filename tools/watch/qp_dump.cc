#include "tools/watch/qp_dump.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "util/subprocess.h"

namespace rdmacheck {
namespace {

absl::Status Bad(absl::string_view source, size_t i, absl::string_view key, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": QP record ", i, ": \"", key, "\" ", want));
}

template <typename T>
absl::Status GetUint(const nlohmann::json& o, const char* key, absl::string_view source, size_t i,
                     std::optional<T>* out) {
  auto it = o.find(key);
  if (it == o.end()) return absl::OkStatus();
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->template get<int64_t>() >= 0))
    return Bad(source, i, key, "is not a non-negative integer");
  *out = it->template get<T>();
  return absl::OkStatus();
}

absl::Status GetString(const nlohmann::json& o, const char* key, absl::string_view source, size_t i,
                       std::string* out) {
  auto it = o.find(key);
  if (it == o.end()) return absl::OkStatus();
  if (!it->is_string()) return Bad(source, i, key, "is not a string");
  *out = it->get<std::string>();
  return absl::OkStatus();
}

}  // namespace

std::string QpRecord::Name() const { return absl::StrCat(ifname, "/", port, " qp ", lqpn); }

absl::StatusOr<std::vector<QpRecord>> ParseRdmaQpJson(absl::string_view text,
                                                      absl::string_view source) {
  // No RDMA device at all: the tool may print nothing.
  if (absl::StripAsciiWhitespace(text).empty()) return std::vector<QpRecord>{};
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(source, ": not JSON"));
  if (!j.is_array()) return absl::InvalidArgumentError(absl::StrCat(source, ": not a JSON array of QPs"));
  std::vector<QpRecord> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& o = j[i];
    if (!o.is_object()) return absl::InvalidArgumentError(absl::StrCat(source, ": QP record ", i, " is not an object"));
    QpRecord q;
    if (!o.contains("ifname")) return Bad(source, i, "ifname", "is missing");
    if (!o.contains("lqpn")) return Bad(source, i, "lqpn", "is missing");
    std::optional<uint32_t> port, lqpn;
    std::optional<int64_t> pid;
    absl::Status st = GetString(o, "ifname", source, i, &q.ifname);
    if (st.ok()) st = GetUint(o, "port", source, i, &port);
    if (st.ok()) st = GetUint(o, "lqpn", source, i, &lqpn);
    if (st.ok()) st = GetUint(o, "rqpn", source, i, &q.rqpn);
    if (st.ok()) st = GetString(o, "type", source, i, &q.type);
    if (st.ok()) st = GetString(o, "state", source, i, &q.state);
    if (st.ok()) st = GetUint(o, "sq-psn", source, i, &q.sq_psn);
    if (st.ok()) st = GetUint(o, "rq-psn", source, i, &q.rq_psn);
    if (st.ok()) st = GetString(o, "path-mig-state", source, i, &q.path_mig_state);
    if (st.ok()) st = GetUint(o, "pid", source, i, &pid);
    if (st.ok()) st = GetString(o, "comm", source, i, &q.comm);
    if (st.ok()) st = GetUint(o, "pdn", source, i, &q.pdn);
    if (!st.ok()) return st;
    q.port = static_cast<int>(port.value_or(0));
    q.lqpn = *lqpn;
    q.pid = pid;
    out.push_back(std::move(q));
  }
  return out;
}

absl::StatusOr<std::string> RunRdmaQpDump(double deadline_s, const std::string& argv0) {
  absl::StatusOr<SubprocessResult> r = RunSubprocess({argv0, "-j", "-d", "res", "show", "qp"}, deadline_s);
  if (absl::IsNotFound(r.status())) {
    return absl::NotFoundError(
        absl::StrCat(r.status().message(), " (install iproute2: apt-get install iproute2)"));
  }
  if (!r.ok()) return r.status();
  if (absl::Status st = r->ExitStatus(); !st.ok()) return st;
  return std::move(r->out);
}

}  // namespace rdmacheck
