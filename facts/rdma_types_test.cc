#include "facts/rdma_types.h"

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

TEST(RdmaTypes, MtuEnumRoundTrips) {
  struct Row { int e; int bytes; } rows[] = {{1, 256}, {2, 512}, {3, 1024}, {4, 2048}, {5, 4096}};
  for (const Row& r : rows) {
    EXPECT_EQ(IbMtuBytes(r.e), r.bytes);
    EXPECT_EQ(IbMtuEnum(r.bytes), r.e);
  }
  EXPECT_EQ(IbMtuBytes(0), std::nullopt);
  EXPECT_EQ(IbMtuBytes(6), std::nullopt);
  EXPECT_EQ(IbMtuEnum(1500), std::nullopt);
}

TEST(RdmaTypes, GidTypeSpellings) {
  EXPECT_EQ(ParseGidType("RoCE v2"), GidType::kRoceV2);
  EXPECT_EQ(ParseGidType("rocev2"), GidType::kRoceV2);
  EXPECT_EQ(ParseGidType("IB/RoCE v1"), GidType::kRoceV1);
  EXPECT_EQ(ParseGidType("IB"), GidType::kIb);
  EXPECT_EQ(ParseGidType("v3"), std::nullopt);
  EXPECT_EQ(GidTypeName(GidType::kRoceV2), "RoCEv2");
}

TEST(RdmaTypes, QpType) {
  EXPECT_EQ(ParseQpType("rc"), QpType::kRc);
  EXPECT_EQ(ParseQpType("UD"), QpType::kUd);
  EXPECT_EQ(ParseQpType("XRC"), std::nullopt);
  EXPECT_EQ(QpTypeName(QpType::kUc), "UC");
}

TEST(RdmaTypes, PortAndPhysStatesBothWays) {
  EXPECT_EQ(PortStateName(4), "ACTIVE");
  EXPECT_EQ(PortStateName(5), "ACTIVE_DEFER");
  EXPECT_EQ(PortStateName(6), std::nullopt);
  EXPECT_EQ(PortStateCode("DOWN"), 1);
  EXPECT_EQ(PortStateCode("NOP"), 0);
  EXPECT_EQ(PortStateCode("active"), std::nullopt);  // the spelling is exact
  EXPECT_EQ(PhysStateName(5), "LinkUp");
  EXPECT_EQ(PhysStateName(0), std::nullopt);
  EXPECT_EQ(PhysStateCode("Phy Test"), 7);
  EXPECT_EQ(PhysStateCode(""), std::nullopt);
}

TEST(RdmaTypes, HumanBytes) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(768 * 1024), "768 KiB");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(3ull << 30), "3 GiB");
}

}  // namespace
}  // namespace rdmacheck
