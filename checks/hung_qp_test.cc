#include "checks/hung_qp.h"

#include <memory>

#include "acts/testing/fake_device.h"
#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// The guest's pair: rxe0 on va, rxe1 on vb (fixtures/profiles/rxe_mtu9000.profile),
// marked live so the check runs.
DeviceView LivePair() {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.source = "live";
  return v;
}

WrOutcome Done(int i, ProbeOp op, uint64_t bytes, double s) {
  WrOutcome w;
  w.index = i;
  w.spec = {op, static_cast<uint32_t>(bytes), 1, 0};
  w.num_sge = 1;
  w.total_bytes = bytes;
  w.state = WrState::kCompleted;
  w.verified = true;
  w.seconds = s;
  w.qp_state_before = "RTS";
  return w;
}

ProbeResult Common() {
  ProbeResult r;
  r.device = "rxe0";
  r.peer_device = "rxe1";
  r.gid_index = 1;
  r.peer_gid_index = 1;
  r.gid = "::ffff:198.18.0.1";
  r.peer_gid = "::ffff:198.18.0.2";
  r.gid_type = "RoCEv2";
  r.path_mtu = 4096;
  r.retry_cnt = 6;
  r.timeout = 14;
  r.deadline_s = 2;
  r.counters_known = true;
  r.qp_state = "RTS";
  return r;
}

ProbeResult Healthy() {
  ProbeResult r = Common();
  r.wrs = {Done(0, ProbeOp::kSend, 64, 0.0004), Done(1, ProbeOp::kSend, 12411, 0.001),
           Done(2, ProbeOp::kRdmaWrite, 65613, 0.002)};
  return r;
}

// What the guest shows with nftables dropping UDP 4791: status 12 after
// 7 tries of ~67 ms, rxe0 sent 7 packets, rxe1 received none.
ProbeResult Blocked() {
  ProbeResult r = Common();
  WrOutcome w;
  w.index = 0;
  w.spec = {ProbeOp::kSend, 64, 1, 0};
  w.num_sge = 1;
  w.total_bytes = 64;
  w.state = WrState::kError;
  w.wc_status = 12;
  w.wc_status_text = "transport retry counter exceeded";
  w.seconds = 0.47;
  w.qp_state_before = "RTS";
  w.local_delta = {{"sent_pkts", 7}, {"retry_exceeded_err", 1}, {"send_err", 0}};
  w.peer_delta = {{"rcvd_pkts", 0}, {"sent_pkts", 0}};
  WrOutcome later = Done(1, ProbeOp::kSend, 12411, 0);
  later.state = WrState::kNotRun;
  r.wrs = {w, later};
  r.qp_state = "ERR";
  return r;
}

// Runs the check with a Device whose traffic probe answers `canned`; *seen
// gets the last request.
Result RunWith(const DeviceView& view, absl::StatusOr<ProbeResult> canned, ProbeRequest* seen,
               Options opts = Options()) {
  testing::FakeDevice fake;
  fake.traffic_probe.Always(std::move(canned));
  Result r = testing::RunOnViewWithFake(HungQpCheck(), view, FixturePlan(""), fake, opts);
  fake.traffic_probe.CopyLastRequest(seen);
  return r;
}

TEST(HungQpTest, ProfileSkips) {
  Result r = testing::RunOnModel(HungQpCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_EQ(r.skip_reason, "traffic probe needs a live device");
  EXPECT_TRUE(HungQpCheck().live_only());
}

TEST(HungQpTest, ADeviceWithoutAProbeSkips) {
  DeviceView v = LivePair();
  Plan plan = FixturePlan("");
  Options opts;
  testing::FakeDevice no_probe;  // no probe answer: Device's default, like a driver model
  Result r = testing::RunOnViewWithFake(HungQpCheck(), v, plan, no_probe, opts);
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_EQ(r.skip_reason, "traffic probe needs a live device");
}

// A live device that cannot be opened: the WARN row says why, as the open
// failed (LiveDevice::Open's status), not a bare "could not open".
TEST(HungQpTest, OpenFailureIsInTheEvidence) {
  DeviceView v = LivePair();
  Options opts;
  opts.device = "rxe0";
  CheckContext ctx{v, FixturePlan(""), opts, [](const DeviceInfo& d) -> absl::StatusOr<std::unique_ptr<Device>> {
                     return absl::PermissionDeniedError(absl::StrCat("ibv_open_device(dev=", d.name, "): Permission denied"));
                   }};
  Result r = HungQpCheck().Run(ctx);
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, ::testing::Contains(EvidenceRow(
                              "rxe0 probe", "could not open it: ibv_open_device(dev=rxe0): Permission denied", Verdict::kWarn)));
}

TEST(HungQpTest, HealthyPairPasses) {
  ProbeRequest seen;
  Options opts;
  opts.device = "rxe0";
  Result r = RunWith(LivePair(), Healthy(), &seen, opts);
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_EQ(r.title, "SENDs and RDMA WRITEs rxe0 -> rxe1 complete within 2 s, every byte intact");
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("WR 0 SEND 64 B in 1 SGE rxe0 -> rxe1", "64 B verified", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("WR 2 RDMA_WRITE 65613 B", "verified", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("probe path rxe0 -> rxe1", "retry_cnt 6, timeout 14 (67.1 ms per try)", Verdict::kPass)));
  EXPECT_TRUE(r.remediation.empty());
  // What was asked of the probe.
  EXPECT_EQ(seen.device, "rxe0");
  EXPECT_EQ(seen.peer_device, "rxe1");
  EXPECT_EQ(seen.retry_cnt, 6);
  EXPECT_EQ(seen.timeout, 14);
  EXPECT_DOUBLE_EQ(seen.deadline_s, 2.0);
  // GID 1 (::ffff:198.18.0.1 / .2), not the link-local GID 0.
  EXPECT_EQ(seen.gid_index, 1);
  EXPECT_EQ(seen.peer_gid_index, 1);
  ASSERT_EQ(seen.wrs.size(), 3u);
  EXPECT_EQ(seen.wrs[0].bytes, 64u);
  EXPECT_EQ(seen.wrs[2].op, ProbeOp::kRdmaWrite);
}

TEST(HungQpTest, OptionsReachTheProbe) {
  ProbeRequest seen;
  Options opts;
  opts.device = "rxe0";
  opts.gid_index = 0;
  opts.probe_deadline_s = 0.5;
  Result r = RunWith(LivePair(), Healthy(), &seen, opts);
  EXPECT_EQ(seen.gid_index, 0);
  EXPECT_EQ(seen.peer_gid_index, 0);
  EXPECT_DOUBLE_EQ(seen.deadline_s, 0.5);
  EXPECT_THAT(r.title, HasSubstr("within 0.5 s"));
}

TEST(HungQpTest, BlockedPathFailsWithNumbersAndFirewallRemedy) {
  Options opts;
  opts.device = "rxe0";
  Result r = RunWith(LivePair(), Blocked(), nullptr, opts);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("WR 0 SEND 64 B", "status 12 (transport retry counter exceeded) after 470.00 ms", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 QP state after WR 0", "ERR", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 hw_counters during WR 0", "sent_pkts +7", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe1 hw_counters during WR 0", "rcvd_pkts +0", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("cause", "path blocked", Verdict::kFail)));
  // The WR not posted after the failure is a note, not a row.
  EXPECT_THAT(r.evidence, Not(Contains(EvidenceRow("WR 1", "", Verdict::kSkip))));
  EXPECT_THAT(AllText(r), HasSubstr("1 later WRs were not posted after WR 0 failed"));
  ASSERT_GE(r.remediation.size(), 3u);
  EXPECT_THAT(r.remediation[0], HasSubstr("nft list ruleset | grep 4791; iptables -S | grep 4791"));
  EXPECT_THAT(r.remediation[1], HasSubstr("rdmacheck --checks firewall-4791,gid-table -d rxe0"));
  EXPECT_THAT(r.remediation[2], HasSubstr("ip route get 198.18.0.2"));
  EXPECT_THAT(r.remediation.back(), HasSubstr("rdmacheck --checks hung-qp -d rxe0"));
}

TEST(HungQpTest, RemedyFitsTheClass) {
  DeviceView v = LivePair();
  ProbeResult r = Common();
  struct Row {
    HangClass c;
    const char* want;
  } rows[] = {
      {HangClass::kMtuAbovePath, "ip link show dev va; ip link show dev vb"},
      {HangClass::kPeerNotReady, "post receive WRs"},
      {HangClass::kCqOverrun, "cqe >= sum of max_send_wr + max_recv_wr"},
      {HangClass::kQpInError, "rdma res show qp dev rxe0"},
      {HangClass::kNotSent, "rdma link show"},
  };
  for (const Row& row : rows) {
    std::vector<std::string> lines = HangRemedy(row.c, v, r, "hung-qp");
    ASSERT_FALSE(lines.empty()) << HangClassName(row.c);
    EXPECT_LE(lines.size(), 4u);
    EXPECT_THAT(lines[0], HasSubstr(row.want)) << HangClassName(row.c);
  }
}

TEST(HungQpTest, SetupErrorIsWarnNotCrash) {
  Options opts;
  opts.device = "rxe0";
  Result r = RunWith(LivePair(), absl::FailedPreconditionError("rxe1 port 1 is PORT_DOWN, not ACTIVE"), nullptr, opts);
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("probe setup rxe0 -> rxe1", "PORT_DOWN", Verdict::kWarn)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("rdmacheck --checks port-active -d rxe0")));
}

// A VLAN set down keeps its GID, and RTR to the peer fails with
// ENETUNREACH (docs/guest.md): the check names the GID's netdev and its
// state, and the commands that show it.
TEST(HungQpTest, RtrUnreachableNamesTheGidsNetdev) {
  DeviceView v = LivePair();
  for (NetdevInfo& n : v.netdevs)
    if (n.name == "va") n.operstate = "down";
  Options opts;
  opts.device = "rxe0";
  Result r = RunWith(v,
                     absl::UnknownError("ibv_modify_qp(dev=rxe0 qp=17 state=RTR dest_qpn=18 sgid_index=1): "
                                        "Network is unreachable"),
                     nullptr, opts);
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.notes, Contains(HasSubstr("RTR refused with ENETUNREACH: the kernel found no next hop from rxe0 "
                                          "GID 1 on va (operstate down) to rxe1 GID 1 ::ffff:198.18.0.2")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip -br link show va")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip route get 198.18.0.2   # must leave by va")));
  EXPECT_THAT(r.remediation, Not(Contains(HasSubstr("port-active"))));
  // The peer's QP, connecting back, refused: the note speaks of its GID.
  Result back = RunWith(v,
                        absl::UnknownError("ibv_modify_qp(dev=rxe1 qp=18 state=RTR dest_qpn=17 sgid_index=1): "
                                           "Network is unreachable"),
                        nullptr, opts);
  EXPECT_THAT(back.notes, Contains(HasSubstr("no next hop from rxe1 GID 1 on vb (operstate up) to rxe0 GID 1 "
                                             "::ffff:198.18.0.1")));
  // Another setup failure gets no such explanation.
  Result other = RunWith(LivePair(), absl::InvalidArgumentError("ibv_create_qp(dev=rxe0): Invalid argument"), nullptr,
                         opts);
  EXPECT_THAT(other.notes, Not(Contains(HasSubstr("ENETUNREACH"))));
}

// tbf with a 4094-byte bucket on va (scenario 52's): the probe's 64 KiB
// WRITE would fill packets of 4170-byte frames, which tbf drops and rxe
// retries without end. The check FAILs naming the qdisc and sends nothing.
TEST(HungQpTest, AQdiscThatDropsFullFramesIsNamedAndNothingIsSent) {
  DeviceView v = LivePair();
  for (NetdevInfo& n : v.netdevs)
    if (n.name == "va") n.qdiscs = {Qdisc{"tbf", "root", 50000000, 4094, std::nullopt, std::nullopt, std::nullopt}};
  testing::FakeDevice fake;
  Options opts;
  opts.device = "rxe0";
  Result r = testing::RunOnViewWithFake(HungQpCheck(), v, FixturePlan(""), fake, opts);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(fake.traffic_probe.calls(), 0);
  EXPECT_THAT(AllText(r), HasSubstr("va qdisc tbf root rate 50Mbit burst 4094b"));
  EXPECT_THAT(AllText(r), HasSubstr("not probed rxe0 -> rxe1: its WRs fill packets of path MTU 4096"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("tc qdisc replace dev va root tbf rate 50mbit burst 64kb")));
  // On the far end's netdev only the ACKs leave: the probe runs.
  DeviceView far = LivePair();
  for (NetdevInfo& n : far.netdevs)
    if (n.name == "vb") n.qdiscs = {Qdisc{"tbf", "root", 50000000, 4094, std::nullopt, std::nullopt, std::nullopt}};
  testing::FakeDevice probed;
  probed.traffic_probe.Always(absl::UnavailableError("no device here"));
  (void)testing::RunOnViewWithFake(HungQpCheck(), far, FixturePlan(""), probed, opts);
  EXPECT_EQ(probed.traffic_probe.calls(), 1);
}

TEST(ChoosePeerTest, PrefersADeviceOnAnotherNetdev) {
  DeviceView v = LivePair();
  PeerChoice c = ChoosePeer(v, *v.Device("rxe0"), 1);
  ASSERT_NE(c.peer, nullptr);
  EXPECT_EQ(c.peer->name, "rxe1");
  EXPECT_FALSE(c.loopback);
  EXPECT_THAT(c.why, HasSubstr("IP path va -> vb"));
}

TEST(ChoosePeerTest, AloneItLoopsBackAndSaysSo) {
  DeviceView v = LivePair();
  v.devices.pop_back();  // rxe1 gone
  PeerChoice c = ChoosePeer(v, *v.Device("rxe0"), 1);
  EXPECT_TRUE(c.loopback);
  EXPECT_THAT(c.why, HasSubstr("does not test the IP path"));
  ProbeRequest seen;
  Options opts;
  ProbeResult lb = Healthy();
  lb.loopback = true;
  lb.peer_device = "rxe0";
  Result r = RunWith(v, lb, &seen, opts);
  EXPECT_EQ(seen.peer_device, "");
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(AllText(r), HasSubstr("this does not test the IP path"));
}

TEST(ChoosePeerTest, SkipsADownPeer) {
  DeviceView v = LivePair();
  v.devices[1].ports[0].state = "DOWN";
  PeerChoice c = ChoosePeer(v, *v.Device("rxe0"), 1);
  EXPECT_TRUE(c.loopback);
}

// A container given only rxe0's node (--device=/dev/infiniband/uverbs0):
// rxe1 is in sysfs but cannot be opened here, so the probe loops back on
// rxe0 instead of failing to open rxe1.
TEST(ChoosePeerTest, SkipsAPeerWhoseNodeIsMissingHere) {
  DeviceView v = LivePair();
  v.devices[0].uverbs = "uverbs0";
  v.devices[1].uverbs = "uverbs1";
  v.host.dev_nodes = {{"uverbs0", "rw"}, {"uverbs1", "missing"}, {"rdma_cm", "rw"}};
  PeerChoice c = ChoosePeer(v, *v.Device("rxe0"), 1);
  EXPECT_TRUE(c.loopback);
  EXPECT_THAT(c.why, HasSubstr("only device this process can open: rxe1's /dev/infiniband/uverbs1 missing here"));
  v.host.dev_nodes["uverbs1"] = "rw";
  c = ChoosePeer(v, *v.Device("rxe0"), 1);
  ASSERT_NE(c.peer, nullptr);
  EXPECT_EQ(c.peer->name, "rxe1");
}

// rxe1 on a vb moved into another network namespace (measured in the guest:
// rxe1 still listed here, its netdev not; rxe0 -> rxe1 sent 7, received 0):
// no probe across, a loopback that says why.
TEST(ChoosePeerTest, SkipsAPeerWhoseNetdevIsInAnotherNamespace) {
  DeviceView v = LivePair();
  for (NetdevInfo& n : v.netdevs) {
    if (n.name != "vb") continue;
    n = NetdevInfo();
    n.name = "vb";
  }
  PeerChoice c = ChoosePeer(v, *v.Device("rxe0"), 1);
  EXPECT_TRUE(c.loopback);
  EXPECT_THAT(c.why, HasSubstr("not rxe1 (its netdev vb): that netdev is in another network namespace"));
}

// A plan whose peers are addressed over IPv6 (ip_version = 6): the probe
// asks for each device's global IPv6 GID, not the IPv4-mapped one.
TEST(HungQpTest, PlanIpv6ProbesOverTheIpv6Gids) {
  DeviceView v = LivePair();
  for (DeviceInfo& d : v.devices)
    d.ports[0].gids.push_back(GidEntry{2, d.name == "rxe0" ? "2001:2::1" : "2001:2::2", GidType::kRoceV2,
                                       d.name == "rxe0" ? "va" : "vb"});
  testing::FakeDevice fake;
  fake.traffic_probe.Always(Healthy());
  testing::RunOnViewWithFake(HungQpCheck(), v, FixturePlan("rxe_guest_ipv6.plan"), fake, Options());
  ProbeRequest seen;
  fake.traffic_probe.CopyLastRequest(&seen);
  EXPECT_EQ(seen.gid_index, 2);
  EXPECT_EQ(seen.peer_gid_index, 2);
  testing::RunOnViewWithFake(HungQpCheck(), v, FixturePlan("rxe_guest.plan"), fake, Options());
  fake.traffic_probe.CopyLastRequest(&seen);
  EXPECT_EQ(seen.gid_index, 1) << "without ip_version: the IPv4-mapped entry";
}

// The probe's sender on a bridge port (scenario 68's capture): its ACKs arrive
// as br0's, so the remedy moves rxe0 onto the bridge.
TEST(HungQpTest, NoAckOnABridgePortSaysToCreateRxeOnTheBridge) {
  DeviceView v = FixtureProfile("rxe_bridge_port.profile");
  ProbeResult r = Common();
  std::vector<std::string> lines = HangRemedy(HangClass::kPeerNoAck, v, r, "hung-qp");
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(lines[0], HasSubstr("rdma link delete rxe0 && rdma link add rxe0 type rxe netdev br0"));
  // A healthy pair keeps the usual first step.
  EXPECT_THAT(HangRemedy(HangClass::kPeerNoAck, LivePair(), r, "hung-qp")[0], HasSubstr("rdma res show qp dev rxe1"));
}

// Two devices whose GIDs ride one netdev (rxe0 on bridge port va, rxebr on
// br0 itself) share its address: a probe between them talks to itself.
TEST(ChoosePeerTest, SkipsAPeerWhoseGidsRideTheSameNetdev) {
  DeviceView v = FixtureProfile("rxe_bridge_port.profile");
  DeviceInfo br = *v.Device("rxe0");
  br.name = "rxebr";
  br.netdev = "br0";
  v.devices.insert(v.devices.begin(), br);
  PeerChoice c = ChoosePeer(v, *v.Device("rxebr"), 1);
  ASSERT_NE(c.peer, nullptr);
  EXPECT_EQ(c.peer->name, "rxe1") << c.why;
}

}  // namespace
}  // namespace rdmacheck
