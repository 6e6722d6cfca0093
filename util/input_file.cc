#include "util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

absl::Status ErrnoStatus(const std::string& at, int err) {
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(absl::StrCat(at, ": no such file"));
  if (err == EACCES) return absl::PermissionDeniedError(absl::StrCat(at, ": permission denied"));
  return absl::UnknownError(absl::StrCat(at, ": ", std::strerror(err)));
}

}  // namespace

int ReadFdBounded(int fd, uint64_t limit, std::string* out, bool* over) {
  *over = false;
  char buf[65536];
  for (;;) {
    // One byte past the limit tells "more" from "exactly the limit".
    const uint64_t room = limit + 1 - out->size();
    const ssize_t n = read(fd, buf, static_cast<size_t>(std::min<uint64_t>(sizeof(buf), room)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return 0;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > limit) {
      out->resize(limit);
      *over = true;
      return 0;
    }
  }
}

absl::StatusOr<std::string> ReadInputFile(absl::string_view caller, const std::string& path,
                                          absl::string_view what, uint64_t max_bytes) {
  const std::string at = absl::StrCat(caller, "(", path, ")");
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return ErrnoStatus(at, errno);
  if (S_ISDIR(st.st_mode)) return absl::InvalidArgumentError(absl::StrCat(at, ": is a directory, not ", what));
  if (!S_ISREG(st.st_mode))
    return absl::InvalidArgumentError(absl::StrCat(at, ": not a regular file (", what, " is read from a file)"));
  auto too_large = [&](uint64_t n) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ": ", n, " bytes is too large for ", what, " (at most ", max_bytes, ")"));
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large(static_cast<uint64_t>(st.st_size));
  // O_NONBLOCK: should the path have become a FIFO since the stat, open
  // does not wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ErrnoStatus(at, errno);
  std::string out;
  bool over = false;
  const int err = ReadFdBounded(fd, max_bytes, &out, &over);
  close(fd);
  if (err != 0) return absl::UnknownError(absl::StrCat(at, ": read: ", std::strerror(err)));
  // The size can grow while it is read: the bound holds regardless.
  if (over)
    return absl::InvalidArgumentError(
        absl::StrCat(at, ": more than ", max_bytes, " bytes is too large for ", what, " (it grew while read)"));
  return out;
}

}  // namespace rdmacheck
