#include "facts/gid_table.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "facts/rdma_types.h"

namespace rdmacheck {
namespace {

std::string PortDir(absl::string_view dev, int port) {
  return absl::StrCat("class/infiniband/", dev, "/ports/", port);
}

}  // namespace

std::optional<std::string> GidText(absl::string_view sysfs_gid) {
  std::string s(absl::StripAsciiWhitespace(sysfs_gid));
  in6_addr a;
  if (::inet_pton(AF_INET6, s.c_str(), &a) != 1) return std::nullopt;
  static const in6_addr kZero = {};
  if (std::memcmp(&a, &kZero, sizeof(a)) == 0) return std::nullopt;
  char out[INET6_ADDRSTRLEN] = {0};
  if (::inet_ntop(AF_INET6, &a, out, sizeof(out)) == nullptr) return std::nullopt;
  return std::string(out);
}

std::optional<GidEntry> ReadPortGid(const SysfsReader& fs, absl::string_view port_dir, int index,
                                    bool ib_link) {
  const std::string idx = absl::StrCat(index);
  std::optional<std::string> raw = fs.ReadValue(absl::StrCat(port_dir, "/gids/", idx));
  if (!raw) return std::nullopt;
  std::optional<std::string> text = GidText(*raw);
  if (!text) return std::nullopt;
  GidEntry g;
  g.index = index;
  g.gid = *std::move(text);
  // sysfs answers EINVAL for the type of a slot it has no attributes for.
  std::optional<std::string> type = fs.ReadValue(absl::StrCat(port_dir, "/gid_attrs/types/", idx));
  if (type) g.type = ParseGidType(*type).value_or(GidType::kUnknown);
  if (ib_link && (!type || g.type == GidType::kRoceV1)) g.type = GidType::kIb;
  g.netdev = fs.ReadValue(absl::StrCat(port_dir, "/gid_attrs/ndevs/", idx)).value_or("");
  return g;
}

absl::StatusOr<GidEntry> ReadGid(absl::string_view sysfs_root, absl::string_view dev, int port, int index) {
  std::optional<GidEntry> g = ReadPortGid(SysfsReader(sysfs_root), PortDir(dev, port), index,
                                          /*ib_link=*/false);
  if (!g) {
    return absl::NotFoundError(absl::StrCat("GID index ", index, " of ", dev, " port ", port, " is empty"));
  }
  return *std::move(g);
}

std::vector<GidEntry> ReadGidTable(absl::string_view sysfs_root, absl::string_view dev, int port, int limit) {
  const SysfsReader fs(sysfs_root);
  const std::string dir = PortDir(dev, port);
  std::vector<GidEntry> out;
  for (int i = 0; i < limit; ++i) {
    if (std::optional<GidEntry> g = ReadPortGid(fs, dir, i, /*ib_link=*/false)) out.push_back(*std::move(g));
  }
  return out;
}

}  // namespace rdmacheck
