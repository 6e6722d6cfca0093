#include "facts/gid_table.h"

#include <arpa/inet.h>

#include <fstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

std::string ReadLine(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (f) std::getline(f, s);
  return std::string(absl::StripAsciiWhitespace(s));
}

}  // namespace

absl::StatusOr<GidEntry> ReadGid(absl::string_view sysfs_root, absl::string_view dev, int port, int index) {
  const std::string base = absl::StrCat(sysfs_root, "/class/infiniband/", dev, "/ports/", port);
  const std::string raw = ReadLine(absl::StrCat(base, "/gids/", index));
  unsigned char bytes[16];
  bool zero = true;
  if (!raw.empty() && inet_pton(AF_INET6, raw.c_str(), bytes) == 1) {
    for (unsigned char b : bytes) zero = zero && b == 0;
  }
  if (zero) {
    return absl::NotFoundError(absl::StrCat("GID index ", index, " of ", dev, " port ", port, " is empty"));
  }
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, bytes, text, sizeof(text));
  GidEntry g;
  g.index = index;
  g.gid = text;
  g.type = ParseGidType(ReadLine(absl::StrCat(base, "/gid_attrs/types/", index))).value_or(GidType::kUnknown);
  g.netdev = ReadLine(absl::StrCat(base, "/gid_attrs/ndevs/", index));
  return g;
}

std::vector<GidEntry> ReadGidTable(absl::string_view sysfs_root, absl::string_view dev, int port, int limit) {
  std::vector<GidEntry> out;
  for (int i = 0; i < limit; ++i) {
    absl::StatusOr<GidEntry> g = ReadGid(sysfs_root, dev, port, i);
    if (g.ok()) out.push_back(*std::move(g));
  }
  return out;
}

}  // namespace rdmacheck
