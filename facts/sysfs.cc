#include "facts/sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "util/input_file.h"
#include "util/numbers.h"

namespace rdmacheck {

std::string JoinPath(absl::string_view a, absl::string_view b) {
  if (a.empty()) return std::string(b);
  if (absl::EndsWith(a, "/")) return absl::StrCat(a, b);
  return absl::StrCat(a, "/", b);
}

std::optional<std::string> SysfsReader::ReadFile(absl::string_view rel) const {
  int fd = ::open(Path(rel).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // Past the cap the rest is left unread: sysfs values are short, and a
  // busy host's /proc/net/udp keeps what fits.
  std::string out;
  bool over = false;
  const int err = ReadFdBounded(fd, kMaxFileBytes, &out, &over);
  ::close(fd);
  if (err != 0) return std::nullopt;
  return out;
}

std::optional<std::string> SysfsReader::ReadValue(absl::string_view rel) const {
  std::optional<std::string> s = ReadFile(rel);
  if (!s) return std::nullopt;
  absl::string_view v = absl::StripAsciiWhitespace(*s);
  if (v.empty()) return std::nullopt;
  return std::string(v);
}

std::optional<uint64_t> SysfsReader::ReadNumber(absl::string_view rel) const {
  std::optional<std::string> s = ReadValue(rel);
  if (!s) return std::nullopt;
  return ParseUnsigned(*s);
}

std::optional<int> SysfsReader::ReadInt(absl::string_view rel) const {
  std::optional<uint64_t> v = ReadNumber(rel);
  if (!v || *v > static_cast<uint64_t>(INT_MAX)) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<std::vector<std::string>> SysfsReader::ListDir(absl::string_view rel) const {
  DIR* d = ::opendir(Path(rel).c_str());
  if (d == nullptr) return std::nullopt;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    absl::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<int> SysfsReader::ListNumbered(absl::string_view rel) const {
  std::vector<int> out;
  for (const std::string& n : ListDir(rel).value_or(std::vector<std::string>{})) {
    // Decimal names only: ParseUnsigned would also take "0x1".
    if (!std::all_of(n.begin(), n.end(), [](char c) { return absl::ascii_isdigit(c); })) continue;
    std::optional<uint64_t> i = ParseUnsigned(n);
    if (i && *i <= static_cast<uint64_t>(INT_MAX)) out.push_back(static_cast<int>(*i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> SysfsReader::LinkBasename(absl::string_view rel) const {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(Path(rel).c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) return std::nullopt;
  absl::string_view target(buf, static_cast<size_t>(n));
  size_t slash = target.rfind('/');
  if (slash != absl::string_view::npos) target.remove_prefix(slash + 1);
  if (target.empty()) return std::nullopt;
  return std::string(target);
}

bool SysfsReader::Exists(absl::string_view rel) const {
  struct stat st;
  return ::stat(Path(rel).c_str(), &st) == 0;
}

}  // namespace rdmacheck
