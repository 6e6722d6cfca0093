// ParsePlan on any bytes.
#include "fuzz/fuzz_util.h"
#include "plan/plan_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)rdmacheck::ParsePlan(rdmacheck::fuzz::Text(data, size), "fuzz.plan");
  return 0;
}
