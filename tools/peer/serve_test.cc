// `rdmacheck serve` with many clients at once, and with clients that abuse
// it: idle, slow, garbage, huge frames (loopback only).
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/peer/peer_mode.h"
#include "util/clock.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

// ServeClients on loopback in a thread, until the test ends.
struct Server {
  explicit Server(ServeLimits limits) {
    absl::StatusOr<PeerListener> l = PeerListener::Listen("127.0.0.1", 0);
    EXPECT_TRUE(l.ok());
    port = l->port();
    served = *PeerDeviceView(FixtureProfile("rxe_mtu9000.profile"), "rxe1");
    thread = std::thread([this, limits, l = std::make_shared<PeerListener>(*std::move(l))] {
      stats = ServeClients(*l, served, "0.1.0", 5, limits, stop, log);
    });
  }
  ~Server() { Stop(); }
  void Stop() {
    stop.store(true);
    if (thread.joinable()) thread.join();
  }
  std::string addr() const { return absl::StrCat("127.0.0.1:", port); }
  int port = 0;
  DeviceView served;
  std::atomic<bool> stop{false};
  std::ostringstream log;
  ServeStats stats;
  std::thread thread;
};

// A connection to the server that sends `bytes` (maybe none) and no more.
PeerChannel Raw(int port, const std::string& bytes = "") {
  absl::StatusOr<PeerChannel> c = PeerChannel::Connect("127.0.0.1", port, 5);
  EXPECT_TRUE(c.ok()) << c.status();
  if (!bytes.empty()) (void)!send(c->fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  return *std::move(c);
}

DeviceView Local() { return *PeerDeviceView(FixtureProfile("rxe_mtu9000.profile"), "rxe0"); }

TEST(ServeClients, ClientsAreServedAtOnceUpToTheBoundThenRefusedBusy) {
  Server srv(ServeLimits{3, 16, 2});
  std::vector<PeerClient> held;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<PeerClient> c = PeerClient::Open(srv.addr(), Local(), "0.1.0");
    ASSERT_OK(c.status());
    held.push_back(*std::move(c));
  }
  EXPECT_THAT(PeerClient::Open(srv.addr(), Local(), "0.1.0"), StatusIs(absl::StatusCode::kAborted, HasSubstr("busy")));
  held.pop_back();  // BYE: a session ends, and its place is free again
  for (int i = 0; i < 50 && !PeerClient::Open(srv.addr(), Local(), "0.1.0").ok(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  held.clear();
  srv.Stop();
  EXPECT_EQ(srv.stats.sessions, 4);
  EXPECT_GE(srv.stats.refused_busy, 1);
  EXPECT_EQ(srv.stats.failed, 0);
  EXPECT_THAT(srv.log.str(), HasSubstr("refused, busy (3 sessions being served)"));
}

TEST(ServeClients, AbusersHoldingConnectionsDoNotKeepAWellFormedClientOut) {
  Server srv(ServeLimits{8, 32, 3});
  std::vector<PeerChannel> fds;
  for (int i = 0; i < 60; ++i) fds.push_back(Raw(srv.port));                         // idle
  for (int i = 0; i < 5; ++i) fds.push_back(Raw(srv.port, "rdmacheck-pe"));          // a hello, slowly
  for (int i = 0; i < 5; ++i) fds.push_back(Raw(srv.port, "GARBAGE_PAYLOAD_XYZ\n"));  // not the protocol
  for (int i = 0; i < 3; ++i) fds.push_back(Raw(srv.port, "rdmacheck-peer 1 0.1.0\nPROFILE 99999999999\n"));
  const double t0 = MonotonicSeconds();
  {
    ASSERT_OK_AND_ASSIGN(PeerClient c, PeerClient::Open(srv.addr(), Local(), "0.1.0"));
    ASSERT_OK(c.ExchangeVerdicts({"PASS peer-match ok"}).status());
  }
  const double took = MonotonicSeconds() - t0;
  EXPECT_LT(took, 2.0) << "a well-formed client waited behind the abusers";
  fds.clear();
  srv.Stop();
  const std::string log = srv.log.str();
  EXPECT_GE(srv.stats.sessions, 1);
  EXPECT_LE(srv.stats.peak_connections, 33);  // the bound, and the one being made room for
  EXPECT_GE(srv.stats.evicted, 1);
  EXPECT_THAT(log, Not(HasSubstr("GARBAGE_PAYLOAD")));
  EXPECT_THAT(log, HasSubstr("not rdmacheck's protocol (its first line is not a hello)"));
  EXPECT_THAT(log, HasSubstr("closed before its hello to make room (32 connections held)"));
  EXPECT_THAT(log, HasSubstr("bytes > the limit"));
  // One line per connection that was refused or failed, plus the good session's.
  const int bad = srv.stats.bad_hello + srv.stats.evicted + srv.stats.failed + srv.stats.refused_busy;
  EXPECT_GE(bad, 60);
}

TEST(ServeClients, AClientsThousandsOfVerdictsAreCountedNotEchoed) {
  Server srv(ServeLimits{});
  std::vector<std::string> lines;
  for (int i = 0; i < 10000; ++i) lines.push_back(absl::StrCat(i % 1000 == 0 ? "FAIL" : "PASS", " check-", i, " ..."));
  {
    ASSERT_OK_AND_ASSIGN(PeerClient c, PeerClient::Open(srv.addr(), Local(), "0.1.0"));
    ASSERT_OK(c.ExchangeVerdicts(lines).status());
  }
  srv.Stop();
  const std::string log = srv.log.str();
  EXPECT_THAT(log, HasSubstr("10000 verdicts, 10 not PASS or SKIP"));
  EXPECT_THAT(log, HasSubstr("verdict: FAIL check-0 ..."));
  EXPECT_THAT(log, HasSubstr("5 more not shown"));
  EXPECT_LT(std::count(log.begin(), log.end(), '\n'), 20);
}

// An ostream buffer that, like a block-buffered file, shows what was written
// only when it is flushed.
class ShownOnFlush : public std::stringbuf {
 public:
  std::string shown() {
    std::lock_guard<std::mutex> lock(mu_);
    return shown_;
  }

 protected:
  int sync() override {
    std::lock_guard<std::mutex> lock(mu_);
    shown_ += str();
    str("");
    return 0;
  }

 private:
  std::mutex mu_;
  std::string shown_;
};

TEST(RunServeCommand, OnceShowsEachSessionLineWhileTheClientIsStillConnected) {
  ShownOnFlush buf;
  std::ostream out(&buf);
  std::ostringstream err;
  ServeOptions opts;
  opts.bind = "127.0.0.1";
  opts.port = 0;
  opts.once = true;
  opts.wait_s = 10;
  opts.device = "rxe1";
  auto gather = [](const std::optional<std::string>&) -> absl::StatusOr<DeviceView> {
    return FixtureProfile("rxe_mtu9000.profile");
  };
  int code = -1;
  std::thread serve([&] { code = RunServeCommand(opts, out, err, gather, "0.1.0"); });
  int port = 0;
  for (int i = 0; i < 500 && port == 0; ++i) {
    const std::string s = buf.shown();
    const size_t at = s.find("127.0.0.1:");
    if (at != std::string::npos) port = std::atoi(s.c_str() + at + 10);
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_NE(port, 0) << "no listening line: " << buf.shown() << err.str();
  {
    ASSERT_OK_AND_ASSIGN(PeerClient c, PeerClient::Open(absl::StrCat("127.0.0.1:", port), Local(), "0.1.0"));
    bool seen = false;
    for (int i = 0; i < 200 && !seen; ++i) {
      seen = buf.shown().find("rdmacheck 0.1.0, device rxe0\n") != std::string::npos;
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(seen) << "the session's first line was held back while it ran: " << buf.shown();
  }
  serve.join();
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_THAT(buf.shown(), HasSubstr("done, 0 probes and 0 bench sessions served"));
}

}  // namespace
}  // namespace rdmacheck
