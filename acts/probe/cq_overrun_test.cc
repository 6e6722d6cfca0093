#include "acts/probe/cq_overrun.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::IsOk;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

CqOverrunRequest Good() {
  CqOverrunRequest r;
  r.device = "rxe0";
  return r;
}

TEST(CqOverrunProbe, RefusesRequestsItCannotBound) {
  struct Row {
    void (*edit)(CqOverrunRequest*);
    const char* message;
  };
  const Row rows[] = {
      {[](CqOverrunRequest* r) { r->device.clear(); }, "no device"},
      {[](CqOverrunRequest* r) { r->cqe = 0; }, "cqe=0 must be 1..4096"},
      {[](CqOverrunRequest* r) { r->cqe = 5000; }, "cqe=5000 must be 1..4096"},
      {[](CqOverrunRequest* r) { r->burst = 5000; }, "burst=5000 must be 0..4096"},
      {[](CqOverrunRequest* r) { r->deadline_s = 0; }, "deadline_s=0 must be in (0, 60]"},
      {[](CqOverrunRequest* r) { r->deadline_s = 61; }, "deadline_s=61 must be in (0, 60]"},
  };
  for (const Row& row : rows) {
    CqOverrunRequest r = Good();
    row.edit(&r);
    EXPECT_THAT(ValidateCqOverrunRequest(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.message)));
    // The probe refuses it before opening anything.
    EXPECT_THAT(RunCqOverrunProbe(r).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.message)));
  }
  EXPECT_THAT(ValidateCqOverrunRequest(Good()), IsOk());
}

TEST(CqOverrunProbe, DefaultBurstIsMoreThanTheGrantedCqHolds) {
  CqOverrunRequest r = Good();
  EXPECT_EQ(CqOverrunBurst(r, 7), 16u);  // rxe: cqe 4 -> 7
  EXPECT_EQ(CqOverrunBurst(r, 4), 10u);
  r.burst = 12;
  EXPECT_EQ(CqOverrunBurst(r, 7), 12u);
}

TEST(CqOverrunProbe, LostIsPostedLessPolled) {
  CqOverrunResult r;
  r.posted = 16;
  r.polled = 7;
  EXPECT_EQ(r.Lost(), 9);
  r.polled = 16;
  EXPECT_EQ(r.Lost(), 0);
}

TEST(CqOverrunProbe, MissingDeviceIsNotFound) {
  CqOverrunRequest r = Good();
  r.device = "no_such_dev9";
  EXPECT_THAT(RunCqOverrunProbe(r).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no_such_dev9")));
}

}  // namespace
}  // namespace rdmacheck
