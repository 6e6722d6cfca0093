#include "checks/session.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "checks/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

TEST(Session, NeedsOfTheSelection) {
  EXPECT_EQ(NeedsOf({FindCheck("device-present"), FindCheck("port-active")}), 0u);
  EXPECT_EQ(NeedsOf({FindCheck("firewall-4791")}), static_cast<unsigned>(kNeedsRulesets));
  // The traffic checks read the qdiscs first (nothing is sent into one that
  // drops full-size frames).
  EXPECT_EQ(NeedsOf({FindCheck("firewall-4791"), FindCheck("hung-qp")}),
            static_cast<unsigned>(kNeedsRulesets | kNeedsDevice | kNeedsQdiscs));
  EXPECT_EQ(NeedsOf({FindCheck("device-limits"), FindCheck("gid-table")}) & kNeedsQdiscs, 0u);
  EXPECT_NE(NeedsOf(AllChecks()) & kNeedsRulesets, 0u);
  EXPECT_EQ(NeedsOf({FindCheck("link-health"), FindCheck("pcie")}), static_cast<unsigned>(kNeedsWindow));
}

TEST(Session, LiveWindowIsBoundedByTheCheckDeadline) {
  Options o;
  EXPECT_DOUBLE_EQ(WindowSeconds(o), 2);
  o.window_s = 30;
  o.check_deadline_s = 0.3;
  EXPECT_DOUBLE_EQ(WindowSeconds(o), 0.3);
}

TEST(Session, NoDeviceNoWindow) {
  // This host has no RDMA device: nothing to watch, no time spent on it.
  InputSources src;
  src.options.window_s = 30;
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, kNeedsWindow);
  ASSERT_TRUE(in.ok()) << in.status();
  if (!in->view.devices.empty()) GTEST_SKIP() << "this host has RDMA devices";
  EXPECT_FALSE(in->view.window.has_value());
}

TEST(Session, LoadsProfileAndPlan) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = "fixtures/plans/config_a.plan";
  src.options.device = "rxe0";
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, 0);
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_FALSE(in->view.live());
  EXPECT_EQ(in->plan.path, "fixtures/plans/config_a.plan");
  EXPECT_EQ(in->options.device, "rxe0");
}

TEST(Session, BadPlanNamesFileAndLine) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = "fixtures/plans/bad_typo.plan";
  EXPECT_THAT(LoadRunInputs(src, 0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("fixtures/plans/bad_typo.plan:")));
}

// A plan for a device the view lacks is bad input at the plan's line, not
// a run in which every check has nothing to look at.
TEST(Session, PlanDeviceMissingFromTheViewNamesThePlanLine) {
  const std::string path = ::testing::TempDir() + "/other_device.plan";
  std::ofstream(path) << "[plan]\nname = t\ndevice = mlx5_9\n[qp q]\nmax_send_wr = 1\nmax_recv_wr = 1\n";
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = path;
  EXPECT_THAT(LoadRunInputs(src, 0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(path + ":3: device: mlx5_9 is not a device of "
                                        "profile:fixtures/profiles/rxe_mtu9000.profile (devices: rxe0, rxe1)")));
}

TEST(Session, ProfileGetsTheDriverModel) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, 0);
  ASSERT_TRUE(in.ok()) << in.status();
  absl::StatusOr<std::unique_ptr<Device>> dev = DeviceFor(in->view, in->view.devices.at(0));
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_THAT((*dev)->Describe(), HasSubstr("rxe model"));
}

// Live, a device that cannot be opened says why (this machine has none named
// so): the reason reaches the check instead of a bare "could not open".
TEST(Session, LiveOpenFailureIsTheReason) {
  DeviceView live;
  live.source = "live";
  DeviceInfo d;
  d.name = "rdmacheck_no_such_dev0";
  live.devices.push_back(d);
  ASSERT_TRUE(live.live());
  EXPECT_THAT(DeviceFor(live, d).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no RDMA device named rdmacheck_no_such_dev0")));
  CheckContext ctx{live, DefaultPlan(), Options{}, [&](const DeviceInfo& x) { return DeviceFor(live, x); }};
  EXPECT_THAT(ctx.OpenDevice(d).status(), StatusIs(absl::StatusCode::kNotFound, HasSubstr("rdmacheck_no_such_dev0")));
}

TEST(Session, RunMakesTheReport) {
  InputSources src;
  src.profile = "fixtures/profiles/rxe_mtu9000.profile";
  src.plan = "fixtures/plans/config_a.plan";
  absl::StatusOr<RunInputs> in = LoadRunInputs(src, 0);
  ASSERT_TRUE(in.ok()) << in.status();
  Session session;
  RunReport rep = session.Run(*in, {FindCheck("device-present"), FindCheck("device-limits")});
  ASSERT_EQ(rep.results.size(), 2u);
  EXPECT_EQ(rep.results[0].id, "device-present");
  EXPECT_EQ(rep.results[0].verdict, Verdict::kPass);
  EXPECT_EQ(rep.plan, "fixtures/plans/config_a.plan");
  ASSERT_EQ(rep.devices.size(), 2u);  // rxe0 and its peer rxe1
  EXPECT_EQ(rep.devices[0].name, "rxe0");
  EXPECT_EQ(ExitCodeFor(rep.results), ExitCodeFor({rep.results[0], rep.results[1]}));
}

TEST(Session, ExitCodes) {
  Result pass, fail, skip;
  fail.verdict = Verdict::kFail;
  skip.verdict = Verdict::kSkip;
  EXPECT_EQ(ExitCodeFor({pass, skip}), kExitOk);
  EXPECT_EQ(ExitCodeFor({pass, fail}), kExitFail);
  EXPECT_EQ(ExitCodeFor({skip, skip}), kExitNothingRan);
}

}  // namespace
}  // namespace rdmacheck
