// ParseProfile on any bytes; what it accepts, written back, parses again.
#include "facts/profile.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<rdmacheck::DeviceView> v = rdmacheck::ParseProfile(rdmacheck::fuzz::Text(data, size), "fuzz.profile");
  if (!v.ok()) return 0;
  const std::string again = rdmacheck::WriteProfile(*v);
  absl::StatusOr<rdmacheck::DeviceView> w = rdmacheck::ParseProfile(again, "rewritten.profile");
  if (!w.ok()) rdmacheck::fuzz::Broken("a profile written back does not parse", w.status().message());
  return 0;
}
