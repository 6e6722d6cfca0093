// Formatting shared by the renderers (text, JUnit): how an evidence row reads,
// how seconds print, and how untrusted strings (device names, profile fields,
// titles) are made safe for a terminal or for XML 1.0. Private to report/.
//
//   out << EvidenceLine(e);                 // "rxe0 port 1 state: expected ACTIVE, actual DOWN"
//   out << TerminalSafe(title);             // ESC -> "\x1b", never reaches the terminal
//   xml << XmlEscape(title, /*attribute=*/true);
#ifndef RDMACHECK_REPORT_INTERNAL_TEXT_UTIL_H_
#define RDMACHECK_REPORT_INTERNAL_TEXT_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "checks/check.h"

namespace rdmacheck::report_internal {

// "subject: expected E, actual A"; "subject: A" when nothing was expected
// (a fact row). No verdict marker: callers add their own.
std::string EvidenceLine(const Evidence& e);

// Seconds with a fixed number of decimals ("0.01", "0.000100").
std::string FormatSeconds(double s, int decimals);

// Replaces C0 control characters other than '\t' and '\n', DEL and C1 controls
// (U+0080..U+009F) with a visible "\xNN", so that a string from a profile or a
// device can never drive the terminal. Invalid UTF-8 passes through unchanged.
std::string TerminalSafe(absl::string_view s);

// Escapes s for XML 1.0 text (attribute=false) or a double-quoted attribute
// value (attribute=true: also '\t', '\n', '\r' as character references, since
// attribute normalisation would turn them into spaces). Characters XML 1.0
// does not allow at all (most C0 controls, U+FFFE, U+FFFF) become "\xNN" /
// "\uFFFE"; bytes that are not valid UTF-8 become U+FFFD.
std::string XmlEscape(absl::string_view s, bool attribute);

// s with every byte that is not valid UTF-8 replaced by U+FFFD, for formats
// whose text must be UTF-8 (the Prometheus exposition format).
std::string ValidUtf8(absl::string_view s);

// s as one line for a one-line status field (NPD's condition message, a
// Slurm drain reason): every run of whitespace and control characters (C0,
// DEL, C1) becomes one space, the ends are trimmed, bytes that are not valid
// UTF-8 become U+FFFD. The result is valid UTF-8.
std::string SingleLine(absl::string_view s);

// s when it fits in max_bytes; else its longest prefix that ends on a UTF-8
// character boundary and, with `marker` after it, fits ("port 1 is do...").
// s must be valid UTF-8 (SingleLine's output); max_bytes >= marker.size().
std::string TruncateUtf8(absl::string_view s, size_t max_bytes, absl::string_view marker);

// Splits text into lines at '\n', then wraps each at `width` bytes on spaces.
// A word longer than width stays whole on its own line. width <= 0: no wrap.
std::vector<std::string> WrapLines(absl::string_view text, int width);

}  // namespace rdmacheck::report_internal

#endif  // RDMACHECK_REPORT_INTERNAL_TEXT_UTIL_H_
