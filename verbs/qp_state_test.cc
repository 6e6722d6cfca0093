#include "verbs/qp_state.h"

#include <infiniband/verbs.h>

#include "gtest/gtest.h"

namespace rdmacheck::verbs {
namespace {

TEST(QpStateNameTest, NamesEveryStateAndUnknown) {
  struct Case {
    int state;
    const char* want;
  };
  const Case cases[] = {
      {IBV_QPS_RESET, "RESET"}, {IBV_QPS_INIT, "INIT"}, {IBV_QPS_RTR, "RTR"}, {IBV_QPS_RTS, "RTS"},
      {IBV_QPS_SQD, "SQD"},     {IBV_QPS_SQE, "SQE"},   {IBV_QPS_ERR, "ERR"}, {IBV_QPS_UNKNOWN, "UNKNOWN"},
      {-1, "UNKNOWN"},          {99, "UNKNOWN"},
  };
  for (const Case& c : cases) EXPECT_STREQ(QpStateName(c.state), c.want) << "state " << c.state;
}

}  // namespace
}  // namespace rdmacheck::verbs
