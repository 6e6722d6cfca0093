// The one number parser for what the system, its tools and our input files
// print. ParseUnsigned: decimal digits, or 0x followed by hex digits ("4096",
// "0x15b3"). ParseDecimal: decimal digits with an optional fraction ("12.5").
// ParseDotted: dotted whole numbers, as firmware versions are ("20.31.1014").
// Strict: no sign, no spaces, no exponent, no overflow, nothing after the
// digits (absl::SimpleAtoi would take " +12 ", SimpleAtod "1e3" and "nan").
//
//   std::optional<uint64_t> v = ParseUnsigned("0x1a");  // 26
//   ParseUnsigned(absl::StripAsciiWhitespace(file_text));  // sysfs values end in \n
//   ParseDecimal("0.5");                                    // 0.5
//   CompareDotted(*ParseDotted("20.28.2006"), *ParseDotted("20.31.1014"));  // < 0
#ifndef RDMACHECK_UTIL_NUMBERS_H_
#define RDMACHECK_UTIL_NUMBERS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck {

std::optional<uint64_t> ParseUnsigned(absl::string_view s);

// The same, for parsers that test and assign in one condition.
inline bool ParseUnsigned(absl::string_view s, uint64_t* out) {
  std::optional<uint64_t> v = ParseUnsigned(s);
  if (v) *out = *v;
  return v.has_value();
}

// "12.5", "100", "0.25": digits, optionally '.' and more digits (a leading
// or trailing '.' is refused, like everything ParseUnsigned refuses).
std::optional<double> ParseDecimal(absl::string_view s);

// "20.31.1014" -> {20, 31, 1014}: 1 to `max_parts` decimal whole numbers
// separated by single dots.
std::optional<std::vector<uint64_t>> ParseDotted(absl::string_view s, size_t max_parts = 4);

// Compares dotted numbers part by part, missing parts counting as 0
// ("20.31" == "20.31.0"): < 0, 0 or > 0, as strcmp.
int CompareDotted(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_NUMBERS_H_
