// The probe steps that need no device: layouts, the message and its check,
// the time left. The verbs steps run in the guest
// (probe_guest_test, ci/guest/scenarios/30-32 and 41-43).
#include "acts/probe/probe_steps.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/clock.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

TEST(LayOutWrs, ResolvesSgesSkipsOverGrantedAndSizesTheBuffers) {
  const std::vector<WrSpec> wrs = {
      {ProbeOp::kSend, 64, 1, 0},
      {ProbeOp::kRdmaWrite, 256, 0, kPage4K},  // num_sge 0: the granted 4
      {ProbeOp::kSend, 256, 5, kPage4K},       // over the granted 4: skipped
      {ProbeOp::kRdmaWrite, 512, 2, kPage2M},
  };
  std::vector<WrOutcome> out;
  ASSERT_OK_AND_ASSIGN(WrLayouts lay, LayOutWrs(wrs, 4, &out));
  ASSERT_EQ(out.size(), 4u);
  ASSERT_EQ(lay.layouts.size(), 4u);
  EXPECT_EQ(out[1].index, 1);
  EXPECT_EQ(out[1].num_sge, 4u);
  EXPECT_EQ(out[1].total_bytes, 1024u);
  EXPECT_EQ(out[2].skip_reason, "5 SGEs > granted max_send_sge 4");
  EXPECT_FALSE(lay.layouts[2].has_value());
  EXPECT_EQ(out[3].total_bytes, 1024u);
  EXPECT_EQ(lay.need_4k, 5 * kPage4K);      // (4 + 1) pages for 4 straddling SGEs
  EXPECT_EQ(lay.need_huge, 3 * kPage2M);    // (2 + 1) huge pages
  EXPECT_EQ(lay.need_recv, 4096u);          // never below a page
}

TEST(LayOutWrs, ALayoutTheWrCannotHaveIsTheError) {
  std::vector<WrOutcome> out;
  EXPECT_THAT(LayOutWrs({{ProbeOp::kSend, 1, 2, kPage4K}}, 4, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 byte")));
}

TEST(ProbeMessage, WrittenInTheSpansCheckedAtTheTarget) {
  ASSERT_OK_AND_ASSIGN(SgeLayout l, ComputeSgeLayout({ProbeOp::kSend, 256, 3, kPage4K}, 3));
  std::vector<uint8_t> src(l.buffer_bytes, 0);
  std::vector<ibv_sge> sges = WriteMessage(l, src.data(), 77, 5);
  ASSERT_EQ(sges.size(), 3u);
  EXPECT_EQ(sges[0].addr, reinterpret_cast<uintptr_t>(src.data() + l.sges[0].offset));
  EXPECT_EQ(sges[2].length, 256u);
  EXPECT_EQ(sges[1].lkey, 77u);
  // The spans, read in order, are the message.
  std::vector<uint8_t> got;
  for (const SgeSpan& s : l.sges) got.insert(got.end(), src.begin() + s.offset, src.begin() + s.offset + s.length);
  EXPECT_EQ(FirstMismatch(got.data(), 5, got.size()), std::nullopt);
  EXPECT_EQ(FirstMismatch(got.data(), 6, got.size()), 0u);  // another WR's message differs

  std::vector<uint8_t> dst(768);
  PrefillTarget(dst.data(), 5, dst.size());
  EXPECT_EQ(FirstMismatch(dst.data(), 5, dst.size()), 0u);  // nothing written: the first byte shows
  for (size_t k = 0; k < 300; ++k) dst[k] = got[k];
  EXPECT_EQ(FirstMismatch(dst.data(), 5, dst.size()), 300u);
  EXPECT_EQ(FirstMismatch(dst.data(), 5, 300), std::nullopt);
}

TEST(ProbePatternByte, DiffersAcrossWrsAndOffsetsAndFromThePrefill) {
  EXPECT_NE(ProbePatternByte(0, 0), ProbePatternByte(1, 0));
  EXPECT_NE(ProbePatternByte(0, 0), ProbePatternByte(0, 1));
  for (uint64_t k = 0; k < 512; ++k) EXPECT_NE(ProbePatternByte(3, k) ^ 0xa5, ProbePatternByte(3, k));
}

TEST(SecondsLeft, WhatIsLeftNeverBelowZero) {
  const double now = MonotonicSeconds();
  EXPECT_GT(SecondsLeft(2, now), 1.0);
  EXPECT_LE(SecondsLeft(2, now), 2.0);
  EXPECT_EQ(SecondsLeft(2, now - 5), 0.0);
}

}  // namespace
}  // namespace rdmacheck
