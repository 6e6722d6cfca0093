// The netdev facts of a gather on a fake tree laid out as the guest's
// kernel 6.1 lays out a VLAN and a bond (measured there; docs/guest.md):
// rxe0 on va with its addresses on va.100, rxe1 on bond0 (active-backup,
// slaves va1 and va2).
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "facts/gather.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;

class Tree {
 public:
  Tree() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = std::string(tmp ? tmp : "/tmp") + "/netdev_tree";
    EXPECT_EQ(system(("rm -rf " + root_ + " && mkdir -p " + root_).c_str()), 0);
  }
  void File(const std::string& rel, const std::string& text) {
    std::string path = root_ + "/" + rel;
    EXPECT_EQ(system(("mkdir -p " + path.substr(0, path.rfind('/'))).c_str()), 0);
    std::ofstream(path) << text;
  }
  void Link(const std::string& rel, const std::string& target) {
    std::string path = root_ + "/" + rel;
    EXPECT_EQ(system(("mkdir -p " + path.substr(0, path.rfind('/'))).c_str()), 0);
    EXPECT_EQ(symlink(target.c_str(), path.c_str()), 0) << path;
  }
  void Netdev(const std::string& name, int mtu, const std::string& devtype) {
    File("sys/class/net/" + name + "/mtu", std::to_string(mtu) + "\n");
    File("sys/class/net/" + name + "/operstate", "up\n");
    File("sys/class/net/" + name + "/uevent",
         (devtype.empty() ? "" : "DEVTYPE=" + devtype + "\n") + "INTERFACE=" + name + "\n");
  }
  void Rxe(const std::string& dev, const std::string& parent,
           const std::vector<std::pair<std::string, std::string>>& gids) {
    std::string d = "sys/class/infiniband/" + dev;
    File(d + "/parent", parent + "\n");
    File(d + "/node_type", "1: CA\n");
    File(d + "/ports/1/state", "4: ACTIVE\n");
    File(d + "/ports/1/link_layer", "Ethernet\n");
    for (size_t i = 0; i < gids.size(); ++i) {
      File(d + "/ports/1/gids/" + std::to_string(i), gids[i].first + "\n");
      File(d + "/ports/1/gid_attrs/types/" + std::to_string(i), "RoCE v2\n");
      File(d + "/ports/1/gid_attrs/ndevs/" + std::to_string(i), gids[i].second + "\n");
    }
  }
  GatherOptions Options() const {
    GatherOptions o;
    o.sysfs_root = root_ + "/sys";
    o.proc_root = root_ + "/proc";
    o.dev_root = root_ + "/dev";
    o.root = root_;
    o.use_verbs = false;
    o.live_host = false;
    return o;
  }

 private:
  std::string root_;
};

DeviceView VlanAndBond() {
  Tree t;
  t.Netdev("va", 9000, "");
  t.Link("sys/class/net/va/upper_va.100", "../va.100");
  t.Netdev("va.100", 1500, "vlan");
  t.Link("sys/class/net/va.100/lower_va", "../va");
  // net/8021q/vlanproc.c, as the guest printed it.
  t.File("proc/net/vlan/va.100",
         "va.100  VID: 100\t REORDER_HDR: 1  dev->priv_flags: 81021\n"
         "         total frames received            7\n");
  t.Rxe("rxe0", "va",
        {{"fe80:0000:0000:0000:d856:56ff:fe30:6368", "va"},
         {"0000:0000:0000:0000:0000:ffff:c612:0101", "va.100"},
         {"fe80:0000:0000:0000:d856:56ff:fe30:6368", "va.100"}});

  t.Netdev("bond0", 9000, "bond");
  t.File("sys/class/net/bond0/bonding/mode", "active-backup 1\n");
  t.File("sys/class/net/bond0/bonding/active_slave", "va2\n");
  t.File("sys/class/net/bond0/bonding/mii_status", "up\n");
  t.Link("sys/class/net/bond0/lower_va1", "../va1");
  t.Link("sys/class/net/bond0/lower_va2", "../va2");
  for (const char* s : {"va1", "va2"}) {
    t.Netdev(s, 9000, "");
    t.Link(std::string("sys/class/net/") + s + "/master", "../bond0");
    t.Link(std::string("sys/class/net/") + s + "/upper_bond0", "../bond0");
  }
  t.File("sys/class/net/va1/bonding_slave/state", "backup\n");
  t.File("sys/class/net/va1/bonding_slave/mii_status", "down\n");
  t.File("sys/class/net/va1/bonding_slave/link_failure_count", "1\n");
  t.File("sys/class/net/va2/bonding_slave/state", "active\n");
  t.File("sys/class/net/va2/bonding_slave/mii_status", "up\n");
  t.File("sys/class/net/va2/bonding_slave/link_failure_count", "0\n");
  t.Rxe("rxe1", "bond0", {{"0000:0000:0000:0000:0000:ffff:c612:0201", "bond0"}});
  absl::StatusOr<DeviceView> v = GatherLive(t.Options());
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : DeviceView{};
}

TEST(GatherNetdevTest, VlanOverTheParentIsReadWithItsIdAndParent) {
  DeviceView v = VlanAndBond();
  const NetdevInfo* vlan = v.Netdev("va.100");
  ASSERT_NE(vlan, nullptr);
  EXPECT_EQ(vlan->kind, "vlan");
  EXPECT_TRUE(vlan->IsVlan());
  EXPECT_THAT(vlan->lower, ElementsAre("va"));
  EXPECT_EQ(vlan->vlan_id, 100);
  EXPECT_EQ(vlan->mtu, 1500);
  const NetdevInfo* va = v.Netdev("va");
  ASSERT_NE(va, nullptr);
  EXPECT_FALSE(va->kind.has_value()) << "a veth has no DEVTYPE";
  EXPECT_EQ(DescribeNetdev(v, "va.100"), "va.100 (VLAN 100 over va)");
  EXPECT_EQ(DescribeNetdev(v, "va"), "va");
  ASSERT_EQ(VlansOver(v, "va").size(), 1u);
  EXPECT_EQ(VlansOver(v, "va")[0]->name, "va.100");
  const DeviceInfo* rxe0 = v.Device("rxe0");
  ASSERT_NE(rxe0, nullptr);
  EXPECT_THAT(RoceNetdevs(*rxe0, rxe0->ports[0]), ElementsAre("va.100"))
      << "the addressed GID is on the VLAN, not on va";
}

TEST(GatherNetdevTest, BondAndItsSlavesAreRead) {
  DeviceView v = VlanAndBond();
  const NetdevInfo* bond = v.Netdev("bond0");
  ASSERT_NE(bond, nullptr);
  EXPECT_TRUE(bond->IsBond());
  EXPECT_EQ(bond->bond_mode, "active-backup 1");
  EXPECT_EQ(bond->bond_active_slave, "va2");
  EXPECT_EQ(bond->bond_mii_status, "up");
  EXPECT_THAT(bond->lower, ElementsAre("va1", "va2"));
  // The slaves are read although no GID names them.
  const NetdevInfo* va1 = v.Netdev("va1");
  ASSERT_NE(va1, nullptr);
  EXPECT_EQ(va1->master, "bond0");
  EXPECT_EQ(va1->slave_state, "backup");
  EXPECT_EQ(va1->slave_mii_status, "down");
  EXPECT_EQ(va1->link_failure_count, 1u);
  EXPECT_EQ(DescribeNetdev(v, "bond0"), "bond0 (bond)");
}

TEST(GatherNetdevTest, VlanIdNeedsProcfs) {
  Tree t;
  t.Netdev("eth0", 1500, "");
  t.Netdev("eth0.7", 1500, "vlan");
  t.Link("sys/class/net/eth0.7/lower_eth0", "../eth0");
  t.Rxe("rxe0", "eth0", {{"0000:0000:0000:0000:0000:ffff:c612:0701", "eth0.7"}});
  ASSERT_OK_AND_ASSIGN(DeviceView v, GatherLive(t.Options()));
  const NetdevInfo* vlan = v.Netdev("eth0.7");
  ASSERT_NE(vlan, nullptr);
  EXPECT_FALSE(vlan->vlan_id.has_value()) << "no /proc/net/vlan (not root): no id, not a guess";
  EXPECT_EQ(DescribeNetdev(v, "eth0.7"), "eth0.7 (VLAN over eth0)");
}

}  // namespace
}  // namespace rdmacheck
