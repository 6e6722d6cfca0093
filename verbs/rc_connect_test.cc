#include "verbs/rc_connect.h"

#include <infiniband/verbs.h>

#include <string>

#include "gtest/gtest.h"

namespace rdmacheck::verbs {
namespace {

RcPath Path(RcCallNaming naming) {
  RcPath p;
  p.dev = "rxe0";
  p.port = 1;
  p.path_mtu = IBV_MTU_1024;
  p.dest_qpn = 18;
  p.dgid_text = "::ffff:198.18.0.2";
  p.sgid_index = 1;
  p.timeout = 14;
  p.retry_cnt = 5;
  p.rnr_retry = 3;
  p.naming = naming;
  return p;
}

// The texts tests and guest scenarios match: they must not drift.
TEST(RcModifyCallTest, TextsPerNamingAndState) {
  struct Case {
    RcCallNaming naming;
    ibv_qp_state to;
    std::string want;
  };
  const Case cases[] = {
      {RcCallNaming::kArguments, IBV_QPS_INIT, "ibv_modify_qp(dev=rxe0 state=INIT port=1)"},
      {RcCallNaming::kArguments, IBV_QPS_RTR,
       "ibv_modify_qp(dev=rxe0 state=RTR path_mtu=1024 dest_qpn=18 dgid=::ffff:198.18.0.2 sgid_index=1)"},
      {RcCallNaming::kArguments, IBV_QPS_RTS, "ibv_modify_qp(dev=rxe0 state=RTS timeout=14 retry_cnt=5 rnr_retry=3)"},
      {RcCallNaming::kQpNumber, IBV_QPS_INIT, "ibv_modify_qp(dev=rxe0 qp=17 state=INIT)"},
      {RcCallNaming::kQpNumber, IBV_QPS_RTR, "ibv_modify_qp(dev=rxe0 qp=17 state=RTR dest_qpn=18 sgid_index=1)"},
      {RcCallNaming::kQpNumber, IBV_QPS_RTS, "ibv_modify_qp(dev=rxe0 qp=17 state=RTS)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RcModifyCall(Path(c.naming), 17, c.to), c.want);
  }
}

TEST(RcModifyCallTest, PathMtuIsInBytes) {
  RcPath p = Path(RcCallNaming::kArguments);
  p.path_mtu = IBV_MTU_4096;
  EXPECT_NE(RcModifyCall(p, 1, IBV_QPS_RTR).find("path_mtu=4096 "), std::string::npos);
  p.path_mtu = IBV_MTU_256;
  EXPECT_NE(RcModifyCall(p, 1, IBV_QPS_RTR).find("path_mtu=256 "), std::string::npos);
}

}  // namespace
}  // namespace rdmacheck::verbs
