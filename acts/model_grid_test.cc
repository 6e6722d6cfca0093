#include "acts/model_grid.h"

#include <set>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "acts/driver_model.h"
#include "acts/testing/fake_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

DeviceInfo Rxe(uint64_t max_qp_wr) {
  DeviceInfo d;
  d.name = "rxe0";
  d.driver = "rxe";
  d.attrs = {{"max_qp_wr", max_qp_wr}, {"max_sge", 32}, {"max_cqe", 32767}};
  return d;
}

// The rxe model with three deliberate deviations, each on a plain predicate.
void SkewRxe(testing::FakeDevice& fake, const DeviceInfo& d) {
  fake.FallBackTo(MakeDriverModel(d));
  Device* model = fake.fallback();
  fake.create_qp.With([model](const QpRequest& req) -> absl::StatusOr<QpCaps> {
    if (req.caps.max_send_wr == 100) {  // grants one more
      absl::StatusOr<QpCaps> g = model->CreateQp(req);
      if (g.ok()) g->max_send_wr += 1;
      return g;
    }
    if (req.caps.max_send_sge == 33) return req.caps;  // accepts over max_sge
    if (req.caps.max_inline_data == 17) {              // ENOMEM, not a grant
      return absl::ResourceExhaustedError("ibv_create_qp: Cannot allocate memory");
    }
    if (req.caps.max_inline_data == 513) {  // EINVAL with another message
      return absl::InvalidArgumentError("ibv_create_qp: Invalid argument");
    }
    return model->CreateQp(req);
  });
}

TEST(MakeQpGrid, CoversTheRangeWithoutDuplicates) {
  GridLimits lim;
  lim.max_qp_wr = 16384;
  lim.max_sge = 32;
  lim.max_inline = 400;
  std::vector<QpRequest> grid = MakeQpGrid(lim);
  EXPECT_GE(grid.size(), 200u);
  std::set<std::string> keys;
  bool send_over = false, recv_over = false, ssge_over = false, rsge_over = false,
       inl_over = false, inl_at = false, ud = false, uc = false, srq = false,
       depth_one = false, depth_max = false;
  for (const QpRequest& r : grid) {
    EXPECT_TRUE(keys.insert(DescribeRequest(r)).second) << DescribeRequest(r);
    send_over |= r.caps.max_send_wr == 16385;
    recv_over |= r.caps.max_recv_wr == 16385 && !r.with_srq;
    ssge_over |= r.caps.max_send_sge == 33;
    rsge_over |= r.caps.max_recv_sge == 33;
    inl_over |= r.caps.max_inline_data == 401;
    inl_at |= r.caps.max_inline_data == 400;
    ud |= r.type == QpType::kUd;
    uc |= r.type == QpType::kUc;
    srq |= r.with_srq;
    depth_one |= r.caps.max_send_wr == 1;
    depth_max |= r.caps.max_send_wr == 16384;
  }
  EXPECT_TRUE(send_over && recv_over && ssge_over && rsge_over && inl_over && inl_at);
  EXPECT_TRUE(ud && uc && srq && depth_one && depth_max);
}

TEST(GridLimitsFor, ReadsAttrsAndDriverDefaults) {
  GridLimits l = GridLimitsFor(Rxe(1048576));
  EXPECT_EQ(l.max_qp_wr, 1048576u);
  EXPECT_EQ(l.max_sge, 32u);
  EXPECT_EQ(l.max_inline, 512u);
  DeviceInfo m;
  m.driver = "mlx4";
  EXPECT_EQ(GridLimitsFor(m).max_inline, 1024u);
}

TEST(CompareOnGrid, ModelAgreesWithItself) {
  auto a = MakeDriverModel(Rxe(16384));
  auto b = MakeDriverModel(Rxe(16384));
  std::vector<QpRequest> grid = MakeQpGrid(GridLimitsFor(Rxe(16384)));
  GridResult r = CompareOnGrid(*a, *b, grid);
  EXPECT_EQ(r.total, static_cast<int>(grid.size()));
  EXPECT_EQ(r.agree, r.total);
  EXPECT_TRUE(r.disagreements.empty());
}

TEST(CompareOnGrid, CountsEachDeviation) {
  const DeviceInfo dev = Rxe(16384);
  auto model = MakeDriverModel(dev);
  testing::FakeDevice real("skewed rxe");
  SkewRxe(real, dev);
  std::vector<QpRequest> grid = MakeQpGrid(GridLimitsFor(dev));
  // The deviations that must show: send depth 100 when the model grants it,
  // 33 send SGEs (the model says EINVAL, the fake grants), inline 17 (grant
  // vs ENOMEM). Inline 513 is EINVAL on both sides: agreement.
  int want = 0;
  for (const QpRequest& r : grid) {
    if (r.caps.max_send_wr == 100) {
      want += model->CreateQp(r).ok() ? 1 : 0;
    } else if (r.caps.max_send_sge == 33 || r.caps.max_inline_data == 17) {
      ++want;
    }
  }
  // By construction of the grid: 100 is the send depth of 19 requests, 18
  // within limits (one asks 33 receive SGEs); 33 send SGEs appear in 8
  // requests (none with send depth 100); inline 17 on the three QP types.
  EXPECT_EQ(want, 18 + 8 + 3);
  GridResult r = CompareOnGrid(*model, real, grid);
  EXPECT_EQ(r.total, static_cast<int>(grid.size()));
  EXPECT_EQ(static_cast<int>(r.disagreements.size()), want);
  EXPECT_EQ(r.agree, r.total - want);
  bool saw_enomem = false, saw_plus_one = false;
  for (const GridDisagreement& d : r.disagreements) {
    if (d.request.caps.max_inline_data == 17) {
      saw_enomem = true;
      EXPECT_THAT(d.text, HasSubstr("real: error RESOURCE_EXHAUSTED"));
      EXPECT_THAT(d.text, HasSubstr("model: granted max_send_wr=31"));
    }
    if (d.request.caps.max_send_wr == 100 && d.request.type == QpType::kRc &&
        d.request.caps.max_recv_wr == 1) {
      saw_plus_one = true;
      EXPECT_THAT(d.text, HasSubstr("DISAGREE RC swr=100 rwr=1 ssge=1 rsge=1 inl=0 srq=no"));
      EXPECT_THAT(d.text, HasSubstr("model: granted max_send_wr=127"));
      EXPECT_THAT(d.text, HasSubstr("real: granted max_send_wr=128"));
    }
  }
  EXPECT_TRUE(saw_enomem);
  EXPECT_TRUE(saw_plus_one);
}

}  // namespace
}  // namespace rdmacheck
