// WriteFileAtomically: the one writer of a file the user names as output
// (-o/--output FILE). A reader of FILE sees its old contents or the new ones,
// never a part: the text goes to FILE.tmp.<pid> in FILE's directory, is
// fsync'ed and renamed over FILE, as node_exporter's textfile collector asks
// of the programs that write its *.prom files. On any failure the temporary
// file is removed and FILE is left as it was.
//
//   absl::Status s = WriteFileAtomically("/var/lib/node_exporter/textfile/rdmacheck.prom", text);
//   // s.message(): "write(/var/lib/.../rdmacheck.prom.tmp.4242): File too large"
//
// FILE that is a symlink: the file it points to is replaced, the link stays.
// FILE that exists and is not a regular file (/dev/null, /dev/stdout, a
// FIFO): written in place, there is nothing to rename over. A replaced FILE
// keeps its permission bits.
#ifndef RDMACHECK_UTIL_OUTPUT_FILE_H_
#define RDMACHECK_UTIL_OUTPUT_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

// Errors name the call and the path; codes as absl::ErrnoToStatus gives
// them (NotFound for a missing directory, PermissionDenied, ...).
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_OUTPUT_FILE_H_
