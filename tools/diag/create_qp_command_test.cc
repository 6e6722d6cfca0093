#include "tools/diag/create_qp_command.h"

#include <memory>
#include <sstream>

#include "acts/driver_model.h"
#include "facts/profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "plan/plan_parser.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::IsOk;
using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;

DiagEnv FixtureEnv() {
  DiagEnv env;
  env.load = [](const std::optional<std::string>& profile,
                const std::optional<std::string>& plan) -> absl::StatusOr<DiagInputs> {
    DiagInputs in;
    if (!profile) return absl::FailedPreconditionError("test: no live device");
    absl::StatusOr<DeviceView> v = ReadProfileFile(*profile);
    if (!v.ok()) return v.status();
    in.view = *v;
    if (plan) {
      absl::StatusOr<Plan> p = ReadPlanFile(*plan);
      if (!p.ok()) return p.status();
      in.plan = *p;
    } else {
      in.plan = DefaultPlan();
    }
    return in;
  };
  env.device_for = [](const DeviceView&, const DeviceInfo& d) { return MakeDriverModel(d); };
  return env;
}

struct CmdRun {
  int rc;
  std::string out, err;
};
CmdRun Diag(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int rc = RunDiagCommand(args, out, err, FixtureEnv());
  return {rc, out.str(), err.str()};
}

TEST(RunDiagCommand, ExitCodesAndOutput) {
  const std::string old = "fixtures/profiles/rxe_old_kernel.profile";
  CmdRun r = Diag({"create-qp", "--profile", old, "-d", "rxe0", "--max-send-wr", "65536",
                "--max-send-sge", "16"});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("with max_send_sge=16 the largest accepted max_send_wr is 16384"));

  r = Diag({"create-qp", "--profile", old, "--max-send-wr=1000"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("granted: max_send_wr=1023"));

  r = Diag({"create-qp", "--profile", old, "--plan", "fixtures/plans/incident_einval.plan",
            "--class", "client", "--format", "json"});
  EXPECT_EQ(r.rc, 1) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["findings"][0]["field"], "max_send_wr");
  EXPECT_EQ(j["findings"][0]["largest_accepted"], 16384);
  EXPECT_THAT(j["relations"].dump(), HasSubstr("65792 entries is itself refused"));
}

TEST(RunDiagCommand, BadUsageIsTwo) {
  const std::string p = "fixtures/profiles/rxe_mtu9000.profile";
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"nonsense"},
      {"create-qp", "--profile", p, "--max-send-wr", "lots"},
      {"create-qp", "--profile", p, "--type", "XRC"},
      {"create-qp", "--profile", p, "--class", "x"},
      {"create-qp", "--profile", p, "-d", "mlx5_9"},
      {"create-qp", "--profile", p, "--plan", "fixtures/plans/config_a.plan", "--class", "nope"},
      {"create-qp", "--profile", p, "--bogus", "1"},
      {"create-qp", "--profile", "fixtures/profiles/no_device.profile"},
  };
  for (const auto& args : bad) {
    CmdRun r = Diag(args);
    EXPECT_EQ(r.rc, 2) << ::testing::PrintToString(args);
    EXPECT_THAT(r.err, HasSubstr("rdmacheck diag")) << ::testing::PrintToString(args);
  }
  EXPECT_THAT(Diag({"create-qp", "--profile", p, "-d", "mlx5_9"}).err, HasSubstr("found: rxe0"));
  EXPECT_THAT(Diag({"create-qp", "--profile", p, "--plan", "fixtures/plans/config_a.plan",
                    "--class", "nope"}).err,
              HasSubstr("classes: gw"));
}

}  // namespace
}  // namespace rdmacheck
