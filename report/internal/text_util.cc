#include "report/internal/text_util.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace rdmacheck::report_internal {
namespace {

// Decodes one UTF-8 sequence at s[i]. Returns its length and sets *cp, or
// returns 0 when the bytes there are not valid UTF-8 (stray continuation
// byte, truncated sequence, overlong form, surrogate, > U+10FFFF).
size_t DecodeUtf8(absl::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t len;
  uint32_t v;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    v = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    v = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    v = c & 0x07;
  } else {
    return 0;  // 0x80..0xC1 (continuation or overlong lead), 0xF5..0xFF
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000)) return 0;  // overlong
  if (v >= 0xD800 && v <= 0xDFFF) return 0;                            // surrogate
  if (v > 0x10FFFF) return 0;
  *cp = v;
  return len;
}

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER

// What ForEachChar passes for a byte that does not start a UTF-8 character.
constexpr uint32_t kNotUtf8 = 0xFFFFFFFF;

// f(code point, its bytes) for each character of s; f(kNotUtf8, the byte)
// for each byte that is not part of valid UTF-8. The one decoding loop.
template <typename F>
void ForEachChar(absl::string_view s, F f) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t len = DecodeUtf8(s, i, &cp);
    if (len == 0) {
      cp = kNotUtf8;
      len = 1;
    }
    f(cp, s.substr(i, len));
    i += len;
  }
}

bool IsControl(uint32_t cp) { return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F); }

std::string Hex(uint32_t c) { return absl::StrFormat("\\x%02x", c); }

}  // namespace

std::string EvidenceLine(const Evidence& e) {
  if (e.expected.empty()) return absl::StrCat(e.subject, ": ", e.actual);
  return absl::StrCat(e.subject, ": expected ", e.expected, ", actual ", e.actual);
}

std::string FormatSeconds(double s, int decimals) {
  return absl::StrFormat("%.*f", decimals, s);
}

std::string TerminalSafe(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  ForEachChar(s, [&](uint32_t cp, absl::string_view c) {
    if (cp == kNotUtf8 || cp == '\t' || cp == '\n' || !IsControl(cp)) {
      absl::StrAppend(&out, c);  // not UTF-8: left to the terminal's charset
    } else if (cp >= 0x80) {  // C1: 0x9B is CSI on some terminals
      out += absl::StrFormat("\\u%04x", cp);
    } else {
      out += Hex(cp);
    }
  });
  return out;
}

std::string XmlEscape(absl::string_view s, bool attribute) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  ForEachChar(s, [&](uint32_t cp, absl::string_view c) {
    switch (cp) {
      case kNotUtf8: out += kReplacement; break;
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;  // "]]>" must not appear in text
      case '"': out += attribute ? "&quot;" : "\""; break;
      case '\'': out += attribute ? "&apos;" : "'"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r': out += "&#13;"; break;  // a raw CR would be read back as LF
      default:
        if (cp < 0x20) {
          out += Hex(cp);  // not allowed in XML 1.0, not even as &#N;
        } else if (cp == 0xFFFE || cp == 0xFFFF) {
          out += absl::StrFormat("\\u%04X", cp);
        } else {
          absl::StrAppend(&out, c);
        }
    }
  });
  return out;
}

std::string ValidUtf8(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  ForEachChar(s, [&](uint32_t cp, absl::string_view c) {
    if (cp == kNotUtf8) {
      out += kReplacement;
    } else {
      absl::StrAppend(&out, c);
    }
  });
  return out;
}

std::string SingleLine(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;  // a separator is pending: written before the next character
  ForEachChar(ValidUtf8(s), [&](uint32_t cp, absl::string_view c) {
    if (cp == ' ' || IsControl(cp)) {
      space = !out.empty();
      return;
    }
    if (space) out += ' ';
    space = false;
    absl::StrAppend(&out, c);
  });
  return out;
}

std::string TruncateUtf8(absl::string_view s, size_t max_bytes, absl::string_view marker) {
  if (s.size() <= max_bytes) return std::string(s);
  size_t cut = max_bytes - std::min(marker.size(), max_bytes);
  // Back off continuation bytes (10xxxxxx) to the start of a character.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  while (cut > 0 && s[cut - 1] == ' ') --cut;  // "state: ..." not "state:  ..."
  return absl::StrCat(s.substr(0, cut), marker);
}

std::vector<std::string> WrapLines(absl::string_view text, int width) {
  std::vector<std::string> lines;
  for (absl::string_view para : absl::StrSplit(text, '\n')) {
    if (width <= 0 || static_cast<int>(para.size()) <= width) {
      lines.emplace_back(para);
      continue;
    }
    std::string cur;
    for (absl::string_view word : absl::StrSplit(para, ' ', absl::SkipEmpty())) {
      if (!cur.empty() && static_cast<int>(cur.size() + 1 + word.size()) > width) {
        lines.push_back(std::move(cur));
        cur.clear();
      }
      if (!cur.empty()) cur += ' ';
      absl::StrAppend(&cur, word);
    }
    lines.push_back(std::move(cur));
  }
  return lines;
}

}  // namespace rdmacheck::report_internal
