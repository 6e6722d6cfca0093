#include "tools/diag/create_qp_output.h"

#include <memory>

#include "acts/driver_model.h"
#include "facts/paste_import.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

CreateQpDiagnosis Diagnose(const std::string& profile, const QpRequest& req) {
  absl::StatusOr<DeviceView> v = ReadProfileFile("fixtures/profiles/" + profile);
  EXPECT_OK(v.status());
  if (!v.ok()) return {};
  std::unique_ptr<Device> dev = MakeDriverModel(v->devices[0]);
  absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(*dev, v->devices[0], req);
  EXPECT_OK(d.status());
  return d.ok() ? *d : CreateQpDiagnosis();
}

// 65536 x 16 on an rxe of max_qp_wr 16384.
const QpRequest kOverLimit{QpType::kRc, {.max_send_wr = 65536, .max_recv_wr = 128, .max_send_sge = 16, .max_recv_sge = 1}};

TEST(FormatDiagnosisText, AskedFindingsVerdictAndCost) {
  CreateQpDiagnosis d = Diagnose("rxe_old_kernel.profile", kOverLimit);
  std::string text = FormatDiagnosisText(d);
  EXPECT_THAT(text, StartsWith("create-qp on rxe0 (rxe model for rxe0 "));
  EXPECT_THAT(text, HasSubstr("\n  asked:   type=RC max_send_wr=65536 max_recv_wr=128 max_send_sge=16 "
                              "max_recv_sge=1 max_inline_data=0\n"));
  EXPECT_THAT(text, HasSubstr("\n  max_send_wr: asked 65536, limit max_qp_wr 16384 (device attribute) OVER, "
                              "largest accepted 16384\n"));
  EXPECT_THAT(text, HasSubstr("\nverdict:\n  ibv_create_qp fails on rxe0: "));
  EXPECT_THAT(text, HasSubstr("\n  max_send_wr=65536 is over this device's max_qp_wr 16384; with max_send_sge=16 "
                              "the largest accepted max_send_wr is 16384\n"));
  EXPECT_THAT(text, HasSubstr("\n(3 creates, "));
  EXPECT_THAT(text, Not(HasSubstr("granted:")));
}

TEST(FormatDiagnosisText, SuccessSaysGrantedAndSrq) {
  QpRequest req{QpType::kRc, {.max_send_wr = 1000, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
  req.with_srq = true;
  std::string text = FormatDiagnosisText(Diagnose("rxe_old_kernel.profile", req));
  EXPECT_THAT(text, HasSubstr(" max_inline_data=0 srq=yes\n"));
  EXPECT_THAT(text, HasSubstr("\n  granted: max_send_wr=1023 "));
}

TEST(FormatDiagnosisJson, TheDocumentedFields) {
  nlohmann::json j = nlohmann::json::parse(FormatDiagnosisJson(Diagnose("rxe_old_kernel.profile", kOverLimit)));
  EXPECT_EQ(j["device"], "rxe0");
  EXPECT_EQ(j["type"], "RC");
  EXPECT_EQ(j["srq"], false);
  EXPECT_EQ(j["requested"]["max_send_wr"], 65536);
  EXPECT_EQ(j["ok"], false);
  EXPECT_THAT(j["status"].get<std::string>(), HasSubstr("Invalid argument"));
  EXPECT_TRUE(j["granted"].is_null());
  EXPECT_EQ(j["joint"], false);
  ASSERT_EQ(j["findings"].size(), 1u);
  const nlohmann::json& f = j["findings"][0];
  EXPECT_EQ(f["field"], "max_send_wr");
  EXPECT_EQ(f["limit"], 16384);
  EXPECT_EQ(f["limit_name"], "max_qp_wr");
  EXPECT_EQ(f["over_limit"], true);
  EXPECT_EQ(f["largest_accepted"], 16384);
  EXPECT_EQ(f["search_complete"], true);
  EXPECT_EQ(f["others"]["max_send_sge"], 16);
  EXPECT_GE(j["verdict"].size(), 2u);
  EXPECT_TRUE(j["relations"].is_array());
  EXPECT_EQ(j["creates"], 3);
  EXPECT_TRUE(j["seconds"].is_number());
}

}  // namespace
}  // namespace rdmacheck
