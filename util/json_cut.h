// WholeElements: where a JSON text cut short (a paste, a `| head -c`) can be
// closed again. It scans the text, skipping string contents and their
// escapes, for the ends of the complete elements of the array at nesting
// depth `array_depth`: 1 for a top-level array (`ip -j addr`, `rdma -j
// link`), 2 for an array inside the top-level object (`nft -j`'s
// {"nftables": [...]}).
//
//   JsonCut c = WholeElements(text, 1);
//   if (c.open && c.elements > 0) json::parse(absl::StrCat(text.substr(0, c.end), "]"));
#ifndef RDMACHECK_UTIL_JSON_CUT_H_
#define RDMACHECK_UTIL_JSON_CUT_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace rdmacheck {

struct JsonCut {
  bool open = false;    // the text ends inside that array: it was cut there
  size_t elements = 0;  // complete elements before the cut
  size_t end = 0;       // one past the last of them
};

JsonCut WholeElements(absl::string_view text, int array_depth);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_JSON_CUT_H_
