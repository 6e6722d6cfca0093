// Hermetic: what the probe refuses before touching a device.
#include "acts/probe/probe.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::IsOk;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

ProbeRequest Good() {
  ProbeRequest r;
  r.device = "rxe0";
  r.peer_device = "rxe1";
  r.wrs = {{ProbeOp::kSend, 64}};
  return r;
}

TEST(ValidateProbeRequestTest, Table) {
  struct Row {
    const char* name;
    void (*edit)(ProbeRequest&);
    const char* err;  // nullptr: valid
  } rows[] = {
      {"good", [](ProbeRequest&) {}, nullptr},
      {"retry 7", [](ProbeRequest& r) { r.retry_cnt = 7; }, "retry_cnt=7 must be 0..6 (7 retries forever on rxe"},
      {"rnr 7", [](ProbeRequest& r) { r.rnr_retry = 7; }, "rnr_retry=7"},
      {"timeout 0", [](ProbeRequest& r) { r.timeout = 0; }, "timeout=0 must be 1..31"},
      {"deadline 0", [](ProbeRequest& r) { r.deadline_s = 0; }, "deadline_s=0"},
      {"no wrs", [](ProbeRequest& r) { r.wrs.clear(); }, "no work requests"},
      {"no device", [](ProbeRequest& r) { r.device.clear(); }, "no device"},
  };
  for (const Row& row : rows) {
    ProbeRequest r = Good();
    row.edit(r);
    if (row.err == nullptr) {
      EXPECT_THAT(ValidateProbeRequest(r), IsOk()) << row.name;
    } else {
      EXPECT_THAT(ValidateProbeRequest(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.err)))
          << row.name;
    }
  }
}

TEST(RunTrafficProbeTest, RefusesRetryForeverBeforeOpeningAnything) {
  ProbeRequest r = Good();
  r.retry_cnt = 7;
  r.device = "no-such-device";
  EXPECT_THAT(RunTrafficProbe(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("retry_cnt=7")));
}

// The stop handler is installed once for the process (util/stop_flag.h) and
// stays: outside a guard it ends the process, as the death test below shows.
TEST(SigintGuardTest, FlagDownAndTheStopHandlerInstalledOnce) {
  {
    SigintGuard g;
    EXPECT_FALSE(ProbeInterruptFlag().load());
    struct sigaction now {};
    sigaction(SIGINT, nullptr, &now);
    EXPECT_NE(now.sa_handler, SIG_DFL);
    EXPECT_NE(now.sa_handler, SIG_IGN);
  }
  struct sigaction inside {};
  sigaction(SIGINT, nullptr, &inside);
  { SigintGuard again; }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, inside.sa_handler);
  EXPECT_EQ(PendingStopSignal(), 0);
}

TEST(SigintGuardDeathTest, CtrlCOutsideAGuardEndsTheProcessAtOnce) {
  EXPECT_EXIT(
      {
        { SigintGuard g; }
        raise(SIGINT);
        std::_Exit(0);  // not reached
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST(SigintGuardDeathTest, CtrlCDuringAProbeEndsTheProcessWithSigint) {
  EXPECT_EXIT(
      {
        {
          SigintGuard g;
          raise(SIGINT);  // the handler only raises the flag
          if (!ProbeInterruptFlag().load()) std::_Exit(3);
        }
        std::_Exit(0);  // not reached: the guard re-raised SIGINT
      },
      ::testing::KilledBySignal(SIGINT), "");
}

}  // namespace
}  // namespace rdmacheck
