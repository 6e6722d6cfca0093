#include "checks/link_health.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// The real rxe0/rxe1 capture with a quiet window of 2 s over it: the end
// sample equal to the start.
DeviceView QuietRxe() {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  for (DeviceInfo& d : v.devices)
    for (PortInfo& p : d.ports) {
      p.counters_after = p.counters;
      p.hw_counters_after = p.hw_counters;
    }
  LinkWindow w;
  w.ms = 2000;
  w.started = "2026-12-01T10:00:00Z";
  w.watched = {"rxe0", "rxe1"};
  v.window = w;
  return v;
}

TEST(LinkHealth, QuietRxePairPasses) {
  Result r = RunOnView(LinkHealthCheck(), QuietRxe(), DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 error counters", "no change", Verdict::kPass)));
  EXPECT_THAT(r.title, HasSubstr("over 2.0 s"));
}

TEST(LinkHealth, MovingSymbolErrorsFailWithRateAndCommands) {
  Result r = RunOn(LinkHealthCheck(), "mlx5_symbol_errors.profile");
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  // 0 -> 118 over 2.004 s.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("mlx5_0 port 1 symbol_error", "+118 in 2.0 s (58.9/s)", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("link_error_recovery", "+2", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("port_rcv_errors", "+41", Verdict::kFail)));
  // Congestion notification packets moved too: WARN, not FAIL.
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("np_cnp_sent", "+36", Verdict::kWarn)));
  // Data counters are not judged.
  EXPECT_THAT(r.evidence, Not(Contains(EvidenceRow("port_xmit_data", "", Verdict::kFail))));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ethtool -m ens1f0np0")));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("mlxlink -d 0000:3b:00.0 -p 1")));
  EXPECT_THAT(AllText(r), HasSubstr("since boot (up 15 d 0 h)"));
}

TEST(LinkHealth, PlanToleratesARate) {
  Plan plan = DefaultPlan();
  plan.path = "node.plan";
  plan.counter_limits = {{"symbol_error", 12, 100.0}, {"link_error_recovery", 13, 0.5}};
  Result r = RunOnView(LinkHealthCheck(), FixtureProfile("mlx5_symbol_errors.profile"), plan);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("symbol_error", "58.9/s", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("link_error_recovery", "+2", Verdict::kFail)));
  bool cited = false;
  for (const Evidence& e : r.evidence) cited = cited || e.expected == "<= 100/s (plan node.plan:12)";
  EXPECT_TRUE(cited) << AllText(r);
}

TEST(LinkHealth, FlapFailsWithTheTimes) {
  DeviceView v = QuietRxe();
  v.window->events = {{"rxe0", 512, "PORT_ERR", 1}, {"rxe0", 1034, "PORT_ACTIVE", 1}, {"rxe0", 1034, "PORT_ACTIVE", 1}};
  v.devices[0].ports[0].hw_counters_after["link_downed"] = v.devices[0].ports[0].hw_counters["link_downed"] + 1;
  Result r = RunOnView(LinkHealthCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 link",
                                               "link flapped: PORT_ERR at +0.51 s, PORT_ACTIVE at +1.03 s (x2)",
                                               Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 link_downed", "+1", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip monitor link dev va")));
  // rxe1 saw nothing.
  EXPECT_THAT(r.evidence, Not(Contains(EvidenceRow("rxe1 port 1 link", "", Verdict::kFail))));
}

TEST(LinkHealth, RealFlapCaptureFailsOnBothDevices) {
  // fixtures/profiles/rxe_flap.profile: the guest's capture of a flap of va.
  Result r = RunOn(LinkHealthCheck(), "rxe_flap.profile");
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 link",
                                               "link flapped: PORT_ERR at +2.48 s, PORT_ACTIVE at +3.20 s (x2)",
                                               Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe1 port 1 link", "PORT_ERR at +2.50 s", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe1 port 1 link_downed", "+1 in 8.0 s", Verdict::kFail)));
  Options only_rxe0;
  only_rxe0.device = "rxe0";
  Result one = RunOn(LinkHealthCheck(), "rxe_flap.profile", "", only_rxe0);
  EXPECT_THAT(one.evidence, Not(Contains(EvidenceRow("rxe1", "", Verdict::kFail))));
}

TEST(LinkHealth, TransportRetriesWarnWithLikelyCauses) {
  DeviceView v = QuietRxe();
  PortInfo& p = v.devices[0].ports[0];
  p.hw_counters_after["rcvd_seq_err"] = p.hw_counters["rcvd_seq_err"] + 40;
  p.hw_counters_after["completer_retry_err"] = p.hw_counters["completer_retry_err"] + 7;
  Result r = RunOnView(LinkHealthCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 rcvd_seq_err", "+40 in 2.0 s (20/s)", Verdict::kWarn)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("completer_retry_err", "+7", Verdict::kWarn)));
  EXPECT_THAT(AllText(r), HasSubstr("packets were lost or late"));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("tc qdisc show dev va")));
}

TEST(LinkHealth, CounterGoingBackIsAResetNotAHugeDelta) {
  DeviceView v = QuietRxe();
  PortInfo& p = v.devices[0].ports[0];
  p.hw_counters["retry_exceeded_err"] = 900;
  p.hw_counters_after["retry_exceeded_err"] = 2;
  Result r = RunOnView(LinkHealthCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("retry_exceeded_err", "went back from 900 to 2", Verdict::kWarn)));
  EXPECT_THAT(AllText(r), Not(HasSubstr("18446744073709")));
}

TEST(LinkHealth, UnreadableCounterIsNamedNotACrash) {
  DeviceView v = QuietRxe();
  v.devices[0].ports[0].unreadable_counters = {"hw_counters/send_err"};
  Result r = RunOnView(LinkHealthCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 port 1 hw_counters/send_err", "unreadable", Verdict::kWarn)));
}

TEST(LinkHealth, FatalDeviceFailsAndGidChangeWarns) {
  DeviceView v = QuietRxe();
  v.window->events = {{"rxe1", 100, "GID_CHANGE", 1}, {"rxe0", 300, "DEVICE_FATAL", std::nullopt}};
  Result r = RunOnView(LinkHealthCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe0 device", "IBV_EVENT_DEVICE_FATAL at +0.30 s", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("rxe1 port 1 GID table", "GID_CHANGE at +0.10 s", Verdict::kWarn)));
}

TEST(LinkHealth, UnwatchedDeviceSaysWhy) {
  DeviceView v = QuietRxe();
  v.window->watched = {"rxe1"};
  v.window->unwatched = {{"rxe0", "ibv_open_device(dev=rxe0): Permission denied"}};
  v.window->events = {{"rxe0", 100, "PORT_ERR", 1}};  // not to be read: not watched
  Result r = RunOnView(LinkHealthCheck(), v, DefaultPlan());
  EXPECT_THAT(r.notes, Contains(HasSubstr("rxe0's port events were not watched: ibv_open_device")));
}

TEST(LinkHealth, ProfileWithoutWindowSkipsSayingHowToRecordOne) {
  Result r = RunOn(LinkHealthCheck(), "rxe_mtu9000.profile");
  EXPECT_EQ(r.verdict, Verdict::kSkip);
  EXPECT_THAT(r.skip_reason, HasSubstr("rdmacheck capture --window 2"));
  Result none = RunOn(LinkHealthCheck(), "no_device.profile");
  EXPECT_EQ(none.verdict, Verdict::kSkip);
}

TEST(LinkHealth, TableKnowsTheClasses) {
  ASSERT_NE(FindCounterKind("symbol_error"), nullptr);
  EXPECT_EQ(FindCounterKind("symbol_error")->cls, CounterClass::kPhysical);
  EXPECT_EQ(FindCounterKind("port_xmit_discards")->cls, CounterClass::kDiscard);
  EXPECT_EQ(FindCounterKind("retry_exceeded_err")->cls, CounterClass::kTransport);
  EXPECT_EQ(FindCounterKind("port_xmit_data"), nullptr);
  EXPECT_EQ(FindCounterKind("sent_pkts"), nullptr);
}

// What the session asks before it lets a window that ran beside its own
// probes stand: the counters link-health judges and the AER totals pcie
// does, nothing else.
TEST(LinkHealth, JudgedMovesAreTheJudgedCountersAndAer) {
  DeviceView v = QuietRxe();
  EXPECT_THAT(JudgedMoves(v), ::testing::IsEmpty());
  PortInfo& p = v.devices[0].ports[0];
  p.hw_counters_after["sent_pkts"] += 500;  // our own traffic: not judged
  p.hw_counters_after["rcvd_pkts"] += 500;
  EXPECT_THAT(JudgedMoves(v), ::testing::IsEmpty());
  p.hw_counters_after["duplicate_request"] += 2;
  EXPECT_THAT(JudgedMoves(v), ::testing::ElementsAre("rxe0 port 1 duplicate_request +2"));
  v.devices[1].aer = {{"correctable", 12}};
  v.devices[1].aer_after = {{"correctable", 11}};
  EXPECT_THAT(JudgedMoves(v), ::testing::ElementsAre("rxe0 port 1 duplicate_request +2", "rxe1 correctable went back"));
  // -i 2: port 1's counters are not link-health's to judge; AER still is.
  EXPECT_THAT(JudgedMoves(v, 2), ::testing::ElementsAre("rxe1 correctable went back"));
  EXPECT_THAT(JudgedMoves(v, 1), ::testing::ElementsAre("rxe0 port 1 duplicate_request +2", "rxe1 correctable went back"));
  v.window.reset();
  EXPECT_THAT(JudgedMoves(v), ::testing::IsEmpty()) << "no window, nothing moved over it";
}

TEST(LinkHealth, WindowNotesAndEarlierEventsAreShown) {
  DeviceView v = QuietRxe();
  v.window->notes.push_back("watched beside the checks");
  AsyncEventSeen e;
  e.device = "rxe0";
  e.port = 1;
  e.type = "PORT_ERR";
  e.at_ms = -1250;  // from a window before this one
  v.window->events.push_back(e);
  Result r = RunOnView(LinkHealthCheck(), v, DefaultPlan());
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.notes, Contains("watched beside the checks"));
  EXPECT_THAT(AllText(r), HasSubstr("link went down: PORT_ERR at -1.25 s"));
}

}  // namespace
}  // namespace rdmacheck
