#include "util/numbers.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {

std::optional<uint64_t> ParseUnsigned(absl::string_view s) {
  uint64_t base = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    uint64_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint64_t>(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = static_cast<uint64_t>(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = static_cast<uint64_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    if (v > (UINT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

namespace {

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!absl::ascii_isdigit(c)) return false;
  return true;
}

}  // namespace

std::optional<double> ParseDecimal(absl::string_view s) {
  size_t dot = s.find('.');
  if (!AllDigits(s.substr(0, dot))) return std::nullopt;
  if (dot != absl::string_view::npos && !AllDigits(s.substr(dot + 1))) return std::nullopt;
  // Validated above; SimpleAtod (absl::from_chars) ignores the C locale.
  double v = 0;
  if (!absl::SimpleAtod(s, &v)) return std::nullopt;
  return v;
}

std::optional<std::vector<uint64_t>> ParseDotted(absl::string_view s, size_t max_parts) {
  std::vector<uint64_t> out;
  for (absl::string_view part : absl::StrSplit(s, '.')) {
    // Decimal only: ParseUnsigned would also take "0x10" as a part.
    if (!AllDigits(part) || out.size() == max_parts) return std::nullopt;
    std::optional<uint64_t> v = ParseUnsigned(part);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

int CompareDotted(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  for (size_t i = 0; i < a.size() || i < b.size(); ++i) {
    uint64_t x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace rdmacheck
