// Needs a real RDMA device (tag "guest"; the Soft-RoCE guest has rxe0 on veth
// va and rxe1 on vb). Without a device it SKIPs, unless RDMACHECK_GUEST=1
// (set by ci/guest/guest-main.sh) makes that a failure.
#include <cstdlib>
#include <cstring>
#include <memory>

#include "facts/gather.h"
#include "acts/live_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"
#include "verbs/context.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::IsOk;
using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

class LiveGuestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<verbs::DeviceList> list = verbs::DeviceList::Get();
    ASSERT_THAT(list, IsOk());
    if (list->empty()) {
      const char* g = std::getenv("RDMACHECK_GUEST");
      if (g != nullptr && std::strcmp(g, "1") == 0) {
        FAIL() << "RDMACHECK_GUEST=1 but libibverbs lists no device";
      }
      GTEST_SKIP() << "no RDMA device on this host (runs in the Soft-RoCE guest)";
    }
    name_ = list->Names()[0];
  }
  std::string name_;
};

TEST_F(LiveGuestTest, CreateQpReturnsGrantedCaps) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LiveDevice> dev, LiveDevice::Open(name_, nullptr));
  EXPECT_EQ(dev->Describe(), "live " + name_);
  QpRequest req;
  req.type = QpType::kRc;
  req.caps.max_send_wr = 100;
  req.caps.max_recv_wr = 100;
  req.caps.max_send_sge = 1;
  req.caps.max_recv_sge = 1;
  ASSERT_OK_AND_ASSIGN(QpCaps got, dev->CreateQp(req));
  EXPECT_GE(got.max_send_wr, 100u);
  EXPECT_GE(got.max_recv_wr, 100u);
  if (name_.rfind("rxe", 0) == 0) {
    // rxe: roundup_pow_of_two(n + 1) - 1 (kernel rxe_queue.c).
    EXPECT_EQ(got.max_send_wr, 127u);
    EXPECT_EQ(got.max_recv_wr, 127u);
  }
  // On kernel 6.1 rxe, ibv_create_qp writes back the request (100) and only
  // ibv_query_qp says 127 (measured in the guest); LiveDevice then says so.
  if (!dev->last_note().empty()) {
    EXPECT_THAT(dev->last_note(), HasSubstr("ibv_query_qp reports {max_send_wr=127"));
  }
  // And again: nothing leaked from the first call keeps the second from working.
  EXPECT_THAT(dev->CreateQp(req), IsOk());
}

TEST_F(LiveGuestTest, OverLimitIsInvalidArgumentWithTheCall) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LiveDevice> dev, LiveDevice::Open(name_, nullptr));
  GatherOptions o;
  o.only_device = name_;
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(o));
  std::optional<uint64_t> max_sge = v.devices[0].Attr("max_sge");
  ASSERT_TRUE(max_sge.has_value());
  QpRequest req;
  req.caps.max_send_wr = 16;
  req.caps.max_recv_wr = 1;
  req.caps.max_send_sge = static_cast<uint32_t>(*max_sge) + 1;
  req.caps.max_recv_sge = 1;
  EXPECT_THAT(dev->CreateQp(req),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ibv_create_qp(dev=" + name_ + " type=RC max_send_wr=16")));
}

TEST_F(LiveGuestTest, CreateCqGrantsAtLeastTheRequest) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<LiveDevice> dev, LiveDevice::Open(name_, nullptr));
  ASSERT_OK_AND_ASSIGN(uint32_t cqe, dev->CreateCq(100));
  EXPECT_GE(cqe, 100u);
  EXPECT_THAT(dev->CreateCq(0), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("ibv_create_cq(dev=" + name_ + " cqe=0")));
  QueueMemory m = dev->QpMemory(QpRequest{}, QpCaps{});
  EXPECT_EQ(m.basis, "no model");
  EXPECT_EQ(m.total(), 0u);
  EXPECT_EQ(dev->CqMemory(cqe), 0u);
}

TEST_F(LiveGuestTest, GatherWithVerbsFillsLimitsAndPort) {
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(GatherOptions{}));
  const DeviceInfo* d = v.Device(name_);
  ASSERT_NE(d, nullptr) << "sysfs and libibverbs disagree on device names";
  EXPECT_GT(d->Attr("max_qp_wr").value_or(0), 0u);
  EXPECT_GT(d->Attr("max_cqe").value_or(0), 0u);
  EXPECT_GE(d->Attr("phys_port_cnt").value_or(0), 1u);
  EXPECT_TRUE(d->uverbs.has_value());
  const PortInfo* p = d->Port(1);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->active_mtu.has_value());
  EXPECT_GE(*p->active_mtu, 256);
  EXPECT_LE(*p->active_mtu, 4096);
  EXPECT_TRUE(p->gid_tbl_len.has_value());
  EXPECT_TRUE(p->gids_known);
  EXPECT_FALSE(p->gids.empty());
  if (d->driver == "rxe") {
    ASSERT_TRUE(d->netdev.has_value());
    const NetdevInfo* n = v.Netdev(*d->netdev);
    ASSERT_NE(n, nullptr);
    EXPECT_TRUE(n->mtu.has_value());
    EXPECT_TRUE(n->addrs_known);
    for (const GidEntry& g : p->gids) EXPECT_EQ(g.type, GidType::kRoceV2) << g.gid;
    EXPECT_EQ(v.host.rxe_loaded, true);
  }
  EXPECT_EQ(v.host.sysfs_infiniband, true);
}

// The gather reads only the GID indices ibv_query_gid_table reports as valid;
// a gather without verbs scans every index sysfs lists. Both must see the
// same table (gid, type, netdev) on every port of every device.
TEST_F(LiveGuestTest, GidTableFromVerbsIndicesMatchesTheFullSysfsScan) {
  ASSERT_OK_AND_ASSIGN(DeviceView fast, GatherLive(GatherOptions{}));
  GatherOptions scan_opts;
  scan_opts.use_verbs = false;
  ASSERT_OK_AND_ASSIGN(DeviceView scan, GatherLive(scan_opts));
  ASSERT_EQ(fast.devices.size(), scan.devices.size());
  int compared = 0;
  for (const DeviceInfo& d : scan.devices) {
    const DeviceInfo* f = fast.Device(d.name);
    ASSERT_NE(f, nullptr) << d.name;
    for (const PortInfo& sp : d.ports) {
      const PortInfo* fp = f->Port(sp.port_num);
      ASSERT_NE(fp, nullptr) << d.name << " port " << sp.port_num;
      EXPECT_EQ(fp->gids_known, sp.gids_known);
      ASSERT_EQ(fp->gids.size(), sp.gids.size()) << d.name << " port " << sp.port_num;
      for (size_t i = 0; i < sp.gids.size(); ++i) {
        EXPECT_EQ(fp->gids[i].index, sp.gids[i].index);
        EXPECT_EQ(fp->gids[i].gid, sp.gids[i].gid);
        EXPECT_EQ(fp->gids[i].type, sp.gids[i].type);
        EXPECT_EQ(fp->gids[i].netdev, sp.gids[i].netdev);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace rdmacheck
