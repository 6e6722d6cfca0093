#include "acts/probe/sge_layout.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

TEST(SgeLayoutTest, EverySgeStraddlesItsOwn4KBoundary) {
  for (uint32_t n : {1u, 2u, 7u, 32u}) {
    WrSpec s{ProbeOp::kSend, 256, n, kPage4K};
    absl::StatusOr<SgeLayout> l = ComputeSgeLayout(s, n);
    ASSERT_TRUE(l.ok()) << l.status();
    ASSERT_EQ(l->sges.size(), n);
    EXPECT_EQ(l->total_bytes, 256u * n);
    EXPECT_EQ(l->buffer_bytes, (n + 1) * 4096ull);
    EXPECT_EQ(l->alignment, 4096u);
    EXPECT_EQ(l->sges[0].offset, 4096u - 128);
    EXPECT_EQ(CountCrossing(*l, 0, kPage4K), static_cast<int>(n));
    // Inside the buffer, no overlap.
    for (size_t i = 0; i < l->sges.size(); ++i) {
      EXPECT_LE(l->sges[i].offset + l->sges[i].length, l->buffer_bytes);
      if (i > 0) {
        EXPECT_GE(l->sges[i].offset, l->sges[i - 1].offset + l->sges[i - 1].length);
      }
    }
  }
}

TEST(SgeLayoutTest, TwoMegabyteBoundary) {
  WrSpec s{ProbeOp::kRdmaWrite, 4096, 3, kPage2M};
  ASSERT_OK_AND_ASSIGN(SgeLayout l, ComputeSgeLayout(s, 3));
  EXPECT_EQ(l.sges[1].offset, 2 * kPage2M - 2048);
  EXPECT_EQ(l.buffer_bytes, 4 * kPage2M);
  EXPECT_EQ(CountCrossing(l, 0, kPage2M), 3);
  // The same SGEs also cross a 4 KiB boundary (2 MiB is a multiple).
  EXPECT_EQ(CountCrossing(l, 0, kPage4K), 3);
}

TEST(SgeLayoutTest, MisalignedBaseIsCountedHonestly) {
  WrSpec s{ProbeOp::kSend, 256, 2, kPage4K};
  ASSERT_OK_AND_ASSIGN(SgeLayout l, ComputeSgeLayout(s, 2));
  // Base 0x100 shifts each SGE to [4096-128+256, ...): it no longer crosses.
  EXPECT_EQ(CountCrossing(l, 256, kPage4K), 0);
}

TEST(SgeLayoutTest, ContiguousSplitsTheMessage) {
  WrSpec s{ProbeOp::kSend, 1000, 3, 0};
  ASSERT_OK_AND_ASSIGN(SgeLayout l, ComputeSgeLayout(s, 3));
  ASSERT_EQ(l.sges.size(), 3u);
  EXPECT_EQ(l.sges[0].length, 333u);
  EXPECT_EQ(l.sges[2].length, 334u);
  EXPECT_EQ(l.sges[2].offset, 666u);
  EXPECT_EQ(l.total_bytes, 1000u);
  EXPECT_EQ(l.buffer_bytes, 4096u);
}

TEST(SgeLayoutTest, BadInput) {
  EXPECT_THAT(ComputeSgeLayout(WrSpec{ProbeOp::kSend, 256, 0, kPage4K}, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("num_sge=0")));
  EXPECT_THAT(ComputeSgeLayout(WrSpec{ProbeOp::kSend, 4096, 1, kPage4K}, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cannot straddle")));
  EXPECT_THAT(ComputeSgeLayout(WrSpec{ProbeOp::kSend, 2, 3, 0}, 3),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cannot fill 3 SGEs")));
}

}  // namespace
}  // namespace rdmacheck
