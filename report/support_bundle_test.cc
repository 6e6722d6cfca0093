#include "report/support_bundle.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "report/internal/test_report.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using report_testing::SampleView;

TEST(SupportBundle, JsonHoldsProfileRunAndFindings) {
  const RunReport rep = report_testing::SampleReport();
  std::string out = RenderSupportBundle(SampleView(), rep, "", std::string(R"({"findings":[]})"), SupportFormat::kJson);
  nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "rdmacheck.report/1");
  EXPECT_THAT(j["profile"].get<std::string>(), HasSubstr("[device mlx5_0]"));
  EXPECT_EQ(j["run"]["checks"].size(), rep.results.size());
  EXPECT_TRUE(j["explain"]["findings"].is_array());
}

TEST(SupportBundle, JsonWithoutLogsHasNullExplain) {
  std::string out =
      RenderSupportBundle(SampleView(), report_testing::SampleReport(), "", std::nullopt, SupportFormat::kJson);
  EXPECT_TRUE(nlohmann::json::parse(out)["explain"].is_null());
}

TEST(SupportBundle, TextHasItsSectionsInOrder) {
  std::string out = RenderSupportBundle(SampleView(), report_testing::SampleReport(), "CHECKS\n",
                                        std::string("FINDINGS\n"), SupportFormat::kText);
  EXPECT_THAT(out, StartsWith("==== rdmacheck report "));
  size_t profile = out.find("==== profile ===="), checks = out.find("==== checks ====\nCHECKS"),
         explain = out.find("==== explain ====\nFINDINGS");
  ASSERT_NE(profile, std::string::npos);
  ASSERT_NE(checks, std::string::npos);
  ASSERT_NE(explain, std::string::npos);
  EXPECT_LT(profile, checks);
  EXPECT_LT(checks, explain);
  EXPECT_EQ(RenderSupportBundle(SampleView(), report_testing::SampleReport(), "", std::nullopt, SupportFormat::kText)
                .find("==== explain"),
            std::string::npos);
}

}  // namespace
}  // namespace rdmacheck
