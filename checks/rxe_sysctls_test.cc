#include "checks/rxe_sysctls.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixturePlan;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOn;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST(FindLocalPairs, TheGuestPair) {
  std::vector<LocalPair> p = FindLocalPairs(FixtureProfile("rxe_mtu9000.profile"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].dev_a, "rxe0");
  EXPECT_EQ(p[0].netdev_b, "vb");
  EXPECT_EQ(p[0].subnet, "198.18.0.0/24");
  EXPECT_TRUE(FindLocalPairs(FixtureProfile("rxe_no_ip.profile")).empty());
}

TEST(RxeSysctls, PassesOnTheHealthyPair) {
  Result r = RunOn(RxeSysctlsCheck(), "rxe_mtu9000.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("{all,va}.accept_local", "-> 1", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("{all,vb}.rp_filter", "-> 0", Verdict::kPass)));
  EXPECT_TRUE(r.remediation.empty());
}

TEST(RxeSysctls, FailsWithAcceptLocalOff) {
  Result r = RunOn(RxeSysctlsCheck(), "rxe_accept_local_off.profile", "rxe_guest.plan");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("net.ipv4.conf.{all,va}.accept_local", "all=0 va=0 -> 0",
                                               Verdict::kFail)));
  ASSERT_EQ(r.remediation.size(), 3u);
  EXPECT_EQ(r.remediation[0], "sysctl -w net.ipv4.conf.va.accept_local=1 net.ipv4.conf.vb.accept_local=1");
  EXPECT_THAT(r.remediation[1], HasSubstr("'net.ipv4.conf.va.accept_local = 1'"));
  EXPECT_THAT(r.remediation[1], HasSubstr("/etc/sysctl.d/90-rdma-local.conf"));
  EXPECT_THAT(r.remediation[2], HasSubstr("sysctl net.ipv4.conf.all.rp_filter"));
  EXPECT_THAT(r.remediation[2], HasSubstr("net.ipv4.conf.va.rp_filter"));
}

TEST(RxeSysctls, RpFilterUsesTheMaxOfAllAndTheInterface) {
  struct Row {
    const char* all;
    const char* va;
    Verdict want;
    const char* actual;
  } rows[] = {
      {"0", "0", Verdict::kPass, "all=0 va=0 -> 0"},
      {"2", "0", Verdict::kFail, "all=2 va=0 -> 2"},  // Ubuntu's default all=2
      {"0", "1", Verdict::kFail, "all=0 va=1 -> 1"},
  };
  for (const Row& row : rows) {
    DeviceView v = FixtureProfile("rxe_mtu9000.profile");
    v.host.sysctls["net.ipv4.conf.all.rp_filter"] = row.all;
    v.host.sysctls["net.ipv4.conf.va.rp_filter"] = row.va;
    Result r = RunOnView(RxeSysctlsCheck(), v, FixturePlan("rxe_guest.plan"));
    EXPECT_EQ(r.verdict, row.want) << row.all << "/" << row.va << "\n" << AllText(r);
    EXPECT_THAT(r.evidence, Contains(EvidenceRow("{all,va}.rp_filter", row.actual, row.want)));
    if (row.want == Verdict::kFail) {
      EXPECT_THAT(r.remediation[0], HasSubstr("rp_filter=0"));
    }
  }
}

TEST(RxeSysctls, AcceptLocalOnAllIsEnough) {
  DeviceView v = FixtureProfile("rxe_accept_local_off.profile");
  v.host.sysctls["net.ipv4.conf.all.accept_local"] = "1";
  EXPECT_EQ(RunOnView(RxeSysctlsCheck(), v, FixturePlan("rxe_guest.plan")).verdict, Verdict::kPass);
}

TEST(RxeSysctls, ArpSettingsAreAdviceOnly) {
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  for (const char* s : {"all", "va", "vb"}) {
    v.host.sysctls[std::string("net.ipv4.conf.") + s + ".arp_ignore"] = "0";
    v.host.sysctls[std::string("net.ipv4.conf.") + s + ".arp_announce"] = "0";
  }
  Result r = RunOnView(RxeSysctlsCheck(), v, FixturePlan("rxe_guest.plan"));
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_THAT(AllText(r), HasSubstr("net.ipv4.conf.va.arp_ignore=1"));
  EXPECT_THAT(AllText(r), HasSubstr("net.ipv4.conf.vb.arp_announce=2"));
}

TEST(RxeSysctls, SkipsWithoutAPairOrFacts) {
  Result one = RunOn(RxeSysctlsCheck(), "rxe_old_kernel.profile");
  EXPECT_EQ(one.verdict, Verdict::kSkip);
  EXPECT_THAT(one.skip_reason, HasSubstr("one RDMA device"));
  Result noip = RunOn(RxeSysctlsCheck(), "rxe_no_ip.profile");
  EXPECT_EQ(noip.verdict, Verdict::kSkip);
  EXPECT_THAT(noip.skip_reason, HasSubstr("rxe0 on va no IPv4 address"));
  DeviceView v = FixtureProfile("rxe_mtu9000.profile");
  v.host.sysctls.clear();
  Result nos = RunOnView(RxeSysctlsCheck(), v, DefaultPlan());
  EXPECT_EQ(nos.verdict, Verdict::kSkip);
  EXPECT_THAT(nos.skip_reason, HasSubstr("accept_local"));
}

// RoCE over a VLAN (real capture): the pair is va.100/vb.100, and sysctl(8)
// names a dotted netdev with '/' (net.ipv4.conf.va/100.rp_filter; the dotted
// form is read as conf/va/100, measured: "cannot stat").
TEST(RxeSysctls, VlanPairIsJudgedOnTheVlansWithSysctlsSlashForm) {
  DeviceView v = FixtureProfile("rxe_vlan.profile");
  v.host.sysctls["net.ipv4.conf.va.100.rp_filter"] = "1";
  Result r = RunOnView(RxeSysctlsCheck(), v, FixturePlan("rxe_guest.plan"));
  EXPECT_EQ(r.verdict, Verdict::kFail) << AllText(r);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("{all,va.100}.rp_filter", "va.100=1 -> 1", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("{all,vb.100}.rp_filter", "-> 0", Verdict::kPass)));
  ASSERT_FALSE(r.remediation.empty());
  EXPECT_EQ(r.remediation[0], "sysctl -w net.ipv4.conf.va/100.rp_filter=0");
  EXPECT_THAT(r.remediation[1], HasSubstr("'net.ipv4.conf.va/100.rp_filter = 0'"));
}

}  // namespace
}  // namespace rdmacheck
