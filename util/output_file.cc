#include "util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

absl::Status Errno(absl::string_view call, absl::string_view path) {
  return absl::ErrnoToStatus(errno, absl::StrCat(call, "(", path, ")"));
}

absl::Status WriteAll(int fd, absl::string_view s, absl::string_view path) {
  while (!s.empty()) {
    const ssize_t n = write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write", path);
    s.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// A device or a FIFO: no rename can replace it, and none should (renaming
// over /dev/stdout would put a regular file in /dev).
absl::Status WriteInPlace(const std::string& path, absl::string_view contents) {
  const int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Errno("open", path);
  absl::Status s = WriteAll(fd, contents, path);
  if (close(fd) != 0 && s.ok()) s = Errno("close", path);
  return s;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return WriteInPlace(path, contents);
  std::string target = path;
  if (exists) {
    // Replace what a symlink points to, not the link.
    if (char* real = realpath(path.c_str(), nullptr)) {
      target = real;
      free(real);
    }
  }
  const std::string tmp = absl::StrCat(target, ".tmp.", getpid());
  // O_EXCL: never write through a file or symlink someone else put there.
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return Errno("open", tmp);
  absl::Status s = WriteAll(fd, contents, tmp);
  if (s.ok() && exists && fchmod(fd, st.st_mode & 07777) != 0) s = Errno("fchmod", tmp);
  if (s.ok() && fsync(fd) != 0) s = Errno("fsync", tmp);
  if (close(fd) != 0 && s.ok()) s = Errno("close", tmp);
  if (s.ok() && rename(tmp.c_str(), target.c_str()) != 0)
    s = Errno("rename", absl::StrCat(tmp, ", ", target));
  if (!s.ok()) {
    unlink(tmp.c_str());
    return s;
  }
  // The rename survives a crash once the directory is on disk too; the file
  // is complete either way, so a directory that cannot be synced is no error.
  const std::string dir = DirectoryOf(target);
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return absl::OkStatus();
}

}  // namespace rdmacheck
