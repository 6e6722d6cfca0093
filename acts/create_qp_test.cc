#include "acts/create_qp.h"

#include <memory>
#include <sstream>

#include "acts/driver_model.h"
#include "acts/testing/fake_device.h"
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

DeviceView Profile(const std::string& name) {
  absl::StatusOr<DeviceView> v = ReadProfileFile("fixtures/profiles/" + name);
  EXPECT_THAT(v.status(), IsOk());
  return v.ok() ? *v : DeviceView();
}

std::string Joined(const CreateQpDiagnosis& d) {
  std::string s;
  for (const std::string& l : d.Verdict()) s += l + "\n";
  return s;
}

const CreateQpFinding* Finding(const CreateQpDiagnosis& d, QpField f) {
  for (const CreateQpFinding& fd : d.findings)
    if (fd.field == f) return &fd;
  return nullptr;
}

// {profile, request, field named, its largest accepted value, sentence}.
struct Case {
  const char* name;
  const char* profile;
  QpType type;
  QpCaps caps;
  QpField culprit;
  uint32_t largest;
  const char* says;
  bool clamped_ok = true;  // with the culprit at its limit, accepted
  int max_creates = 6;     // over-limit field: the limit and limit + 1
};

TEST(DiagnoseCreateQp, NamesTheCulpritOnEachModel) {
  const Case cases[] = {
      // The EINVAL incident: 65536 x 16 on rxe with max_qp_wr 16384.
      {"EINVAL incident", "rxe_old_kernel.profile", QpType::kRc,
       {.max_send_wr = 65536, .max_recv_wr = 256, .max_send_sge = 16, .max_recv_sge = 1},
       QpField::kMaxSendWr, 16384,
       "max_send_wr=65536 is over this device's max_qp_wr 16384; with max_send_sge=16 the "
       "largest accepted max_send_wr is 16384"},
      // mlx4's provider refuses inline above 1024 (providers/mlx4 create_qp_ex).
      {"mlx4 inline", "mlx4_cx3.profile", QpType::kRc,
       {.max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1,
        .max_inline_data = 2000},
       // 1024 itself needs a 2048 B stride > max_sq_desc_sz 1008 on RC (kernel
       // set_user_sq_size), so even the limit is refused: the search finds 928.
       QpField::kMaxInlineData, 928,
       "max_inline_data=2000 is over this device's max_inline_data 1024; with max_send_wr=64 "
       "and max_send_sge=1 the largest accepted max_inline_data is 928",
       false, 20},
      // The guest scenario's request: rxe's max_sge is 32.
      {"rxe sge", "rxe_mtu9000.profile", QpType::kRc,
       {.max_send_wr = 128, .max_recv_wr = 128, .max_send_sge = 64, .max_recv_sge = 1},
       QpField::kMaxSendSge, 32, "max_send_sge=64 is over this device's max_sge 32"},
      {"rxe recv wr", "rxe_old_kernel.profile", QpType::kUd,
       {.max_send_wr = 16, .max_recv_wr = 20000, .max_send_sge = 1, .max_recv_sge = 1},
       QpField::kMaxRecvWr, 16384, "max_recv_wr=20000 is over this device's max_qp_wr 16384"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    DeviceView v = Profile(c.profile);
    ASSERT_FALSE(v.devices.empty());
    std::unique_ptr<Device> dev = MakeDriverModel(v.devices[0]);
    absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(*dev, v.devices[0], {c.type, c.caps});
    ASSERT_THAT(d.status(), IsOk());
    EXPECT_THAT(d->create_status, StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr(std::string(QpFieldName(c.culprit)))));
    const CreateQpFinding* fd = Finding(*d, c.culprit);
    ASSERT_NE(fd, nullptr);
    EXPECT_TRUE(fd->over_limit);
    ASSERT_TRUE(fd->largest_accepted.has_value());
    EXPECT_EQ(*fd->largest_accepted, c.largest);
    EXPECT_EQ(d->clamped_accepted, c.clamped_ok);
    EXPECT_EQ(d->joint, !c.clamped_ok);
    // The answer is the model's boundary: accepted at it, refused one above.
    QpCaps at = d->clamped.value_or(c.caps);
    SetField(at, c.culprit, c.largest);
    EXPECT_THAT(dev->CreateQp({c.type, at}).status(), IsOk());
    SetField(at, c.culprit, c.largest + 1);
    EXPECT_THAT(dev->CreateQp({c.type, at}).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
    EXPECT_THAT(Joined(*d), HasSubstr(c.says));
    // Only the culprit is over its limit; nothing else is blamed.
    for (const CreateQpFinding& other : d->findings) {
      if (other.field != c.culprit) {
        EXPECT_FALSE(other.over_limit) << QpFieldName(other.field);
      }
    }
    EXPECT_LE(d->creates, c.max_creates);
    // Fields that cannot fix it alone are not listed when one can.
    EXPECT_THAT(Joined(*d), ::testing::Not(HasSubstr("does not help")));
  }
}

// mlx5: each field fine alone, refused together. 8192 WRs of 1 SGE take
// 8192 x 256 B = 2 MiB = 32768 basic blocks (= max_qp_wr, accepted); 16 SGEs
// alone are fine; 8192 x 448 B rounds up to 4 MiB = 65536 blocks > 32768
// (mlx5_calc_sq_size). With 16 SGEs: 2 MiB / 448 = 4681 WRs; with 8192 WRs:
// a 256 B WQE = 4 SGEs.
TEST(DiagnoseCreateQp, JointFailureOnMlx5ReportsLargestOfEachField) {
  DeviceView v = Profile("mlx5_cx6.profile");
  const DeviceInfo& info = v.devices[0];
  std::unique_ptr<Device> dev = MakeDriverModel(info);
  QpCaps alone_wr{.max_send_wr = 8192, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1};
  QpCaps alone_sge{.max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 16, .max_recv_sge = 1};
  ASSERT_THAT(dev->CreateQp({QpType::kRc, alone_wr}).status(), IsOk());
  ASSERT_THAT(dev->CreateQp({QpType::kRc, alone_sge}).status(), IsOk());

  QpCaps both{.max_send_wr = 8192, .max_recv_wr = 1, .max_send_sge = 16, .max_recv_sge = 1};
  absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(*dev, info, {QpType::kRc, both});
  ASSERT_THAT(d.status(), IsOk());
  EXPECT_FALSE(d->ok());
  EXPECT_TRUE(d->joint);
  EXPECT_FALSE(d->clamped.has_value());
  const CreateQpFinding* wr = Finding(*d, QpField::kMaxSendWr);
  const CreateQpFinding* sge = Finding(*d, QpField::kMaxSendSge);
  ASSERT_NE(wr, nullptr);
  ASSERT_NE(sge, nullptr);
  EXPECT_FALSE(wr->over_limit);
  EXPECT_EQ(wr->largest_accepted, 4681u);
  EXPECT_EQ(sge->largest_accepted, 4u);
  std::string text = Joined(*d);
  EXPECT_THAT(text, HasSubstr("each field is within its own limit, but together they are refused"));
  EXPECT_THAT(text, HasSubstr("with max_send_sge=16 the largest accepted max_send_wr is 4681"));
  EXPECT_THAT(text, HasSubstr("with max_send_wr=8192 the largest accepted max_send_sge is 4"));
  // The receive side is accepted as asked: not blamed.
  EXPECT_THAT(text, ::testing::Not(HasSubstr("max_recv_wr is")));
  // Bounded: O(log) creates per field (8192 and 16 -> ~14 + ~5, plus ends).
  EXPECT_LE(d->creates, 40);
  // The answers are real: the largest values are accepted, one more is not.
  QpCaps ok = both;
  ok.max_send_wr = 4681;
  EXPECT_THAT(dev->CreateQp({QpType::kRc, ok}).status(), IsOk());
  ok.max_send_wr = 4682;
  EXPECT_THAT(dev->CreateQp({QpType::kRc, ok}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("basic blocks")));
}

TEST(DiagnoseCreateQp, SuccessReportsGrantedAndTheCqRelation) {
  DeviceView v = Profile("rxe_mtu9000.profile");
  std::unique_ptr<Device> dev = MakeDriverModel(v.devices[0]);
  DiagnoseOptions o;
  o.cqe = 3000;  // the CQ incident: a CQ of 3000 under 2048 + 2048
  absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(
      *dev, v.devices[0],
      {QpType::kRc, {.max_send_wr = 2048, .max_recv_wr = 2048, .max_send_sge = 4, .max_recv_sge = 1}},
      o);
  ASSERT_THAT(d.status(), IsOk());
  ASSERT_TRUE(d->ok());
  EXPECT_EQ(d->granted->max_send_wr, 4095u);  // rxe: roundup_pow_of_two(2049) - 1
  EXPECT_EQ(d->creates, 1);
  EXPECT_THAT(Joined(*d), HasSubstr("not an EINVAL cause on rxe, mlx5 or mlx4"));
  EXPECT_THAT(Joined(*d), HasSubstr("cqe >= 8190"));
}

TEST(DiagnoseCreateQp, CqRefusedAndSrqOverLimitAreSaid) {
  DeviceView v = Profile("rxe_old_kernel.profile");
  std::unique_ptr<Device> dev = MakeDriverModel(v.devices[0]);
  DiagnoseOptions o;
  o.cqe = 65792;  // incident_einval.plan's CQ: over rxe's max_cqe 32767
  o.srq_max_wr = 20000;
  QpRequest req{QpType::kRc, {.max_send_wr = 64, .max_send_sge = 1}, /*with_srq=*/true};
  absl::StatusOr<CreateQpDiagnosis> d = DiagnoseCreateQp(*dev, v.devices[0], req, o);
  ASSERT_THAT(d.status(), IsOk());
  std::string text = Joined(*d);
  EXPECT_THAT(text, HasSubstr("the CQ of 65792 entries is itself refused"));
  EXPECT_THAT(text, HasSubstr("max_cqe"));
  EXPECT_THAT(text, HasSubstr("over this device's max_srq_wr 16384"));
}

// A Device that refuses every create with `why`: nothing to bisect, said
// plainly.
void RefuseAll(testing::FakeDevice& dev, absl::Status why) {
  dev.create_qp.Always(std::move(why));
  dev.create_cq.With([](uint32_t cqe) -> absl::StatusOr<uint32_t> { return cqe; });
}

TEST(DiagnoseCreateQp, NoSingleFieldAndBudgetBounds) {
  DeviceInfo info;
  info.name = "x0";
  testing::FakeDevice dev("refuses all");
  RefuseAll(dev, absl::InvalidArgumentError("ibv_create_qp(dev=x): Invalid argument"));
  DiagnoseOptions o;
  absl::StatusOr<CreateQpDiagnosis> d =
      DiagnoseCreateQp(dev, info, {QpType::kRc, {.max_send_wr = 100, .max_send_sge = 2}}, o);
  ASSERT_THAT(d.status(), IsOk());
  EXPECT_THAT(Joined(*d), HasSubstr("no single field explains the refusal"));
  EXPECT_THAT(Joined(*d), HasSubstr("no max_send_wr from 1 up is accepted"));
  EXPECT_LE(dev.create_qp.calls(), 6);

  // A budget of 2 creates stops the search and says so.
  DeviceView v = Profile("mlx5_cx6.profile");
  std::unique_ptr<Device> mlx5 = MakeDriverModel(v.devices[0]);
  o.max_creates = 2;
  d = DiagnoseCreateQp(*mlx5, v.devices[0],
                       {QpType::kRc, {.max_send_wr = 8192, .max_recv_wr = 1, .max_send_sge = 16,
                                      .max_recv_sge = 1}},
                       o);
  ASSERT_THAT(d.status(), IsOk());
  EXPECT_THAT(Joined(*d), HasSubstr("search stopped"));
}

TEST(DiagnoseCreateQp, NonCapFailureIsReturned) {
  DeviceInfo info;
  testing::FakeDevice dev("refuses all");
  RefuseAll(dev, absl::PermissionDeniedError("ibv_create_qp(dev=x): Operation not permitted"));
  EXPECT_THAT(DiagnoseCreateQp(dev, info, {QpType::kRc, {.max_send_wr = 1}}).status(),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("not permitted")));
}

TEST(LargestExactRequest, FromTheModelNotHardCoded) {
  DeviceView rxe = Profile("rxe_mtu9000.profile");
  std::unique_ptr<Device> r = MakeDriverModel(rxe.devices[0]);
  struct Row {
    uint32_t asked, want;
  } rows[] = {{1024, 1023}, {256, 255}, {255, 255}, {100, 63}, {1, 1}};
  for (const Row& row : rows) {
    EXPECT_EQ(LargestExactRequest(*r, {QpType::kRc, {.max_send_wr = row.asked, .max_send_sge = 1}},
                                  QpField::kMaxSendWr),
              row.want)
        << row.asked;
  }
  DeviceView mlx5 = Profile("mlx5_cx6.profile");
  std::unique_ptr<Device> m = MakeDriverModel(mlx5.devices[0]);
  // 320 B WQEs: 4096 x 320 rounds up to 2 MiB (6553 WRs); 3276 x 320 fits 1 MiB.
  EXPECT_EQ(LargestExactRequest(*m, {QpType::kRc, {.max_send_wr = 4096, .max_recv_wr = 4096,
                                                   .max_send_sge = 8, .max_recv_sge = 1}},
                                QpField::kMaxSendWr),
            3276u);
}

}  // namespace
}  // namespace rdmacheck
