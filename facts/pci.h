// The PCI function behind an RDMA device, from sysfs
// (Documentation/ABI/testing/sysfs-bus-pci): the PCIe link as trained
// (current_link_speed/width) and as the device can do (max_link_*), its
// NUMA node, and the AER totals (aer_dev_correctable / _nonfatal / _fatal).
//
//   ReadPciFacts(SysfsReader("/sys"), &dev);   // dev.name = "mlx5_0"
//   dev.pci_link_width;                        // 8 (of pci_max_link_width 16)
//
// rxe, siw and other virtual devices have no device/ directory: every fact
// stays absent.
#ifndef RDMACHECK_FACTS_PCI_H_
#define RDMACHECK_FACTS_PCI_H_

#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "facts/device_view.h"
#include "facts/sysfs.h"

namespace rdmacheck {

void ReadPciFacts(const SysfsReader& sys, DeviceInfo* dev);

// AER totals of the device's PCI function by "correctable", "nonfatal",
// "fatal"; empty without AER (no files: the kernel or the port lacks it).
std::map<std::string, uint64_t> ReadAerTotals(const SysfsReader& sys, absl::string_view ibdev);

// "16.0 GT/s PCIe" -> 16.0, "2.5 GT/s" -> 2.5; nullopt for "Unknown" (a
// virtual function, a link down).
std::optional<double> PcieSpeedGts(absl::string_view text);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_PCI_H_
