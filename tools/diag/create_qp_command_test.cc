#include "tools/diag/create_qp_command.h"

#include <memory>
#include <sstream>

#include "acts/driver_model.h"
#include "facts/paste_import.h"
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
CmdRun CreateQp(const CreateQpCommandOptions& o) {
  std::ostringstream out, err;
  int rc = RunCreateQpCommand(o, out, err, FixtureEnv());
  return {rc, out.str(), err.str()};
}

const std::string kOld = "fixtures/profiles/rxe_old_kernel.profile";
const std::string k9000 = "fixtures/profiles/rxe_mtu9000.profile";

TEST(RunCreateQpCommand, ExitCodesAndOutput) {
  CreateQpCommandOptions o;
  o.profile = kOld;
  o.device = "rxe0";
  o.caps = {{QpField::kMaxSendWr, 65536}, {QpField::kMaxSendSge, 16}};
  CmdRun r = CreateQp(o);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("with max_send_sge=16 the largest accepted max_send_wr is 16384"));

  CreateQpCommandOptions small;
  small.profile = kOld;
  small.caps = {{QpField::kMaxSendWr, 1000}};
  r = CreateQp(small);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("granted: max_send_wr=1023"));

  CreateQpCommandOptions cls;
  cls.profile = kOld;
  cls.plan = "fixtures/plans/incident_einval.plan";
  cls.qp_class = "client";
  cls.format = "json";
  r = CreateQp(cls);
  EXPECT_EQ(r.rc, 1) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["findings"][0]["field"], "max_send_wr");
  EXPECT_EQ(j["findings"][0]["largest_accepted"], 16384);
  EXPECT_THAT(j["relations"].dump(), HasSubstr("65792 entries is itself refused"));
}

TEST(RunCreateQpCommand, BadInputIsTwo) {
  CreateQpCommandOptions no_dev;
  no_dev.profile = k9000;
  no_dev.device = "mlx5_9";
  CreateQpCommandOptions no_class;
  no_class.profile = k9000;
  no_class.plan = "fixtures/plans/config_a.plan";
  no_class.qp_class = "nope";
  CreateQpCommandOptions empty;
  empty.profile = "fixtures/profiles/no_device.profile";
  CreateQpCommandOptions missing;
  missing.profile = "/nonexistent/x.profile";
  for (const CreateQpCommandOptions& o : {no_dev, no_class, empty, missing}) {
    CmdRun r = CreateQp(o);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("rdmacheck diag create-qp: "));
  }
  EXPECT_THAT(CreateQp(no_dev).err, HasSubstr("found: rxe0"));
  EXPECT_THAT(CreateQp(no_class).err, HasSubstr("classes: gw"));
}

}  // namespace
}  // namespace rdmacheck
