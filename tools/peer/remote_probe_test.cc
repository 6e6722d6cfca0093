// The server half's checks that come before any device is opened, and the
// client half's request checks: hermetic (the verbs path runs in the guest,
// ci/guest/scenarios/41-43).
#include "tools/peer/remote_probe.h"

#include <sys/socket.h>

#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/peer/messages.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

ProbeSetupMsg GoodSetup() {
  ProbeSetupMsg m;
  m.device = "rxe1";
  m.qpn = 17;
  m.gid = "::ffff:198.18.0.1";
  m.mtu = 5;
  m.recv_bytes = 4096;
  return m;
}

struct BadSetup {
  void (*edit)(ProbeSetupMsg&);
  // Then on the payload's text: what a client that is not rdmacheck may send.
  const char* from;
  const char* to;
  const char* served;
  const char* message;
};

TEST(ServePeerProbe, RefusesBadSetupsBeforeTouchingADeviceAndTellsTheClient) {
  const BadSetup cases[] = {
      {[](ProbeSetupMsg& m) { m.retry_cnt = 7; }, "", "", "rxe1", "retry_cnt 7 rnr_retry 3 out of bounds"},
      {[](ProbeSetupMsg& m) { m.rnr_retry = 7; }, "", "", "rxe1", "rnr_retry 7 out of bounds"},
      {[](ProbeSetupMsg& m) { m.timeout = 0; }, "", "", "rxe1", "timeout 0"},
      {[](ProbeSetupMsg& m) { m.recv_bytes = 0; }, "", "", "rxe1", "recv_bytes 0 not in 1..256 MiB"},
      {[](ProbeSetupMsg& m) { m.device = "rxe0"; }, "", "", "rxe1", "this server serves rxe1, not rxe0"},
      {[](ProbeSetupMsg& m) { m.device = ""; }, "", "", "", "no device: start `rdmacheck serve -d DEV`"},
      {[](ProbeSetupMsg&) {}, "qpn 17", "qpn x", "rxe1", "PROBE_SETUP: field 'qpn' = 'x' is not an integer"},
  };
  for (const BadSetup& c : cases) {
    ProbeSetupMsg m = GoodSetup();
    c.edit(m);
    std::string payload = m.Encode();
    if (*c.from != '\0') payload.replace(payload.find(c.from), strlen(c.from), c.to);
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    PeerChannel server(sv[0], "client", 1), client(sv[1], "server", 1);
    absl::Status s = ServePeerProbe(server, PeerFrame{"PROBE_SETUP", payload}, c.served);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message))) << c.message;
    // The client, waiting for PROBE_READY, gets the reason.
    EXPECT_THAT(ReceiveMsg<ProbeReadyMsg>(client), StatusIs(absl::StatusCode::kAborted, HasSubstr(c.message)));
  }
}

TEST(RunPeerProbe, RefusesRequestsThatCouldHang) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  PeerChannel ch(sv[0], "server", 1);
  PeerChannel other(sv[1], "client", 1);
  ProbeRequest req;
  req.device = "rxe0";
  req.wrs = {{ProbeOp::kSend, 64}};
  req.retry_cnt = 7;
  EXPECT_THAT(RunPeerProbe(ch, req), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("7 retries forever")));
  req.retry_cnt = 6;
  req.deadline_s = 0;
  EXPECT_THAT(RunPeerProbe(ch, req), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deadline_s")));
  req.deadline_s = 2;
  req.wrs.clear();
  EXPECT_THAT(RunPeerProbe(ch, req), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no work requests")));
}

}  // namespace
}  // namespace rdmacheck
