#include "util/json_cut.h"

namespace rdmacheck {

JsonCut WholeElements(absl::string_view text, int array_depth) {
  JsonCut out;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == array_depth) {
        out.end = i + 1;
        ++out.elements;
      }
      if (depth < array_depth) return out;  // the array closed: not cut inside it
    }
  }
  out.open = depth >= array_depth;
  return out;
}

}  // namespace rdmacheck
