#include "acts/testing/fake_device.h"

#include "acts/driver_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck::testing {
namespace {

using ::testing::HasSubstr;

TEST(FakeDevice, QueuedAnswersComeFirstThenTheStandingOne) {
  FakeDevice fake;
  fake.create_cq.Always(7u);
  fake.create_cq.Next(1u);
  fake.create_cq.Next(absl::ResourceExhaustedError("ibv_create_cq: Cannot allocate memory"));
  EXPECT_EQ(*fake.CreateCq(100), 1u);
  EXPECT_THAT(fake.CreateCq(200), StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("Cannot allocate")));
  EXPECT_EQ(*fake.CreateCq(300), 7u);
  EXPECT_EQ(*fake.CreateCq(400), 7u);
  EXPECT_EQ(fake.create_cq.requests(), (std::vector<uint32_t>{100, 200, 300, 400}));
  EXPECT_EQ(fake.create_cq.calls(), 4);
  uint32_t last = 0;
  fake.create_cq.CopyLastRequest(&last);
  EXPECT_EQ(last, 400u);
  fake.create_cq.CopyLastRequest(nullptr);  // a caller that does not want it
}

TEST(FakeDevice, CallbackSeesTheRequest) {
  FakeDevice fake;
  fake.traffic_probe.With([](const ProbeRequest& req) -> absl::StatusOr<ProbeResult> {
    ProbeResult r;
    r.peer_device = "saw " + req.peer_device;
    return r;
  });
  ProbeRequest req;
  req.peer_device = "rxe1";
  ASSERT_OK_AND_ASSIGN(ProbeResult r, fake.RunTrafficProbe(req));
  EXPECT_EQ(r.peer_device, "saw rxe1");
  ASSERT_EQ(fake.traffic_probe.requests().size(), 1u);
  EXPECT_EQ(fake.traffic_probe.requests()[0].peer_device, "rxe1");
}

TEST(FakeDevice, UnsetAnswersAreTheDefaults) {
  FakeDevice fake;
  EXPECT_EQ(fake.Describe(), "fake");
  EXPECT_THAT(fake.CreateQp(QpRequest()),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("CreateQp")));
  EXPECT_THAT(fake.CreateCq(4), StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("CreateCq")));
  EXPECT_EQ(fake.QpMemory(QpRequest(), QpCaps()).total(), 0u);
  EXPECT_EQ(fake.CqMemory(4), 0u);
  // The probes say what a driver model says.
  EXPECT_THAT(fake.RunTrafficProbe(ProbeRequest()),
              StatusIs(absl::StatusCode::kUnimplemented, "traffic probe needs a live device"));
  EXPECT_THAT(fake.RunCqOverrunProbe(CqOverrunRequest()),
              StatusIs(absl::StatusCode::kUnimplemented, "CQ overrun probe needs a live device"));
  EXPECT_THAT(fake.MeasureQpMemory(QpMemoryRequest()),
              StatusIs(absl::StatusCode::kUnimplemented, "measured QP memory needs a live device"));
  // Answered or not, every call is recorded.
  EXPECT_EQ(fake.qp_memory.calls(), 1);
  EXPECT_EQ(fake.measure_qp_memory.calls(), 1);
}

TEST(FakeDevice, FallbackAnswersWhatIsNotSet) {
  DeviceInfo rxe;
  rxe.name = "rxe0";
  rxe.driver = "rxe";
  rxe.attrs = {{"max_qp_wr", 16384}, {"max_sge", 32}, {"max_cqe", 32767}};
  std::unique_ptr<Device> model = MakeDriverModel(rxe);
  FakeDevice fake("skewed rxe");
  fake.FallBackTo(MakeDriverModel(rxe));
  fake.create_cq.Always(5u);
  EXPECT_EQ(*fake.CreateCq(100), 5u);
  QpRequest req{QpType::kRc, {.max_send_wr = 100, .max_send_sge = 1}};
  EXPECT_EQ(*fake.CreateQp(req), *model->CreateQp(req));
  EXPECT_EQ(fake.CqMemory(127), model->CqMemory(127));
  EXPECT_EQ(fake.create_qp.calls(), 1);
}

TEST(FakeDevice, FactoryHandsOutDevicesThatAnswerAndRecordHere) {
  FakeDevice fake("live rxe0");
  fake.cq_overrun_probe.Always(absl::FailedPreconditionError("port 1 is DOWN"));
  std::function<std::unique_ptr<Device>(const DeviceInfo&)> device_for = fake.Factory();
  {
    std::unique_ptr<Device> d = device_for(DeviceInfo());
    EXPECT_EQ(d->Describe(), "live rxe0");
    CqOverrunRequest req;
    req.cqe = 4;
    EXPECT_THAT(d->RunCqOverrunProbe(req), StatusIs(absl::StatusCode::kFailedPrecondition, "port 1 is DOWN"));
    EXPECT_EQ(d->CqMemory(3), 0u);
  }
  ASSERT_EQ(fake.cq_overrun_probe.requests().size(), 1u);
  EXPECT_EQ(fake.cq_overrun_probe.requests()[0].cqe, 4u);
  EXPECT_EQ(fake.cq_memory.requests(), std::vector<uint32_t>{3});
}

}  // namespace
}  // namespace rdmacheck::testing
