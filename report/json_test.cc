#include "report/json.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/internal/test_report.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using Json = nlohmann::json;
using report_testing::SampleReport;

std::vector<std::string> Keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

TEST(RenderJsonTest, TopLevelFields) {
  const Json j = Json::parse(RenderJson(SampleReport()));
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_EQ(j.at("tool").at("name"), "rdmacheck");
  EXPECT_EQ(j.at("tool").at("version"), "0.1.0");
  EXPECT_EQ(j.at("host"), "rxeguest");
  EXPECT_EQ(j.at("kernel"), "6.1.0-27-amd64");
  EXPECT_EQ(j.at("source"), "live");
  EXPECT_EQ(j.at("plan"), "<default>");
  EXPECT_EQ(j.at("started_at"), "2026-11-29T09:30:00Z");
  EXPECT_DOUBLE_EQ(j.at("seconds").get<double>(), 0.012);
  EXPECT_EQ(j.size(), 12u) << "a new top-level field needs docs/output-formats.md";
}

TEST(RenderJsonTest, PhasesInRunOrderWithTheirSeconds) {
  const Json j = Json::parse(RenderJson(SampleReport()));
  const Json& p = j.at("phases");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p.at(0).at("name"), "startup");
  EXPECT_DOUBLE_EQ(p.at(0).at("seconds").get<double>(), 0.01);
  EXPECT_EQ(p.at(1).at("name"), "gather.sysfs rxe0");
  EXPECT_EQ(p.at(2).at("name"), "checks");
  EXPECT_DOUBLE_EQ(p.at(2).at("seconds").get<double>(), 0.012);
  EXPECT_EQ(p.at(0).size(), 2u);
}

TEST(RenderJsonTest, KeysInDocumentedOrder) {
  const auto j = nlohmann::ordered_json::parse(RenderJson(SampleReport()));
  EXPECT_THAT(Keys(j), ElementsAre("schema_version", "tool", "host", "kernel", "source", "plan",
                                   "started_at", "seconds", "phases", "devices", "summary", "checks"));
  EXPECT_THAT(Keys(j.at("checks").at(0)),
              ElementsAre("id", "verdict", "title", "evidence", "notes", "remediation",
                          "skip_reason", "seconds"));
}

TEST(RenderJsonTest, Devices) {
  const Json j = Json::parse(RenderJson(SampleReport()));
  ASSERT_EQ(j.at("devices").size(), 1u);
  const Json& d = j.at("devices").at(0);
  EXPECT_EQ(d.at("name"), "rxe0");
  EXPECT_EQ(d.at("driver"), "rxe");
  EXPECT_EQ(d.at("fw_ver"), "");
  EXPECT_EQ(d.at("node_guid"), "5254:00ff:fe12:3456");
  EXPECT_EQ(d.size(), 4u);
}

TEST(RenderJsonTest, SummaryCounts) {
  const Json j = Json::parse(RenderJson(SampleReport()));
  EXPECT_EQ(j.at("summary"),
            Json::parse(R"({"pass": 2, "warn": 1, "fail": 1, "skip": 1, "total": 5})"));
}

TEST(RenderJsonTest, EveryCheckField) {
  const Json j = Json::parse(RenderJson(SampleReport()));
  const Json& checks = j.at("checks");
  ASSERT_EQ(checks.size(), 5u);

  struct Row {
    const char* id;
    const char* verdict;
    const char* title;
    size_t evidence;
    size_t remediation;
    const char* skip_reason;
  } rows[] = {
      {"device-present", "PASS", "An RDMA device is present", 1, 0, ""},
      {"port-active", "FAIL", "Port 1 of rxe0 is ACTIVE", 2, 2, ""},
      {"mtu-match", "WARN", "Active MTU of rxe0 port 1 is 4096", 1, 1, ""},
      {"loopback-traffic", "SKIP", "RC traffic flows from rxe0 to itself", 0, 0,
       "traffic probe needs a live device"},
      {"gid-roce-v2", "PASS", "rxe0 port 1 has a RoCE v2 GID", 1, 0, ""},
  };
  for (size_t i = 0; i < checks.size(); ++i) {
    SCOPED_TRACE(rows[i].id);
    const Json& c = checks.at(i);
    EXPECT_EQ(c.at("id"), rows[i].id);
    EXPECT_EQ(c.at("verdict"), rows[i].verdict);
    EXPECT_EQ(c.at("title"), rows[i].title);
    EXPECT_EQ(c.at("evidence").size(), rows[i].evidence);
    EXPECT_TRUE(c.at("notes").is_array());
    EXPECT_EQ(c.at("remediation").size(), rows[i].remediation);
    EXPECT_EQ(c.at("skip_reason"), rows[i].skip_reason);
    EXPECT_TRUE(c.at("seconds").is_number());
    EXPECT_EQ(c.size(), 8u);
  }

  const Json& fail = checks.at(1);
  EXPECT_EQ(fail.at("evidence").at(0),
            Json::parse(R"({"subject": "rxe0 port 1 state", "expected": "ACTIVE",
                            "actual": "DOWN", "verdict": "FAIL"})"));
  EXPECT_EQ(fail.at("evidence").at(1),
            Json::parse(R"({"subject": "rxe0 port 1 netdev", "expected": "",
                            "actual": "va", "verdict": "PASS"})"));
  EXPECT_EQ(fail.at("notes"), Json::parse(R"(["rxe follows the state of its netdev"])"));
  EXPECT_EQ(fail.at("remediation"),
            Json::parse(R"(["ip link set dev va up", "ibv_devinfo -d rxe0 | grep state"])"));
  EXPECT_DOUBLE_EQ(fail.at("seconds").get<double>(), 0.0002);
  EXPECT_EQ(checks.at(2).at("evidence").at(0).at("verdict"), "WARN");
}

TEST(RenderJsonTest, PrettyWithTrailingNewline) {
  const std::string out = RenderJson(SampleReport());
  EXPECT_EQ(out.rfind("{\n  \"schema_version\": 1,\n  \"tool\": {\n    \"name\"", 0), 0u)
      << out.substr(0, 80);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(out.substr(out.size() - 8), "}\n  ]\n}\n");
}

TEST(RenderJsonTest, EmptyRunHasEmptyListsNotNulls) {
  const Json j = Json::parse(RenderJson(RunReport{}));
  EXPECT_EQ(j.at("devices"), Json::array());
  EXPECT_EQ(j.at("checks"), Json::array());
  EXPECT_EQ(j.at("host"), "");
  EXPECT_EQ(j.at("summary"),
            Json::parse(R"({"pass": 0, "warn": 0, "fail": 0, "skip": 0, "total": 0})"));
}

TEST(RenderJsonTest, AwkwardStringsRoundTrip) {
  RunReport rep = SampleReport();
  const std::string title = "a <b> & \"c\" 'd' \\ \x1b[31m\t\n\x01 \xc3\xa9";
  rep.results[0].title = title;
  const Json j = Json::parse(RenderJson(rep));
  EXPECT_EQ(j.at("checks").at(0).at("title"), title);
}

TEST(RenderJsonTest, InvalidUtf8IsReplacedNotThrown) {
  RunReport rep = SampleReport();
  rep.host = "host\xff";
  std::string out;
  ASSERT_NO_THROW(out = RenderJson(rep));
  EXPECT_EQ(Json::parse(out).at("host"), "host\xef\xbf\xbd");
}

}  // namespace
}  // namespace rdmacheck
