// What the fuzz targets share: the input as text, and a failed invariant.
#ifndef RDMACHECK_FUZZ_FUZZ_UTIL_H_
#define RDMACHECK_FUZZ_FUZZ_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/string_view.h"

namespace rdmacheck::fuzz {

inline absl::string_view Text(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

// An invariant of the parser broke: abort, so that libFuzzer keeps the input.
[[noreturn]] inline void Broken(const char* what, absl::string_view detail) {
  std::fprintf(stderr, "fuzz: %s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace rdmacheck::fuzz

#endif  // RDMACHECK_FUZZ_FUZZ_UTIL_H_
