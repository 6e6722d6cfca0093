#include "tools/peer/peer_mode.h"

#include <sstream>
#include <thread>

#include "acts/testing/fake_device.h"
#include "checks/check_test_util.h"
#include "checks/runner.h"
#include "plan/plan.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::FakeDevice;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

// Server on loopback TCP with rxe1 of `served_profile`, in a thread.
struct LoopbackServer {
  explicit LoopbackServer(const std::string& served_profile, const std::string& version = "0.1.0") {
    absl::StatusOr<PeerListener> l = PeerListener::Listen("127.0.0.1", 0);
    EXPECT_TRUE(l.ok());
    port = l->port();
    served = *PeerDeviceView(FixtureProfile(served_profile), "rxe1");
    thread = std::thread([this, version, l = std::make_shared<PeerListener>(*std::move(l))]() mutable {
      absl::StatusOr<PeerChannel> ch = l->Accept(5, nullptr);
      if (!ch.ok()) {
        status = ch.status();
        return;
      }
      status = ServeClient(*ch, served, version, 5, log);
    });
  }
  ~LoopbackServer() {
    if (thread.joinable()) thread.join();
  }
  std::string addr() const { return absl::StrCat("127.0.0.1:", port); }
  int port = 0;
  DeviceView served;
  std::thread thread;
  std::ostringstream log;
  absl::Status status;
};

TEST(PeerMode, ProfilesAndVerdictsCrossTheSideChannel) {
  LoopbackServer srv("rxe_mtu1500.profile");
  DeviceView local = *PeerDeviceView(FixtureProfile("rxe_mtu9000.profile"), "rxe0");
  {
    ASSERT_OK_AND_ASSIGN(PeerClient c, PeerClient::Open(srv.addr(), local, "0.1.0"));
    ASSERT_EQ(c.remote_view().devices.size(), 1u);
    EXPECT_EQ(c.remote_view().devices[0].name, "rxe1");
    EXPECT_EQ(c.remote_view().devices[0].ports[0].active_mtu, 1024);
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> theirs, c.ExchangeVerdicts({"FAIL peer-match rxe0 and rxe1 ..."}));
    ASSERT_EQ(theirs.size(), 1u);
    // The far end compared too, from its side: 1024 there, 4096 here.
    EXPECT_THAT(theirs[0], HasSubstr("FAIL peer-match rxe1 (this host) and rxe0 on 127.0.0.1"));
  }  // BYE
  srv.thread.join();
  EXPECT_OK(srv.status);
  EXPECT_THAT(srv.log.str(), HasSubstr("rdmacheck 0.1.0, device rxe0"));
  EXPECT_THAT(srv.log.str(), HasSubstr("verdict: FAIL peer-match rxe0 and rxe1"));
  EXPECT_THAT(srv.log.str(), HasSubstr("active_mtu (bytes), rxe1 port 1 (this host) / rxe0 port 1 (127.0.0.1): 1024 / 4096"));
  EXPECT_THAT(srv.log.str(), HasSubstr("done, 0 probes and 0 bench sessions served"));
}

TEST(PeerDevice, BenchRunsToTheFarHostGoThroughItsServeOthersStayLocal) {
  LoopbackServer srv("rxe_mtu9000.profile");
  DeviceView local = *PeerDeviceView(FixtureProfile("rxe_mtu9000.profile"), "rxe0");
  FakeDevice fake;
  BenchResult answer;
  answer.bw_avg_gbps = 0.4;
  fake.bench.Always(answer);
  {
    ASSERT_OK_AND_ASSIGN(PeerClient c, PeerClient::Open(srv.addr(), local, "0.1.0"));
    PeerDevice dev(fake.Handle(), &c);
    BenchEnds far;
    far.device = "rxe0";
    far.peer_device = "rxe1@127.0.0.1";
    ASSERT_OK(dev.RunBench(far, BenchSettings{}).status());
    BenchEnds here = far;
    here.peer_device = "rxe1";
    ASSERT_OK(dev.RunBench(here, BenchSettings{}).status());
  }
  srv.thread.join();
  ASSERT_EQ(fake.bench.requests().size(), 2u);
  // The far host's device without its "@host", and the far end's half set.
  EXPECT_EQ(fake.bench.requests()[0].ends.peer_device, "rxe1");
  EXPECT_NE(fake.bench.requests()[0].ends.far, nullptr);
  EXPECT_EQ(fake.bench.requests()[1].ends.peer_device, "rxe1");
  EXPECT_EQ(fake.bench.requests()[1].ends.far, nullptr);
}

TEST(PeerMode, VersionMismatchIsAClearErrorOnBothEnds) {
  LoopbackServer srv("rxe_mtu9000.profile", "0.2.0");
  DeviceView local = *PeerDeviceView(FixtureProfile("rxe_mtu9000.profile"), "rxe0");
  EXPECT_THAT(PeerClient::Open(srv.addr(), local, "0.1.0"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("runs rdmacheck 0.2.0 (peer protocol 1), this is rdmacheck 0.1.0")));
  srv.thread.join();
  EXPECT_THAT(srv.status, StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("runs rdmacheck 0.1.0")));
}

TEST(PeerMode, NothingListeningIsUnavailable) {
  int port;
  {
    ASSERT_OK_AND_ASSIGN(PeerListener l, PeerListener::Listen("127.0.0.1", 0));
    port = l.port();
  }
  DeviceView local = *PeerDeviceView(FixtureProfile("rxe_mtu9000.profile"), "rxe0");
  EXPECT_THAT(PeerClient::Open(absl::StrCat("127.0.0.1:", port), local, "0.1.0"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("is `rdmacheck serve` running there?")));
}

TEST(PeerMode, PeerDeviceKeepsOneDeviceOrNamesTheOthers) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  ASSERT_OK_AND_ASSIGN(DeviceView one, PeerDeviceView(v, "rxe1"));
  ASSERT_EQ(one.devices.size(), 1u);
  EXPECT_EQ(one.devices[0].name, "rxe1");
  ASSERT_EQ(one.netdevs.size(), 1u) << "its own netdev only";
  EXPECT_EQ(one.netdevs[0].name, "vb");
  ASSERT_OK_AND_ASSIGN(DeviceView first, PeerDeviceView(v, ""));
  EXPECT_EQ(first.devices[0].name, "rxe0");
  EXPECT_THAT(PeerDeviceView(v, "mlx5_0"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no RDMA device mlx5_0 on this host (devices: rxe0, rxe1)")));
}

TEST(PeerMode, MergedViewNamesTheFarDevicesByHost) {
  DeviceView local = FixtureProfile("rxe_mtu9000.profile");
  DeviceView remote = *PeerDeviceView(FixtureProfile("rxe_mtu1500.profile"), "rxe1");
  DeviceView m = MergePeerView(local, remote, "198.18.0.2", "rxe0");
  ASSERT_EQ(m.devices.size(), 2u);
  EXPECT_EQ(m.devices[0].name, "rxe0");
  EXPECT_EQ(m.devices[1].name, "rxe1@198.18.0.2");
  EXPECT_EQ(m.devices[1].netdev, "vb@198.18.0.2");
  ASSERT_NE(m.Netdev("vb@198.18.0.2"), nullptr);
  EXPECT_EQ(m.Netdev("vb@198.18.0.2")->mtu, 1500);
  EXPECT_EQ(m.Netdev("vb")->mtu, 9000);  // this host's vb is still there
}

TEST(PeerMode, PeerDeviceSendsOnlyFarProbesAcrossTheLink) {
  LoopbackServer srv("rxe_mtu9000.profile");
  DeviceView local = *PeerDeviceView(FixtureProfile("rxe_mtu9000.profile"), "rxe0");
  ASSERT_OK_AND_ASSIGN(PeerClient c, PeerClient::Open(srv.addr(), local, "0.1.0"));
  // The local device marks the probes it ran.
  auto fake = std::make_unique<testing::FakeDevice>();
  fake->traffic_probe.With([](const ProbeRequest& req) -> absl::StatusOr<ProbeResult> {
    ProbeResult r;
    r.peer_device = "local:" + req.peer_device;
    return r;
  });
  PeerDevice d(std::move(fake), &c);
  EXPECT_EQ(d.Describe(), "fake (peer 127.0.0.1)");
  ProbeRequest req;
  req.device = "rxe0";
  req.peer_device = "rxe1";
  ASSERT_OK_AND_ASSIGN(ProbeResult r, d.RunTrafficProbe(req));
  EXPECT_EQ(r.peer_device, "local:rxe1");
  // A far probe with no WRs is refused before anything is opened.
  req.peer_device = "rxe1@127.0.0.1";
  EXPECT_THAT(d.RunTrafficProbe(req), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no work requests")));
}

// Runs after peer-match and keeps what it was given: the view's devices,
// the -d option, and the Device it gets for the far device.
class RecordingCheck : public Check {
 public:
  absl::string_view id() const override { return "recorder"; }
  absl::string_view summary() const override { return "records its context"; }
  Result Run(const CheckContext& ctx) const override {
    for (const DeviceInfo& d : ctx.view.devices) devices.push_back(d.name);
    device_option = ctx.options.device;
    absl::StatusOr<std::unique_ptr<Device>> far = ctx.OpenDevice(ctx.view.devices.back());
    if (far.ok()) far_device = (*far)->Describe();
    return ResultBuilder(*this, "recorded").Build();
  }
  mutable std::vector<std::string> devices;
  mutable std::optional<std::string> device_option;
  mutable std::string far_device;
};

RunInputs InputsFor(const std::string& profile) {
  RunInputs in;
  in.view = FixtureProfile(profile);
  in.plan = DefaultPlan();
  in.options.device = "rxe0";
  return in;
}

TEST(RunPeerChecks, PeerMatchFirstOnTheMergedViewWithTheFarVerdictsAsNotes) {
  LoopbackServer srv("rxe_mtu1500.profile");
  RecordingCheck rec;
  Session session;
  RunInputs in = InputsFor("rxe_mtu9000.profile");
  ASSERT_OK_AND_ASSIGN(RunReport rep, RunPeerChecks(session, in, {&rec}, srv.addr(), "0.1.0"));
  srv.thread.join();
  EXPECT_OK(srv.status);
  // This host's other device left the view; the far one joined it.
  EXPECT_THAT(rec.devices, ::testing::ElementsAre("rxe0", "rxe1@127.0.0.1"));
  EXPECT_EQ(rec.device_option, "rxe0");
  EXPECT_THAT(rec.far_device, ::testing::EndsWith("(peer 127.0.0.1)"));
  ASSERT_EQ(rep.results.size(), 2u);
  const Result& pm = rep.results[0];
  EXPECT_EQ(pm.id, "peer-match");
  EXPECT_EQ(pm.verdict, Verdict::kFail);
  EXPECT_THAT(pm.notes, ::testing::Contains(HasSubstr(
                            "far end 127.0.0.1: FAIL peer-match rxe1 (this host) and rxe0 on 127.0.0.1")));
  EXPECT_EQ(rep.results[1].id, "recorder");
  // The far end got ours.
  EXPECT_THAT(srv.log.str(), HasSubstr("client 127.0.0.1"));
  EXPECT_THAT(srv.log.str(), HasSubstr("verdict: FAIL peer-match rxe0 (this host) and rxe1 on 127.0.0.1"));
}

TEST(RunPeerChecks, NoRunWithoutTheLocalDeviceOrTheFarEnd) {
  RecordingCheck rec;
  Session session;
  RunInputs in = InputsFor("rxe_mtu9000.profile");
  in.options.device = "mlx5_0";
  EXPECT_THAT(RunPeerChecks(session, in, {&rec}, "127.0.0.1:1", "0.1.0"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("--peer 127.0.0.1:1: no RDMA device mlx5_0 on this host (devices: rxe0, rxe1)")));
  int port;
  {
    ASSERT_OK_AND_ASSIGN(PeerListener l, PeerListener::Listen("127.0.0.1", 0));
    port = l.port();
  }
  RunInputs fresh = InputsFor("rxe_mtu9000.profile");
  EXPECT_THAT(RunPeerChecks(session, fresh, {&rec}, absl::StrCat("127.0.0.1:", port), "0.1.0"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr(absl::StrCat("--peer 127.0.0.1:", port, ": connect("))));
  EXPECT_TRUE(rec.devices.empty());
}

}  // namespace
}  // namespace rdmacheck
