#include "tools/peer/peer_match.h"

#include "checks/check_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::AllText;
using ::rdmacheck::testing::EvidenceRow;
using ::rdmacheck::testing::FixtureProfile;
using ::rdmacheck::testing::RunOnView;
using ::testing::Contains;
using ::testing::HasSubstr;

// The local end is rxe0 of `local`, the far end `remote_dev` of `remote`.
Result Compare(const std::string& local, const std::string& remote, const std::string& remote_dev,
               std::optional<int> gid_index = std::nullopt) {
  Options o;
  o.device = "rxe0";
  o.gid_index = gid_index;
  PeerMatchCheck c(FixtureProfile(remote), remote_dev, 1, "198.18.0.2");
  return RunOnView(c, FixtureProfile(local), Plan(), o);
}

TEST(PeerMatch, GuestPairAtOneMtuAgrees) {
  // rxe_mtu9000: both devices captured in the guest at netdev MTU 9000.
  Result r = Compare("rxe_mtu9000.profile", "rxe_mtu9000.profile", "rxe1");
  EXPECT_EQ(r.verdict, Verdict::kPass) << AllText(r);
  EXPECT_THAT(r.title, HasSubstr("rxe0 (this host) and rxe1 on 198.18.0.2 agree"));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("active_mtu (bytes)", "4096 / 4096", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev MTU (bytes), va on this host / vb on 198.18.0.2",
                                               "9000 / 9000", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("GID type (RoCE version), GID 1 ::ffff:198.18.0.1 / GID 1 ::ffff:198.18.0.2",
                                               "RoCEv2 / RoCEv2", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("IPv4 subnet of the GIDs, 198.18.0.1 / 198.18.0.2",
                                               "198.18.0.0/24 / 198.18.0.0/24", Verdict::kPass)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("link layer", "Ethernet / Ethernet", Verdict::kPass)));
  EXPECT_TRUE(r.remediation.empty());
}

TEST(PeerMatch, NetdevMtusDifferFailNamingBothValues) {
  Result r = Compare("rxe_mtu9000.profile", "rxe_mtu1500.profile", "rxe1");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("active_mtu (bytes), rxe0 port 1 (this host) / rxe1 port 1 (198.18.0.2)",
                                               "4096 / 1024", Verdict::kFail)));
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("netdev MTU (bytes)", "9000 / 1500", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("ip link set dev vb mtu 9000   # on 198.18.0.2")));
  EXPECT_THAT(r.remediation.back(), HasSubstr("ibv_devinfo -d rxe1 | grep active_mtu"));
}

TEST(PeerMatch, RoceV1OnlyPeerFailsOnGidType) {
  // mlx4_cx3: a ConnectX-3 with RoCE v1 GIDs only, on 192.168.40.0/24.
  Result r = Compare("rxe_mtu1500.profile", "mlx4_cx3.profile", "mlx4_0");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("GID type (RoCE version)", "RoCEv2 / RoCEv1", Verdict::kFail)));
  EXPECT_THAT(r.remediation, Contains(HasSubstr("-x <index of a RoCEv1 GID>")));
}

TEST(PeerMatch, OtherSubnetWarns) {
  // mlx5_cx6: RoCE v2 GID 3 ::ffff:10.10.1.17; the subnet comes from its netdev.
  Result r = Compare("rxe_mtu1500.profile", "mlx5_cx6.profile", "mlx5_0");
  EXPECT_THAT(r.evidence, Contains(EvidenceRow("IPv4 subnet of the GIDs, 198.18.0.1 / 10.10.1.17", "198.18.0.0/24 / ",
                                               Verdict::kWarn)));
}

TEST(PeerMatch, MissingRemoteDeviceCouldNotRun) {
  Result r = Compare("rxe_mtu9000.profile", "rxe_mtu9000.profile", "mlx5_9");
  EXPECT_EQ(r.verdict, Verdict::kWarn);
  EXPECT_THAT(AllText(r) + r.skip_reason, HasSubstr("198.18.0.2 reported no RDMA device named mlx5_9"));
}

TEST(SubnetHelpers, Ipv4OfGidAndSubnetOf) {
  EXPECT_EQ(Ipv4OfGid("::ffff:198.18.0.1"), "198.18.0.1");
  EXPECT_EQ(Ipv4OfGid("fe80::1"), std::nullopt);
  EXPECT_EQ(SubnetOf("198.18.0.1", {"fe80::1/64", "198.18.0.1/24"}), "198.18.0.0/24");
  EXPECT_EQ(SubnetOf("10.1.2.3", {"10.1.2.3/8"}), "10.0.0.0/8");
  EXPECT_EQ(SubnetOf("198.18.0.9", {"198.18.0.1/24"}), std::nullopt);
}

}  // namespace
}  // namespace rdmacheck
