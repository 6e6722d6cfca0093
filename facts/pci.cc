#include "facts/pci.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

std::string DeviceDir(absl::string_view ibdev) { return absl::StrCat("class/infiniband/", ibdev, "/device"); }

// aer_dev_* files are "NAME COUNT" lines ending with the TOTAL_ERR_* line
// (drivers/pci/pcie/aer.c); without that line, the sum.
std::optional<uint64_t> AerTotal(const SysfsReader& sys, const std::string& path) {
  std::optional<std::string> text = sys.ReadFile(path);
  if (!text) return std::nullopt;
  uint64_t sum = 0;
  bool any = false;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (f.size() != 2) continue;
    std::optional<uint64_t> v = ParseUnsigned(f[1]);
    if (!v) continue;
    if (absl::StartsWith(f[0], "TOTAL_")) return *v;
    sum += *v;
    any = true;
  }
  if (!any) return std::nullopt;
  return sum;
}

}  // namespace

std::map<std::string, uint64_t> ReadAerTotals(const SysfsReader& sys, absl::string_view ibdev) {
  std::map<std::string, uint64_t> out;
  const std::string d = DeviceDir(ibdev);
  for (const char* kind : {"correctable", "nonfatal", "fatal"}) {
    if (std::optional<uint64_t> v = AerTotal(sys, absl::StrCat(d, "/aer_dev_", kind))) out[kind] = *v;
  }
  return out;
}

void ReadPciFacts(const SysfsReader& sys, DeviceInfo* dev) {
  const std::string d = DeviceDir(dev->name);
  // PCI_SLOT_NAME is in the uevent of PCI devices only, which tells them
  // from auxiliary or virtual parents.
  std::optional<std::string> uevent = sys.ReadFile(JoinPath(d, "uevent"));
  if (!uevent) return;
  for (absl::string_view line : absl::StrSplit(*uevent, '\n')) {
    if (absl::ConsumePrefix(&line, "PCI_SLOT_NAME=")) dev->pci_address = std::string(absl::StripAsciiWhitespace(line));
  }
  if (!dev->pci_address) return;
  dev->pci_link_speed = sys.ReadValue(JoinPath(d, "current_link_speed"));
  dev->pci_link_width = sys.ReadInt(JoinPath(d, "current_link_width"));
  dev->pci_max_link_speed = sys.ReadValue(JoinPath(d, "max_link_speed"));
  dev->pci_max_link_width = sys.ReadInt(JoinPath(d, "max_link_width"));
  dev->numa_node = sys.ReadValue(JoinPath(d, "numa_node"));
  dev->aer = ReadAerTotals(sys, dev->name);
}

std::optional<double> PcieSpeedGts(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  size_t sp = text.find_first_of(" G");
  double v = 0;
  if (sp == absl::string_view::npos || !absl::SimpleAtod(text.substr(0, sp), &v) || v <= 0) return std::nullopt;
  if (!absl::StartsWith(absl::StripLeadingAsciiWhitespace(text.substr(sp)), "GT/s")) return std::nullopt;
  return v;
}

}  // namespace rdmacheck
