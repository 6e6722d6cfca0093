#include "report/json.h"

#include <string>

#include <nlohmann/json.hpp>

namespace rdmacheck {
namespace {

// ordered_json keeps the keys in the documented order, which makes the output
// readable and diffs between runs small.
using Json = nlohmann::ordered_json;

std::string Name(Verdict v) { return std::string(VerdictName(v)); }

Json Strings(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const std::string& s : v) a.push_back(s);
  return a;
}

Json CheckJson(const Result& r) {
  Json evidence = Json::array();
  for (const Evidence& e : r.evidence) {
    evidence.push_back(Json{{"subject", e.subject},
                            {"expected", e.expected},
                            {"actual", e.actual},
                            {"verdict", Name(e.verdict)}});
  }
  return Json{{"id", r.id},
              {"verdict", Name(r.verdict)},
              {"title", r.title},
              {"evidence", std::move(evidence)},
              {"notes", Strings(r.notes)},
              {"remediation", Strings(r.remediation)},
              {"skip_reason", r.skip_reason},
              {"seconds", r.seconds}};
}

}  // namespace

std::string RenderJson(const RunReport& rep) {
  Json devices = Json::array();
  for (const ReportDevice& d : rep.devices) {
    devices.push_back(Json{{"name", d.name},
                           {"driver", d.driver},
                           {"fw_ver", d.fw_ver},
                           {"node_guid", d.node_guid}});
  }
  Json checks = Json::array();
  for (const Result& r : rep.results) checks.push_back(CheckJson(r));

  Json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["tool"] = Json{{"name", "rdmacheck"}, {"version", rep.tool_version}};
  j["host"] = rep.host;
  j["kernel"] = rep.kernel;
  j["source"] = rep.source;
  j["plan"] = rep.plan;
  j["started_at"] = rep.started_at;
  j["seconds"] = rep.seconds;
  Json phases = Json::array();
  for (const Phase& p : rep.phases) phases.push_back(Json{{"name", p.name}, {"seconds", p.seconds}});
  j["phases"] = std::move(phases);
  j["devices"] = std::move(devices);
  j["summary"] = Json{{"pass", rep.Count(Verdict::kPass)},
                      {"warn", rep.Count(Verdict::kWarn)},
                      {"fail", rep.Count(Verdict::kFail)},
                      {"skip", rep.Count(Verdict::kSkip)},
                      {"total", static_cast<int>(rep.results.size())}};
  j["checks"] = std::move(checks);
  // replace: a profile may carry bytes that are not UTF-8; never throw on them.
  return j.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

}  // namespace rdmacheck
