// The ibv_devinfo importer and the paste importer on any bytes.
#include "facts/devinfo_import.h"
#include "facts/paste_import.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view t = rdmacheck::fuzz::Text(data, size);
  (void)rdmacheck::ParseIbvDevinfo(t, "fuzz.txt");
  (void)rdmacheck::ParsePaste(t, "fuzz.txt");
  return 0;
}
