#include "checks/pcie.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "facts/hw_counters.h"
#include "facts/pci.h"

namespace rdmacheck {
namespace {

std::string LnkCommand(const DeviceInfo& d) {
  return absl::StrCat("lspci -vvv -s ", d.pci_address.value_or("ADDR"),
                      " | grep -E 'LnkCap|LnkSta'   # as the device can, as it trained");
}

void JudgeLink(const DeviceInfo& d, ResultBuilder& r) {
  const std::string subj = absl::StrCat(d.name, " PCIe ", *d.pci_address);
  if (d.pci_link_width && d.pci_max_link_width) {
    const bool full = *d.pci_link_width >= *d.pci_max_link_width;
    r.Expect(absl::StrCat(subj, " link width"), absl::StrCat("x", *d.pci_max_link_width, " (max_link_width)"),
             absl::StrCat("x", *d.pci_link_width), full ? Verdict::kPass : Verdict::kFail);
    if (!full) {
      r.Note(absl::StrCat(d.name, " trained at x", *d.pci_link_width, " of x", *d.pci_max_link_width,
                          ": its PCIe bandwidth is ", *d.pci_link_width * 100 / *d.pci_max_link_width,
                          "% of what it can do, whatever the network link runs at"));
      r.Remedy(LnkCommand(d));
      r.Remedy("move the adapter to a slot wired at full width (the board manual lists them), reseat it, "
               "and check the BIOS's bifurcation setting for that slot");
    }
  } else {
    r.Note(MissingFact(subj, "current_link_width / max_link_width"));
  }
  if (d.pci_link_speed && d.pci_max_link_speed) {
    std::optional<double> cur = PcieSpeedGts(*d.pci_link_speed), max = PcieSpeedGts(*d.pci_max_link_speed);
    if (cur && max) {
      const bool full = *cur >= *max;
      // A speed below the device's can be the slot's (a Gen4 card in a Gen3
      // slot) or a link that retrained down: worth a look, not always a fault.
      r.Expect(absl::StrCat(subj, " link speed"), absl::StrCat(*d.pci_max_link_speed, " (max_link_speed)"),
               *d.pci_link_speed, full ? Verdict::kPass : Verdict::kWarn);
      if (!full) {
        r.Note(absl::StrCat("a link below the device's speed is the slot's limit when the slot is an older PCIe "
                            "generation; otherwise it retrained down (riser, dirty contacts)"));
        r.Remedy(LnkCommand(d));
        r.Remedy(absl::StrCat("dmesg | grep -i 'limited by'   # the kernel names the link that limits ", d.name));
      }
    } else {
      r.Note(absl::StrCat(subj, " link speed reads \"", *d.pci_link_speed,
                          "\": not a trained link (a virtual function's link is its PF's)"));
    }
  }
  if (d.numa_node) {
    r.Note(absl::StrCat(d.name, " is on NUMA node ", *d.numa_node,
                        *d.numa_node == "-1" ? " (the firmware does not say; pin by `lscpu` and the board manual)"
                                             : absl::StrCat(": pin its processes there, e.g. numactl -N ",
                                                            *d.numa_node, " -m ", *d.numa_node, " ...")));
  }
}

void JudgeAer(const CheckContext& ctx, const DeviceInfo& d, ResultBuilder& r) {
  const std::string subj = absl::StrCat(d.name, " PCIe ", *d.pci_address);
  if (d.aer.empty()) {
    r.Note(absl::StrCat(subj, ": no AER counters (aer_dev_*): AER is off or the platform lacks it"));
    return;
  }
  if (!ctx.view.window || d.aer_after.empty()) {
    std::vector<std::string> t;
    for (const auto& [k, v] : d.aer) t.push_back(absl::StrCat(k, " ", v));
    r.Note(absl::StrCat(subj, " AER totals since boot: ", absl::StrJoin(t, ", "),
                        " (no window: whether they grow is not known)"));
    return;
  }
  const int64_t ms = ctx.view.window->ms;
  bool moved = false;
  for (const CounterMove& m : CounterMoves(d.aer, d.aer_after)) {
    const std::string row = absl::StrCat(subj, " AER ", m.name, " errors");
    const std::string expected = absl::StrFormat("no change over %.1f s", ms / 1000.0);
    if (m.went_back()) {
      r.Expect(row, "a counter that only grows", absl::StrCat("went back from ", m.before, " to ", m.after),
               Verdict::kWarn);
      continue;
    }
    if (m.delta() == 0) {
      r.Expect(row, expected, absl::StrCat("no change (", m.after, " since boot)"));
      continue;
    }
    moved = true;
    // Correctable errors are retried by the link layer and cost bandwidth;
    // the others lose transactions.
    r.Expect(row, expected, absl::StrCat("+", m.delta(), " (", m.after, " since boot)"),
             m.name == "correctable" ? Verdict::kWarn : Verdict::kFail);
  }
  if (moved) {
    r.Remedy(absl::StrCat("dmesg -T | grep -iE 'aer|pcie bus error'   # which error, reported by which port"));
    r.Remedy(absl::StrCat("lspci -vvv -s ", *d.pci_address, " | grep -A4 'Advanced Error'"));
    r.Remedy("reseat the adapter or try another slot; update the board's BIOS and the adapter's firmware");
  }
}

}  // namespace

Result PcieCheck::Run(const CheckContext& ctx) const {
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty())
    return ResultBuilder::Skip(*this, "Adapters' PCIe links are healthy", "no RDMA device to look at (see device-present)");
  std::vector<std::string> names, skipped;
  for (const DeviceInfo* d : devs) {
    if (d->pci_address) names.push_back(d->name);
    else
      skipped.push_back(absl::StrCat(d->name, IsSoftDevice(*d) ? absl::StrCat(" is a ", *d->driver, " device (software, on a netdev)")
                                                        : " has no PCI function in sysfs (virtual or auxiliary device)"));
  }
  if (names.empty()) {
    return ResultBuilder::Skip(*this, "Adapters' PCIe links are healthy",
                               absl::StrCat(absl::StrJoin(skipped, "; "),
                                            ": no PCIe link of its own to judge; its bandwidth is the netdev's"));
  }
  ResultBuilder r(*this, absl::StrCat("PCIe links of ", absl::StrJoin(names, ", "), " run at full width and speed"));
  for (const std::string& s : skipped) r.Note(absl::StrCat(s, ": not judged"));
  for (const DeviceInfo* d : devs) {
    if (!d->pci_address) continue;
    JudgeLink(*d, r);
    JudgeAer(ctx, *d, r);
  }
  if (ctx.view.window)
    for (const std::string& n : ctx.view.window->notes) r.Note(n);
  return r.Build();
}

}  // namespace rdmacheck
