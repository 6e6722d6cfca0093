// SysfsReader: the one reader of the files facts come from (sysfs, procfs,
// and the few others gathering looks at: /dev/infiniband, /.dockerenv,
// /usr/lib/.../libibverbs), each path relative to a root that tests point
// at a fake tree (fixtures/sysfs).
//
//   SysfsReader sys("/sys");
//   sys.ReadValue("class/infiniband/rxe0/ports/1/state");         // "4: ACTIVE"
//   sys.ReadNumber("class/infiniband/mlx5_0/device/vendor");      // 0x15b3
//   sys.ListDir("class/infiniband");                              // {"mlx5_0", "rxe0"}
//   sys.ListNumbered("class/infiniband/rxe0/ports/1/gids");       // {0, 1, ..., 1023}
//   sys.LinkBasename("class/infiniband/mlx5_0/device/driver");    // "mlx5_core"
//
// Every read is tolerant: a missing or unreadable file is nullopt (sysfs
// answers EINVAL for, e.g., the type of an empty GID slot), never an error,
// so one absent fact does not stop a gather. sysfs and procfs reads do not
// block.
#ifndef RDMACHECK_FACTS_SYSFS_H_
#define RDMACHECK_FACTS_SYSFS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck {

// a + "/" + b, without doubling a slash at the end of a; b alone when a is
// empty.
std::string JoinPath(absl::string_view a, absl::string_view b);

class SysfsReader {
 public:
  // A file past this is cut there: sysfs values are one line, and the
  // largest procfs files read (mountinfo, net/udp) stay well below it.
  static constexpr size_t kMaxFileBytes = size_t{256} << 10;

  explicit SysfsReader(absl::string_view root) : root_(root) {}

  const std::string& root() const { return root_; }
  // The full path of `rel`, for the calls this class does not wrap (open,
  // glob) and for messages.
  std::string Path(absl::string_view rel) const { return JoinPath(root_, rel); }

  // The whole file, as it is.
  std::optional<std::string> ReadFile(absl::string_view rel) const;
  // Without surrounding whitespace; nullopt when that leaves nothing (rxe's
  // fw_ver is an empty line).
  std::optional<std::string> ReadValue(absl::string_view rel) const;
  // ReadValue parsed by ParseUnsigned (util/numbers.h): decimal, or hex with
  // 0x ("0x1a" lids, "0x15b3" vendor ids); nullopt for anything else
  // ("N/A (no PMA)").
  std::optional<uint64_t> ReadNumber(absl::string_view rel) const;
  // ReadNumber, nullopt past INT_MAX.
  std::optional<int> ReadInt(absl::string_view rel) const;
  // Entry names, sorted, without "." and ".."; nullopt when not a readable
  // directory.
  std::optional<std::vector<std::string>> ListDir(absl::string_view rel) const;
  // The entries named by a number ("ports/1", "gids/0"), in numeric order;
  // empty when there is no such directory.
  std::vector<int> ListNumbered(absl::string_view rel) const;
  // The last component of a symlink's target ("device/driver" ->
  // ".../drivers/mlx5_core" -> "mlx5_core"); nullopt when not a link.
  std::optional<std::string> LinkBasename(absl::string_view rel) const;
  // stat() succeeds (a link is followed).
  bool Exists(absl::string_view rel) const;

 private:
  std::string root_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_SYSFS_H_
