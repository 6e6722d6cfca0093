#include "acts/probe/completion_wait.h"

#include <deque>

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

// A fake CQ: each poll returns the next scripted batch (empty when the script
// runs out) and advances a fake clock by `tick` seconds.
struct FakeCq {
  std::deque<std::vector<ibv_wc>> script;
  double clock = 100.0;
  double tick = 0.001;
  int polls = 0;
  CompletionPoller Poller() {
    CompletionPoller p;
    p.poll = [this](int n, ibv_wc* out) {
      ++polls;
      clock += tick;
      if (script.empty()) return 0;
      std::vector<ibv_wc> b = script.front();
      script.pop_front();
      int k = 0;
      for (; k < n && k < static_cast<int>(b.size()); ++k) out[k] = b[k];
      return k;
    };
    p.now = [this] { return clock; };
    p.pause = [] {};
    return p;
  }
};

ibv_wc Wc(uint64_t id, ibv_wc_status st) {
  ibv_wc w{};
  w.wr_id = id;
  w.status = st;
  return w;
}

TEST(WaitForCompletionsTest, GetsWhatArrives) {
  FakeCq cq;
  cq.script = {{}, {}, {Wc(7, IBV_WC_SUCCESS)}};
  WaitOutcome w = WaitForCompletions(cq.Poller(), 1, 2.0, nullptr);
  EXPECT_EQ(w.end, WaitEnd::kGot);
  ASSERT_EQ(w.wcs.size(), 1u);
  EXPECT_EQ(w.wcs[0].wr_id, 7u);
  EXPECT_NEAR(w.seconds, 0.003, 1e-9);
}

TEST(WaitForCompletionsTest, EndsAtTheDeadlineNotBefore) {
  FakeCq cq;
  cq.tick = 0.01;
  WaitOutcome w = WaitForCompletions(cq.Poller(), 1, 2.0, nullptr);
  EXPECT_EQ(w.end, WaitEnd::kDeadline);
  EXPECT_TRUE(w.wcs.empty());
  EXPECT_GE(w.seconds, 2.0);
  EXPECT_LT(w.seconds, 2.0 + 0.02);
  EXPECT_NEAR(cq.polls, 200, 2);
}

TEST(WaitForCompletionsTest, AnErrorCompletionEndsTheWaitEarly) {
  FakeCq cq;
  cq.script = {{Wc(1, IBV_WC_RETRY_EXC_ERR)}};
  WaitOutcome w = WaitForCompletions(cq.Poller(), 3, 2.0, nullptr);
  EXPECT_EQ(w.end, WaitEnd::kGot);
  ASSERT_EQ(w.wcs.size(), 1u);
  EXPECT_EQ(w.wcs[0].status, IBV_WC_RETRY_EXC_ERR);
}

TEST(WaitForCompletionsTest, CollectsSeveral) {
  FakeCq cq;
  cq.script = {{Wc(1, IBV_WC_SUCCESS)}, {}, {Wc(2, IBV_WC_SUCCESS), Wc(3, IBV_WC_SUCCESS)}};
  WaitOutcome w = WaitForCompletions(cq.Poller(), 3, 2.0, nullptr);
  EXPECT_EQ(w.end, WaitEnd::kGot);
  EXPECT_EQ(w.wcs.size(), 3u);
}

TEST(WaitForCompletionsTest, StopFlagEndsTheWait) {
  FakeCq cq;
  std::atomic<bool> stop{false};
  CompletionPoller p = cq.Poller();
  int pauses = 0;
  p.pause = [&] {
    if (++pauses == 5) stop.store(true);
  };
  WaitOutcome w = WaitForCompletions(p, 1, 2.0, &stop);
  EXPECT_EQ(w.end, WaitEnd::kStopped);
  EXPECT_LT(w.seconds, 0.01);
}

TEST(WaitForCompletionsTest, PollErrorIsReported) {
  CompletionPoller p;
  p.poll = [](int, ibv_wc*) { return -22; };
  WaitOutcome w = WaitForCompletions(p, 1, 2.0, nullptr);
  EXPECT_EQ(w.end, WaitEnd::kPollError);
  EXPECT_EQ(w.poll_rc, -22);
}

// The outcome of a WR's send-side completion, one row per way the wait ends.
TEST(RecordSendCompletion, EveryWayTheWaitEnds) {
  ibv_wc ok{};
  ok.status = IBV_WC_SUCCESS;
  ibv_wc retry{};
  retry.status = IBV_WC_RETRY_EXC_ERR;
  retry.vendor_err = 0x81;
  struct Row {
    const char* name;
    WaitOutcome ws;
    bool completed, interrupted;
    WrState state;
    const char* status_text;
  } rows[] = {
      {"success", {WaitEnd::kGot, {ok}, 0.25, 0}, true, false, WrState::kCompleted, ""},
      {"error completion", {WaitEnd::kGot, {retry}, 0.47, 0}, false, false, WrState::kError,
       "transport retry counter exceeded"},
      {"deadline", {WaitEnd::kDeadline, {}, 2.0, 0}, false, false, WrState::kNoCompletion, ""},
      {"ctrl-c", {WaitEnd::kStopped, {}, 0.1, 0}, false, true, WrState::kNoCompletion, ""},
      {"poll error", {WaitEnd::kPollError, {}, 0.0, -22}, false, false, WrState::kError,
       "ibv_poll_cq returned -22"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    WrOutcome w;
    bool interrupted = false;
    EXPECT_EQ(RecordSendCompletion(row.ws, &w, &interrupted), row.completed);
    EXPECT_EQ(interrupted, row.interrupted);
    EXPECT_EQ(w.state, row.state);
    EXPECT_EQ(w.seconds, row.ws.seconds);
    EXPECT_EQ(w.wc_status_text, row.status_text);
  }
  WrOutcome w;
  bool interrupted = false;
  RecordSendCompletion({WaitEnd::kGot, {retry}, 0.47, 0}, &w, &interrupted);
  EXPECT_EQ(w.wc_status, IBV_WC_RETRY_EXC_ERR);
  EXPECT_EQ(w.vendor_err, 0x81u);
}

ibv_wc Wc(ibv_wc_status st, uint32_t vendor_err = 0) {
  ibv_wc wc{};
  wc.status = st;
  wc.vendor_err = vendor_err;
  return wc;
}

TEST(RecvCompletion, WhatTheWaitSaysAndWhatTheWrGets) {
  using S = RecvCompletion::State;
  struct Row {
    const char* name;
    WaitOutcome wait;
    S state;
    std::optional<int> wc_status;
    const char* text;
    WrState wr_state;  // after a successful send
    bool recv_side;
  } rows[] = {
      {"received", {WaitEnd::kGot, {Wc(IBV_WC_SUCCESS)}, 0.1, 0}, S::kCompleted, std::nullopt, "",
       WrState::kCompleted, false},
      {"nothing by the deadline", {WaitEnd::kDeadline, {}, 2, 0}, S::kNone, std::nullopt, "", WrState::kNoCompletion,
       true},
      {"error status", {WaitEnd::kGot, {Wc(IBV_WC_LOC_LEN_ERR, 9)}, 0.1, 0}, S::kError, IBV_WC_LOC_LEN_ERR,
       "local length error", WrState::kError, true},
      {"poll failed", {WaitEnd::kPollError, {}, 0.1, -22}, S::kError, std::nullopt, "ibv_poll_cq returned -22",
       WrState::kError, true},
  };
  for (const Row& row : rows) {
    RecvCompletion rc = RecvCompletionOf(row.wait);
    EXPECT_EQ(rc.state, row.state) << row.name;
    EXPECT_EQ(rc.wc_status, row.wc_status) << row.name;
    EXPECT_EQ(rc.wc_status_text, row.text) << row.name;
    WrOutcome w;
    w.state = WrState::kCompleted;
    RecordRecvCompletion(rc, &w);
    EXPECT_EQ(w.state, row.wr_state) << row.name;
    EXPECT_EQ(w.recv_side, row.recv_side) << row.name;
    EXPECT_EQ(w.wc_status, row.wc_status.value_or(0)) << row.name;
    EXPECT_EQ(w.vendor_err, row.state == S::kError && row.wc_status ? 9u : 0u) << row.name;
  }
}

}  // namespace
}  // namespace rdmacheck
