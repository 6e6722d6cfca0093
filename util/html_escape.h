// HtmlEscape: text made safe inside HTML or SVG markup, in element content or
// a quoted attribute (& < > " ' as entities). The fleet page and the bench
// charts put device names and figures from files and devices into markup.
//
//   out << "<title>" << HtmlEscape(node) << "</title>";
#ifndef RDMACHECK_UTIL_HTML_ESCAPE_H_
#define RDMACHECK_UTIL_HTML_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace rdmacheck {

std::string HtmlEscape(absl::string_view s);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_HTML_ESCAPE_H_
