// ParseUnsigned: the one number parser for what the system and its tools
// print: decimal digits, or 0x followed by hex digits ("4096", "0x15b3").
// Strict: no sign, no spaces, no overflow, nothing after the digits
// (absl::SimpleAtoi would take " +12 ").
//
//   std::optional<uint64_t> v = ParseUnsigned("0x1a");  // 26
//   ParseUnsigned(absl::StripAsciiWhitespace(file_text));  // sysfs values end in \n
#ifndef RDMACHECK_UTIL_NUMBERS_H_
#define RDMACHECK_UTIL_NUMBERS_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace rdmacheck {

std::optional<uint64_t> ParseUnsigned(absl::string_view s);

// The same, for parsers that test and assign in one condition.
inline bool ParseUnsigned(absl::string_view s, uint64_t* out) {
  std::optional<uint64_t> v = ParseUnsigned(s);
  if (v) *out = *v;
  return v.has_value();
}

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_NUMBERS_H_
