#include "acts/driver_model.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

DeviceInfo Dev(const std::string& name, const std::string& driver,
               std::map<std::string, uint64_t> attrs) {
  DeviceInfo d;
  d.name = name;
  d.driver = driver;
  d.attrs = std::move(attrs);
  return d;
}

// rxe on Debian 12 (kernel 6.1): rxe_param.h limits.
DeviceInfo Rxe61() {
  return Dev("rxe0", "rxe",
             {{"max_qp_wr", 1048576}, {"max_sge", 32}, {"max_cqe", 32767}});
}
// rxe before 5.x's limit raise: the notes' "older kernels" row.
DeviceInfo RxeOld() {
  return Dev("rxe0", "rxe",
             {{"max_qp_wr", 16384},
              {"max_sge", 32},
              {"max_cqe", 32767},
              {"max_inline_data", 400}});
}
DeviceInfo Mlx5() {
  return Dev("mlx5_0", "mlx5",
             {{"max_qp_wr", 32768}, {"max_sge", 30}, {"max_cqe", 4194303}});
}
DeviceInfo Mlx4() {
  return Dev("mlx4_0", "mlx4",
             {{"max_qp_wr", 16351}, {"max_sge", 32}, {"max_cqe", 4194303}});
}

QpRequest Req(QpType t, uint32_t swr, uint32_t rwr, uint32_t ssge, uint32_t rsge,
              uint32_t inl, bool srq = false) {
  QpRequest r;
  r.type = t;
  r.caps = {swr, rwr, ssge, rsge, inl};
  r.with_srq = srq;
  return r;
}

QpCaps Caps(uint32_t swr, uint32_t rwr, uint32_t ssge, uint32_t rsge, uint32_t inl) {
  return QpCaps{swr, rwr, ssge, rsge, inl};
}

TEST(MakeDriverModel, PicksModelByDriver) {
  EXPECT_THAT(MakeDriverModel(Rxe61())->Describe(), HasSubstr("rxe model"));
  EXPECT_THAT(MakeDriverModel(Mlx5())->Describe(), HasSubstr("mlx5 model"));
  EXPECT_THAT(MakeDriverModel(Mlx4())->Describe(), HasSubstr("mlx4 model"));
  EXPECT_THAT(MakeDriverModel(Dev("siw0", "siw", {}))->Describe(),
              HasSubstr("generic model"));
  DeviceInfo nodriver;
  nodriver.name = "x";
  EXPECT_THAT(MakeDriverModel(nodriver)->Describe(), HasSubstr("generic model"));
}

TEST(MakeDriverModel, DescribeNamesMissingLimits) {
  std::string d = MakeDriverModel(Dev("rxe0", "rxe", {{"max_qp_wr", 16384}}))->Describe();
  EXPECT_THAT(d, HasSubstr("max_qp_wr=16384 (profile)"));
  EXPECT_THAT(d, HasSubstr("max_sge not in profile: not checked"));
  EXPECT_THAT(d, HasSubstr("max_inline_data=512 (rxe_param.h 6.1 default"));
}

// ---- rxe ------------------------------------------------------------------

struct RxeDepthRow {
  uint32_t ask;
  uint32_t granted;
};

TEST(RxeModel, RoundsDepthToPowerOfTwoMinusOne) {
  // rxe_queue_init: slots = roundup_pow_of_two(n + 1), reports slots - 1.
  const RxeDepthRow rows[] = {{1, 1},     {2, 3},     {3, 3},     {100, 127},
                              {127, 127}, {128, 255}, {1024, 2047}, {0, 0}};
  auto m = MakeDriverModel(Rxe61());
  for (const RxeDepthRow& row : rows) {
    ASSERT_OK_AND_ASSIGN(QpCaps g,
                         m->CreateQp(Req(QpType::kRc, row.ask, row.ask, 1, 1, 0)));
    EXPECT_EQ(g.max_send_wr, row.granted) << "ask " << row.ask;
    EXPECT_EQ(g.max_recv_wr, row.granted) << "ask " << row.ask;
    EXPECT_EQ(g.max_recv_sge, 1u);
  }
}

TEST(RxeModel, SendPayloadIsMaxOfSgesAndInline) {
  auto m = MakeDriverModel(Rxe61());
  struct Row {
    uint32_t sge, inl, want_sge, want_inl;
  } rows[] = {
      {1, 0, 1, 16},     // 1 x 16 B: the SGE list doubles as 16 B of inline
      {8, 0, 8, 128},    // configuration B's 8 SGEs: 128 B of inline for free
      {2, 100, 6, 100},  // inline 100 B wins: 100 / 16 = 6 SGEs fit
      {0, 0, 0, 0},
      {0, 512, 32, 512},  // the 6.1 inline limit: room for 32 SGEs
      {32, 0, 32, 512},
  };
  for (const Row& r : rows) {
    ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kRc, 16, 16, r.sge, 1, r.inl)));
    EXPECT_EQ(g.max_send_sge, r.want_sge) << r.sge << "/" << r.inl;
    EXPECT_EQ(g.max_inline_data, r.want_inl) << r.sge << "/" << r.inl;
  }
}

TEST(RxeModel, Kernel61ReportsRequestedDepth) {
  // Before v6.5 rxe_qp_init_req/resp did not write max_send_wr/max_recv_wr
  // back; the queues are still 128 slots.
  DriverModelOptions o;
  o.kernel_release = "6.1.0-18-amd64";
  auto m = MakeDriverModel(Rxe61(), o);
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kRc, 100, 100, 2, 1, 0)));
  EXPECT_EQ(g, Caps(100, 100, 2, 1, 32));
  EXPECT_THAT(m->Describe(), HasSubstr("as requested (kernel < 6.5)"));
  QueueMemory mem = m->QpMemory(Req(QpType::kRc, 100, 100, 2, 1, 0), g);
  EXPECT_THAT(mem.basis, HasSubstr("send queue 128 slots"));
}

TEST(RxeModel, KernelReleaseParsing) {
  EXPECT_FALSE(RxeCreateReportsRoundedDepth("6.1.0-18-amd64"));
  EXPECT_FALSE(RxeCreateReportsRoundedDepth("5.15.0-91-generic"));
  EXPECT_FALSE(RxeCreateReportsRoundedDepth("6.4.15"));
  EXPECT_TRUE(RxeCreateReportsRoundedDepth("6.4.16"));
  EXPECT_TRUE(RxeCreateReportsRoundedDepth("6.5.0"));
  EXPECT_TRUE(RxeCreateReportsRoundedDepth("6.18.44-fc"));
  EXPECT_TRUE(RxeCreateReportsRoundedDepth("7.0"));
  EXPECT_TRUE(RxeCreateReportsRoundedDepth("garbage"));
}

TEST(RxeModel, OldKernelLimitsRejectNamingTheField) {
  auto m = MakeDriverModel(RxeOld());
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 65536, 16, 1, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("ibv_create_qp(dev=rxe0 type=RC max_send_wr=65536"),
                             HasSubstr("max_send_wr 65536 > max_qp_wr 16384"))));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16, 16384 + 1, 1, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_recv_wr 16385 > max_qp_wr 16384")));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16, 16, 33, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_send_sge 33 > max_sge 32")));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16, 16, 1, 33, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_recv_sge 33 > max_sge 32")));
  // "rdma_rxe: invalid max inline data = 512 > 400" in old kernels' log.
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16, 16, 1, 1, 512)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_inline_data 512 > rxe max_inline_data 400")));
  // rxe_qp_chk_cap checks max_send_wr first.
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 65536, 65536, 99, 99, 999)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_send_wr")));
  // Exactly at the limit is fine.
  EXPECT_OK(m->CreateQp(Req(QpType::kRc, 16384, 16384, 32, 32, 400)));
}

TEST(RxeModel, Kernel61InlineLimitIs512) {
  auto m = MakeDriverModel(Rxe61());
  EXPECT_OK(m->CreateQp(Req(QpType::kRc, 16, 16, 1, 1, 512)));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16, 16, 1, 1, 513)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_inline_data 513 > rxe max_inline_data 512")));
}

TEST(RxeModel, SrqLeavesReceiveCapsUncheckedAndTheQpWithoutAReceiveQueue) {
  // Measured in the guest (model_grid, kernel 6.1): a QP on an SRQ reports
  // max_recv_wr 0 and max_recv_sge 0, whatever was asked for them.
  auto m = MakeDriverModel(RxeOld());
  ASSERT_OK_AND_ASSIGN(QpCaps g,
                       m->CreateQp(Req(QpType::kRc, 100, 99999, 1, 77, 0, true)));
  EXPECT_EQ(g.max_recv_wr, 0u);
  EXPECT_EQ(g.max_recv_sge, 0u);
  QueueMemory mem = m->QpMemory(Req(QpType::kRc, 100, 99999, 1, 77, 0, true), g);
  EXPECT_EQ(mem.rq_bytes, 0u);
}

TEST(RxeModel, QueueBytesFromWqeStructs) {
  // Send: rxe_send_wqe 208 + 8 x 16 = 336 -> 512 B elements; 4096 WRs ->
  // 8192 slots; 384 + 8192 x 512 = 4194688 B -> 1025 pages = 4198400 B.
  // Receive: rxe_recv_wqe 40 + 16 = 56 -> 64 B; 384 + 8192 x 64 = 524672 B
  // -> 129 pages = 528384 B.
  auto m = MakeDriverModel(Rxe61());
  QpRequest r = Req(QpType::kRc, 4096, 4096, 8, 1, 0);
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(r));
  EXPECT_EQ(g, Caps(8191, 8191, 8, 1, 128));
  QueueMemory mem = m->QpMemory(r, g);
  EXPECT_EQ(mem.sq_bytes, 4198400u);
  EXPECT_EQ(mem.rq_bytes, 528384u);
  EXPECT_EQ(mem.context_bytes, 4096u);
  EXPECT_THAT(mem.basis, HasSubstr("8192 slots x 512 B"));
  EXPECT_THAT(mem.basis, HasSubstr("= 4194688 B"));
  EXPECT_THAT(mem.basis, HasSubstr("not measured"));
}

TEST(RxeModel, SmallSendElementPadsToCacheLineThenPowerOfTwo) {
  // 208 + 0 -> 256 B; one WR -> 2 slots: 384 + 512 = 896 B -> one page.
  auto m = MakeDriverModel(Rxe61());
  QpRequest r = Req(QpType::kUd, 1, 1, 0, 0, 0);
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(r));
  QueueMemory mem = m->QpMemory(r, g);
  EXPECT_EQ(mem.sq_bytes, 4096u);
  EXPECT_THAT(mem.basis, HasSubstr("2 slots x 256 B"));
  EXPECT_THAT(mem.basis, HasSubstr("2 slots x 64 B"));
}

TEST(RxeModel, Cq) {
  auto m = MakeDriverModel(Rxe61());
  EXPECT_THAT(m->CreateCq(100), ::testing::Eq(absl::StatusOr<uint32_t>(127)));
  EXPECT_THAT(m->CreateCq(32767), ::testing::Eq(absl::StatusOr<uint32_t>(32767)));
  EXPECT_THAT(m->CreateCq(1), ::testing::Eq(absl::StatusOr<uint32_t>(1)));
  EXPECT_THAT(m->CreateCq(0), StatusIs(absl::StatusCode::kInvalidArgument,
                                       AllOf(HasSubstr("ibv_create_cq(dev=rxe0 cqe=0)"),
                                             HasSubstr("cqe 0 <= 0"))));
  EXPECT_THAT(m->CreateCq(32768),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cqe 32768 > max_cqe 32767")));
  // 128 slots x 128 B (rxe_cqe padded) + 384 = 16768 B -> 5 pages.
  EXPECT_EQ(m->CqMemory(127), 20480u);
}

// ---- generic -----------------------------------------------------------------

TEST(GenericModel, WorkedExample) {
  // docs/driver-models.md, generic: max_send_wr=4096, max_send_sge=8,
  // max_recv_wr=4096, max_recv_sge=1 -> send 4096 x 192 = 768 KiB, receive
  // 4096 x 80 = 320 KiB.
  auto m = MakeGenericModel(Dev("x0", "siw", {}));
  QpRequest r = Req(QpType::kRc, 4096, 4096, 8, 1, 0);
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(r));
  EXPECT_EQ(g, r.caps);
  QueueMemory mem = m->QpMemory(r, g);
  EXPECT_EQ(mem.sq_bytes, 786432u);
  EXPECT_EQ(mem.rq_bytes, 327680u);
  EXPECT_EQ(mem.context_bytes, 786432u + 327680u);
  EXPECT_THAT(mem.basis, HasSubstr("generic model (assumption, not a driver fact"));
  EXPECT_EQ(m->CqMemory(1000), 64000u);
  EXPECT_THAT(m->Describe(), HasSubstr("max_qp_wr not in profile: not checked"));
}

TEST(GenericModel, ChecksProfileLimits) {
  auto m = MakeGenericModel(Dev("x0", "", {{"max_qp_wr", 100}, {"max_sge", 4},
                                           {"max_cqe", 50}}));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 101, 1, 1, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_send_wr 101 > max_qp_wr 100")));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 1, 1, 1, 5, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_recv_sge 5 > max_sge 4")));
  EXPECT_OK(m->CreateQp(Req(QpType::kRc, 1, 500, 1, 5, 0, true)));
  EXPECT_THAT(m->CreateCq(51), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("cqe 51 > max_cqe 50")));
  EXPECT_THAT(m->CreateCq(50), ::testing::Eq(absl::StatusOr<uint32_t>(50)));
}

// ---- mlx5 ---------------------------------------------------------------------

TEST(Mlx5Model, RcHandComputed) {
  // RC overhead without send_ops_flags: the bind-MW WQE, 16 + 48 + 64 + 64 =
  // 192 B. One SGE: 192 + 16 = 208 -> 256 B WQE. 100 x 256 = 25600 ->
  // roundup_pow_of_two 32768 B -> max_post 32768 / 256 = 128. Inline:
  // 256 - 192 - 4 = 60. RQ: 16 B WQE, roundup_pow_of_two(100) = 128 entries.
  auto m = MakeDriverModel(Mlx5());
  QpRequest r = Req(QpType::kRc, 100, 100, 1, 1, 0);
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(r));
  EXPECT_EQ(g, Caps(128, 128, 1, 1, 60));
  QueueMemory mem = m->QpMemory(r, g);
  EXPECT_EQ(mem.sq_bytes, 32768u);
  EXPECT_EQ(mem.rq_bytes, 2048u);
  // 512 basic blocks x 16 B + 128 x 8 B of wrid arrays.
  EXPECT_EQ(mem.context_bytes, 9216u);
}

TEST(Mlx5Model, UdHasSmallerOverhead) {
  // UD: 16 + 48 = 64 B overhead, + 16 = 80 -> 128 B; inline 128 - 68 = 60.
  auto m = MakeDriverModel(Mlx5());
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kUd, 1, 1, 1, 1, 0)));
  // RQ of one 16 B entry is at least one 64 B block: 4 entries.
  EXPECT_EQ(g, Caps(1, 4, 1, 1, 60));
}

TEST(Mlx5Model, InlineLimitFromDescriptorSize) {
  // 192 + align(4 + 828, 16) = 1024 = max_sq_desc_sz: fits exactly.
  auto m = MakeDriverModel(Mlx5());
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kRc, 16, 16, 1, 1, 828)));
  EXPECT_EQ(g.max_inline_data, 828u);
  EXPECT_EQ(g.max_send_wr, 16u);  // 16 x 1024 is a power of two
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16, 16, 1, 1, 829)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_inline_data 829 needs a 1040-byte WQE > "
                                 "max_sq_desc_sz 1024")));
}

TEST(Mlx5Model, SendSgeLimitIsGatherEntriesThatFit) {
  // (1024 - 192) / 16 = 52: the provider accepts more than max_sge 30.
  auto m = MakeDriverModel(Mlx5());
  EXPECT_OK(m->CreateQp(Req(QpType::kRc, 16, 16, 52, 1, 0)));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16, 16, 53, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_send_sge 53 > 52 gather entries")));
}

TEST(Mlx5Model, SendDepthLimitedByBasicBlocks) {
  // 256 B WQEs: 8192 x 256 = 2 MiB = 32768 blocks = max_qp_wr: fits.
  // 8193 -> roundup to 4 MiB = 65536 blocks: EINVAL although 8193 < 32768.
  auto m = MakeDriverModel(Mlx5());
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kRc, 8192, 1, 1, 1, 0)));
  EXPECT_EQ(g.max_send_wr, 8192u);
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 8193, 1, 1, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_send_wr 8193 needs 65536 64-byte basic "
                                 "blocks (256-byte WQEs) > max_qp_wr 32768")));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 1, 32769, 1, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_recv_wr 32769 > max_qp_wr 32768")));
}

TEST(Mlx5Model, ZeroDepthsAndSrq) {
  auto m = MakeDriverModel(Mlx5());
  // No SQ: caps left as asked (no inline recompute, no SGE check).
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kRc, 0, 8, 60, 3, 7)));
  EXPECT_EQ(g, Caps(0, 8, 60, 4, 7));
  // With an SRQ the receive caps come back as 0.
  ASSERT_OK_AND_ASSIGN(g, m->CreateQp(Req(QpType::kRc, 4, 8, 1, 3, 0, true)));
  EXPECT_EQ(g.max_recv_wr, 0u);
  EXPECT_EQ(g.max_recv_sge, 0u);
}

TEST(Mlx5Model, Cq) {
  auto m = MakeDriverModel(Mlx5());
  EXPECT_THAT(m->CreateCq(100), ::testing::Eq(absl::StatusOr<uint32_t>(127)));
  EXPECT_THAT(m->CreateCq(4194303), ::testing::Eq(absl::StatusOr<uint32_t>(4194303)));
  EXPECT_THAT(m->CreateCq(4194304), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("cqe 4194304 > max_cqe")));
  EXPECT_THAT(m->CreateCq(0), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("cqe 0")));
  EXPECT_EQ(m->CqMemory(127), 128u * 64);
}

// ---- mlx4 ---------------------------------------------------------------------

TEST(Mlx4Model, RcHandComputed) {
  // RC, 1 SGE, no inline: max(16 + 16, atomic 48) = 48, + ctrl 16 = 64 B
  // stride; spare = 2048 / 64 + 1 = 33; 100 + 33 -> 256 WQEs -> reported
  // 223. SGEs: (64 - 16 - 16) / 16 = 2; inline 32 - 4 = 28. RQ: 128 x 16 B.
  auto m = MakeDriverModel(Mlx4());
  QpRequest r = Req(QpType::kRc, 100, 100, 1, 1, 0);
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(r));
  EXPECT_EQ(g, Caps(223, 128, 2, 1, 28));
  QueueMemory mem = m->QpMemory(r, g);
  EXPECT_EQ(mem.sq_bytes, 256u * 64);
  EXPECT_EQ(mem.rq_bytes, 128u * 16);
  EXPECT_EQ(mem.context_bytes, (256u + 128u) * 8);
}

TEST(Mlx4Model, LimitsAtMaxQpWr16351) {
  auto m = MakeDriverModel(Mlx4());
  // 16351 + 33 spare = 16384 WQEs: exactly the kernel's max_wqes.
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kRc, 16351, 1, 1, 1, 0)));
  EXPECT_EQ(g.max_send_wr, 16351u);
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 16352, 1, 1, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("dev=mlx4_0"),
                             HasSubstr("max_send_wr 16352 > max_qp_wr 16351"))));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 1, 16352, 1, 1, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_recv_wr 16352 > max_qp_wr 16351")));
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 1, 1, 1, 1, 1025)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_inline_data 1025 > 1024")));
}

TEST(Mlx4Model, InlineSizesTheStride) {
  // Inline 400 on RC: (400 + 32 + 59) / 60 = 8 segments; align(432, 16) / 16 =
  // 27 SGEs; 27 x 16 + 16 + 16 = 464 -> 512 B stride, spare 5; 100 + 5 ->
  // 128 WQEs -> 123. Space 512 - 32 = 480: 30 SGEs, inline 480 - 8 x 4 = 448.
  auto m = MakeDriverModel(Mlx4());
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kRc, 100, 1, 1, 1, 400)));
  EXPECT_EQ(g, Caps(123, 1, 30, 1, 448));
  // Inline 1024 needs a 2048 B stride > max_sq_desc_sz 1008 (kernel check).
  EXPECT_THAT(m->CreateQp(Req(QpType::kRc, 1, 1, 1, 1, 1024)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("2048-byte send WQE stride > max_sq_desc_sz 1008")));
}

TEST(Mlx4Model, UdAndReceiveRounding) {
  // UD: 16 + 48 = 64, + 16 = 80 -> 128 B stride, spare 17; 1 + 17 -> 32 ->
  // 15. Space 128 - 64 = 64: 4 SGEs, inline 60. RQ: 0 -> 1, sge 3 -> 4.
  auto m = MakeDriverModel(Mlx4());
  ASSERT_OK_AND_ASSIGN(QpCaps g, m->CreateQp(Req(QpType::kUd, 1, 0, 1, 3, 0)));
  EXPECT_EQ(g, Caps(15, 1, 4, 4, 60));
  ASSERT_OK_AND_ASSIGN(g, m->CreateQp(Req(QpType::kRc, 1, 50, 1, 3, 0, true)));
  EXPECT_EQ(g.max_recv_wr, 0u);
  EXPECT_EQ(g.max_recv_sge, 0u);
}

TEST(Mlx4Model, Cq) {
  auto m = MakeDriverModel(Mlx4());
  EXPECT_THAT(m->CreateCq(100), ::testing::Eq(absl::StatusOr<uint32_t>(127)));
  EXPECT_THAT(m->CreateCq(0x400000), StatusIs(absl::StatusCode::kInvalidArgument,
                                              HasSubstr("> 0x3fffff")));
  EXPECT_THAT(m->CreateCq(0), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("cqe 0 < 1")));
  EXPECT_EQ(m->CqMemory(127), 128u * 32);
}

}  // namespace
}  // namespace rdmacheck
