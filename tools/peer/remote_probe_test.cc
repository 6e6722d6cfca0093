// The server half's checks that come before any device is opened, and the
// client half's request checks: hermetic (the verbs path runs in the guest,
// ci/guest/scenarios/41-43).
#include "tools/peer/remote_probe.h"

#include <sys/socket.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

std::string SetupFrame(const std::map<std::string, std::string>& over) {
  std::map<std::string, std::string> f{{"device", "rxe1"}, {"port", "1"},        {"gid_index", ""},
                                       {"qpn", "17"},      {"gid", "::ffff:198.18.0.1"}, {"mtu", "5"},
                                       {"recv_bytes", "4096"}, {"timeout", "14"}, {"retry_cnt", "6"},
                                       {"rnr_retry", "3"}};
  for (const auto& [k, v] : over) f[k] = v;
  return EncodeFields(f);
}

struct BadSetup {
  std::map<std::string, std::string> over;
  const char* served;
  const char* message;
};

TEST(ServePeerProbe, RefusesBadSetupsBeforeTouchingADeviceAndTellsTheClient) {
  const BadSetup cases[] = {
      {{{"retry_cnt", "7"}}, "rxe1", "retry_cnt 7 rnr_retry 3 out of bounds"},
      {{{"rnr_retry", "7"}}, "rxe1", "rnr_retry 7 out of bounds"},
      {{{"timeout", "0"}}, "rxe1", "timeout 0"},
      {{{"recv_bytes", "0"}}, "rxe1", "recv_bytes 0 not in 1..256 MiB"},
      {{{"device", "rxe0"}}, "rxe1", "this server serves rxe1, not rxe0"},
      {{{"device", ""}}, "", "no device: start `rdmacheck serve -d DEV`"},
      {{{"qpn", "x"}}, "rxe1", "PROBE_SETUP: field 'qpn' = 'x' is not an integer"},
  };
  for (const BadSetup& c : cases) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    PeerChannel server(sv[0], "client", 1), client(sv[1], "server", 1);
    absl::Status s = ServePeerProbe(server, PeerFrame{"PROBE_SETUP", SetupFrame(c.over)}, c.served);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message))) << c.message;
    // The client, waiting for PROBE_READY, gets the reason.
    EXPECT_THAT(client.Receive("PROBE_READY"), StatusIs(absl::StatusCode::kAborted, HasSubstr(c.message)));
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
