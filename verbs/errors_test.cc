#include "verbs/errors.h"

#include <cerrno>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck::verbs {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

struct ErrnoRow {
  int err;
  absl::StatusCode code;
};

TEST(ErrnoToCodeTest, MapsEachErrnoTheHouseWay) {
  static const ErrnoRow kRows[] = {
      {EINVAL, absl::StatusCode::kInvalidArgument},
      {ENOMEM, absl::StatusCode::kResourceExhausted},
      {ENOSPC, absl::StatusCode::kResourceExhausted},
      {EOPNOTSUPP, absl::StatusCode::kUnimplemented},
      {ENOSYS, absl::StatusCode::kUnimplemented},
      {ENODEV, absl::StatusCode::kNotFound},
      {ENOENT, absl::StatusCode::kNotFound},
      {EPERM, absl::StatusCode::kPermissionDenied},
      {EACCES, absl::StatusCode::kPermissionDenied},
      {ETIMEDOUT, absl::StatusCode::kDeadlineExceeded},
      {EBUSY, absl::StatusCode::kFailedPrecondition},
      {EAGAIN, absl::StatusCode::kUnavailable},
      {EIO, absl::StatusCode::kUnknown},
  };
  for (const ErrnoRow& row : kRows) {
    EXPECT_EQ(ErrnoToCode(row.err), row.code) << "errno " << row.err;
  }
}

TEST(VerbsErrorTest, NamesTheCallAndStrerror) {
  EXPECT_THAT(VerbsError("ibv_alloc_pd(dev=rxe0)", ENOMEM),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "ibv_alloc_pd(dev=rxe0): Cannot allocate memory"));
  EXPECT_THAT(VerbsError("ibv_query_port(dev=rxe0 port=1)", EINVAL),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "ibv_query_port(dev=rxe0 port=1): Invalid argument"));
}

TEST(VerbsErrorTest, ErrnoNotSetIsUnknownNotOk) {
  EXPECT_THAT(VerbsError("ibv_create_cq(dev=x cqe=1 channel=no comp_vector=0)", 0),
              StatusIs(absl::StatusCode::kUnknown, HasSubstr("errno not set")));
}

TEST(ErrnoTextTest, UnknownErrnoStillSaysSomething) {
  EXPECT_EQ(ErrnoText(EINVAL), "Invalid argument");
  EXPECT_THAT(ErrnoText(99999), HasSubstr("99999"));
}

TEST(CallTextTest, CreateQpCallListsEveryCap) {
  ibv_qp_cap cap{};
  cap.max_send_wr = 65536;
  cap.max_recv_wr = 1;
  cap.max_send_sge = 16;
  cap.max_recv_sge = 1;
  cap.max_inline_data = 0;
  EXPECT_EQ(CreateQpCall("rxe0", IBV_QPT_RC, cap),
            "ibv_create_qp(dev=rxe0 type=RC max_send_wr=65536 max_recv_wr=1 "
            "max_send_sge=16 max_recv_sge=1 max_inline_data=0)");
  EXPECT_EQ(VerbsError(CreateQpCall("rxe0", IBV_QPT_RC, cap), EINVAL).message(),
            "ibv_create_qp(dev=rxe0 type=RC max_send_wr=65536 max_recv_wr=1 "
            "max_send_sge=16 max_recv_sge=1 max_inline_data=0): Invalid argument");
  EXPECT_THAT(CreateQpCall("mlx5_0", IBV_QPT_UD, cap, /*with_srq=*/true),
              HasSubstr("type=UD max_send_wr=65536"));
  EXPECT_THAT(CreateQpCall("mlx5_0", IBV_QPT_UD, cap, /*with_srq=*/true),
              HasSubstr("max_inline_data=0 srq=yes)"));
}

TEST(CallTextTest, CreateCqAndRegMr) {
  EXPECT_EQ(CreateCqCall("rxe0", 4096, true, 2),
            "ibv_create_cq(dev=rxe0 cqe=4096 channel=yes comp_vector=2)");
  int x = 0;
  EXPECT_THAT(RegMrCall("rxe0", &x, 4096, 0x7),
              ::testing::MatchesRegex("ibv_reg_mr\\(dev=rxe0 addr=0x[0-9a-f]+ "
                                      "length=4096 access=0x7\\)"));
}

TEST(QpTypeTextTest, Names) {
  EXPECT_EQ(QpTypeText(IBV_QPT_RC), "RC");
  EXPECT_EQ(QpTypeText(IBV_QPT_UC), "UC");
  EXPECT_EQ(QpTypeText(IBV_QPT_UD), "UD");
  EXPECT_EQ(QpTypeText(IBV_QPT_RAW_PACKET), "RAW_PACKET");
}

}  // namespace
}  // namespace rdmacheck::verbs
