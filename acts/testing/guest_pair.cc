#include "acts/testing/guest_pair.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace rdmacheck::testing {

bool HaveRdmaDevice(const char* name) {
  return std::ifstream(std::string("/sys/class/infiniband/") + name + "/ports/1/state").good();
}

void GuestPairTest::SetUp() {
  if (HaveRdmaDevice("rxe0") && HaveRdmaDevice("rxe1")) return;
  const char* g = std::getenv("RDMACHECK_GUEST");
  if (g != nullptr && std::strcmp(g, "1") == 0) FAIL() << "RDMACHECK_GUEST=1 but rxe0/rxe1 are missing";
  GTEST_SKIP() << "needs rxe0 and rxe1 (the Soft-RoCE guest)";
}

}  // namespace rdmacheck::testing
