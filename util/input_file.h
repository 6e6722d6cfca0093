// ReadInputFile: the one reader of a file the user names as input
// (--profile, --plan, explain --rules), whole and bounded. Only a regular
// file is read: a FIFO with no writer would block with no deadline, and
// /dev/zero would grow memory until the process is killed. Each message
// starts with the caller and the path, and says what was expected.
//
//   absl::StatusOr<std::string> text =
//       ReadInputFile("ReadPlanFile", path, "a plan", kMaxPlanBytes);
//   // NotFound "ReadPlanFile(x.plan): no such file"
//   // InvalidArgument "ReadPlanFile(/dev/zero): not a regular file (a plan is read from a file)"
#ifndef RDMACHECK_UTIL_INPUT_FILE_H_
#define RDMACHECK_UTIL_INPUT_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

// Reads `fd` to its end, keeping at most `limit` bytes in *out; *over is set
// when the file holds more. Returns 0, or the errno of a failed read. The one
// bounded read loop: ReadInputFile refuses what is over, the sysfs reader
// (facts/sysfs.h) keeps what fits.
int ReadFdBounded(int fd, uint64_t limit, std::string* out, bool* over);

// NotFound, PermissionDenied, InvalidArgument (a directory, not a regular
// file, more than max_bytes), Unknown (any other errno).
absl::StatusOr<std::string> ReadInputFile(absl::string_view caller, const std::string& path,
                                          absl::string_view what, uint64_t max_bytes);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_INPUT_FILE_H_
