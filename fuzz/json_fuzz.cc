// The readers of tools' JSON output on any bytes: `rdma -j res show qp`
// (watch) and `tc -j qdisc show` (the gather).
#include "facts/qdisc.h"
#include "fuzz/fuzz_util.h"
#include "tools/watch/qp_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view t = rdmacheck::fuzz::Text(data, size);
  (void)rdmacheck::ParseRdmaQpJson(t, "rdma");
  (void)rdmacheck::ParseTcQdiscJson(t, "tc -j qdisc show");
  return 0;
}
