#include "tools/peer/channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

// Two connected ends over a socketpair (the channel reads/writes with
// poll + MSG_DONTWAIT, so a stream socketpair behaves like TCP here).
struct Pair {
  Pair(double io = 1) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
    a.emplace(sv[0], "a", io);
    raw = sv[1];
  }
  std::optional<PeerChannel> a;
  int raw = -1;  // the other end, written by hand
  ~Pair() { close(raw); }
  void Put(const std::string& s) { ASSERT_EQ(write(raw, s.data(), s.size()), static_cast<ssize_t>(s.size())); }
  std::string Take() {
    char buf[4096];
    ssize_t n = read(raw, buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  }
};

TEST(PeerChannel, FramesRoundTrip) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  PeerChannel x(sv[0], "x", 1), y(sv[1], "y", 1);
  std::string big(300000, 'z');  // more than one socket buffer: partial writes
  std::thread t([&] { ASSERT_OK(x.Send("PROFILE", big)); ASSERT_OK(x.Send("BYE", "")); });
  ASSERT_OK_AND_ASSIGN(PeerFrame f, y.Receive("PROFILE"));
  EXPECT_EQ(f.payload.size(), big.size());
  EXPECT_EQ(f.payload, big);
  ASSERT_OK_AND_ASSIGN(PeerFrame g, y.Receive());
  EXPECT_EQ(g.type, "BYE");
  EXPECT_EQ(g.payload, "");
  t.join();
}

TEST(PeerChannel, WireFormatIsHeaderLineThenBytes) {
  Pair p;
  ASSERT_OK(p.a->Send("WR", "op SEND\n"));
  EXPECT_EQ(p.Take(), "WR 8\nop SEND\n");
}

TEST(PeerChannel, HandshakeAcceptsSameVersion) {
  Pair p;
  p.Put("rdmacheck-peer 1 0.1.0\n");
  ASSERT_OK(p.a->Handshake("0.1.0"));
  EXPECT_EQ(p.a->peer_version(), "0.1.0");
  EXPECT_EQ(p.Take(), "rdmacheck-peer 1 0.1.0\n");
}

struct HelloCase {
  const char* line;
  absl::StatusCode code;
  const char* message;
};

TEST(PeerChannel, HandshakeRefusesOtherVersionsAndStrangers) {
  const HelloCase cases[] = {
      {"rdmacheck-peer 1 0.2.0\n", absl::StatusCode::kFailedPrecondition,
       "runs rdmacheck 0.2.0 (peer protocol 1), this is rdmacheck 0.1.0 (peer protocol 1): run the same"},
      {"rdmacheck-peer 2 0.1.0\n", absl::StatusCode::kFailedPrecondition, "(peer protocol 2)"},
      {"SSH-2.0-OpenSSH_9.2\n", absl::StatusCode::kInvalidArgument, "got \"SSH-2.0-OpenSSH_9.2\""},
      {"rdmacheck-peer 1\n", absl::StatusCode::kInvalidArgument, "expected \"rdmacheck-peer 1 <version>\""},
      {"rdmacheck-peer 1 0.1", absl::StatusCode::kDataLoss, "hello line truncated"},
  };
  for (const HelloCase& c : cases) {
    Pair p;
    p.Put(c.line);
    if (std::string(c.line).back() != '\n') shutdown(p.raw, SHUT_WR);
    EXPECT_THAT(p.a->Handshake("0.1.0"), StatusIs(c.code, HasSubstr(c.message))) << c.line;
  }
}

TEST(PeerChannel, SilentPeerIsDeadlineExceeded) {
  Pair p(0.2);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_THAT(p.a->Receive(), StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("nothing within 0.2 s")));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(s, 0.19);
  EXPECT_LT(s, 1.0);
  // Half a frame, then silence: still bounded.
  p.Put("PROFILE 100\nabc");
  EXPECT_THAT(p.a->Receive(), StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("peer a")));
}

TEST(PeerChannel, WriterBlockedByFullPeerIsDeadlineExceeded) {
  Pair p(0.2);
  std::string big(8 << 20, 'x');  // over kMaxFrameBytes is refused before writing
  EXPECT_THAT(p.a->Send("PROFILE", big), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("> the limit")));
  std::string fill(3 << 20, 'x');  // nobody reads: the socket buffer fills
  EXPECT_THAT(p.a->Send("PROFILE", fill),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("not taken within 0.2 s")));
}

struct TruncCase {
  const char* bytes;
  absl::StatusCode code;
  const char* message;
};

TEST(PeerChannel, TruncatedAndMalformedFrames) {
  const TruncCase cases[] = {
      {"", absl::StatusCode::kUnavailable, "closed the connection"},
      {"PROF", absl::StatusCode::kDataLoss, "frame header truncated"},
      {"PROFILE 10\nabc", absl::StatusCode::kDataLoss, "frame PROFILE truncated: 3 of 10 bytes"},
      {"profile 3\nabc", absl::StatusCode::kInvalidArgument, "bad frame header \"profile 3\""},
      {"PROFILE x\n", absl::StatusCode::kInvalidArgument, "bad frame header"},
      {"PROFILE 99999999\n", absl::StatusCode::kInvalidArgument, "> the limit"},
      {"ERROR 9\nno device", absl::StatusCode::kAborted, "peer a: no device"},
      {"BYE 0\n", absl::StatusCode::kInvalidArgument, "expected a PROFILE frame, got BYE"},
  };
  for (const TruncCase& c : cases) {
    Pair p;
    p.Put(c.bytes);
    shutdown(p.raw, SHUT_WR);
    EXPECT_THAT(p.a->Receive("PROFILE"), StatusIs(c.code, HasSubstr(c.message))) << c.bytes;
  }
}

TEST(PeerListener, LoopbackConnectAcceptAndHandshake) {
  ASSERT_OK_AND_ASSIGN(PeerListener l, PeerListener::Listen("127.0.0.1", 0));
  ASSERT_GT(l.port(), 0);
  std::thread t([&] {
    absl::StatusOr<PeerChannel> c = PeerChannel::Connect("127.0.0.1", l.port(), 2);
    ASSERT_OK(c.status());
    ASSERT_OK(c->Handshake("0.1.0"));
    ASSERT_OK(c->Send("PROFILE", "rdmacheck-profile 1\n"));
  });
  ASSERT_OK_AND_ASSIGN(PeerChannel s, l.Accept(2, nullptr));
  EXPECT_THAT(s.peer_name(), HasSubstr("127.0.0.1:"));
  ASSERT_OK(s.Handshake("0.1.0"));
  ASSERT_OK_AND_ASSIGN(PeerFrame f, s.Receive("PROFILE"));
  EXPECT_EQ(f.payload, "rdmacheck-profile 1\n");
  t.join();
}

TEST(PeerListener, AcceptHasADeadlineAndAStop) {
  ASSERT_OK_AND_ASSIGN(PeerListener l, PeerListener::Listen("127.0.0.1", 0));
  EXPECT_THAT(l.Accept(0.2, nullptr), StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("no client within 0.2 s")));
  std::atomic<bool> stop{true};
  EXPECT_THAT(l.Accept(5, &stop), StatusIs(absl::StatusCode::kCancelled, HasSubstr("stopped")));
}

TEST(PeerChannel, ConnectRefusedIsUnavailable) {
  int port;
  {
    ASSERT_OK_AND_ASSIGN(PeerListener l, PeerListener::Listen("127.0.0.1", 0));
    port = l.port();
  }  // closed again: nothing listens there now
  EXPECT_THAT(PeerChannel::Connect("127.0.0.1", port, 2),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("is `rdmacheck serve` running there?")));
  EXPECT_THAT(PeerChannel::Connect("peer.example", 1, 2),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a numeric IP address")));
}

struct HostPortCase {
  const char* in;
  const char* host;
  int port;
};

TEST(ParseHostPort, Forms) {
  const HostPortCase ok[] = {
      {"198.18.0.2", "198.18.0.2", kDefaultPeerPort},
      {"198.18.0.2:7000", "198.18.0.2", 7000},
      {"[fe80::1]:7000", "fe80::1", 7000},
      {"fe80::1", "fe80::1", kDefaultPeerPort},
  };
  for (const HostPortCase& c : ok) {
    ASSERT_OK_AND_ASSIGN(auto hp, ParseHostPort(c.in));
    EXPECT_EQ(hp.first, c.host) << c.in;
    EXPECT_EQ(hp.second, c.port) << c.in;
  }
  EXPECT_THAT(ParseHostPort("198.18.0.2:0"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not 1..65535")));
  EXPECT_THAT(ParseHostPort(":7000"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no host")));
  EXPECT_THAT(ParseHostPort("[fe80::1"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no closing ]")));
}

}  // namespace
}  // namespace rdmacheck
