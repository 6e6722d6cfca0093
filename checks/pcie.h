// pcie: every adapter in use sits on a PCIe link trained at its full width
// and speed, and takes no AER errors over the window. SKIPs for virtual
// devices (rxe, siw), which have no PCI function of their own.
// Doc: docs/checks/pcie.md
#ifndef RDMACHECK_CHECKS_PCIE_H_
#define RDMACHECK_CHECKS_PCIE_H_

#include "checks/check.h"

namespace rdmacheck {

class PcieCheck : public Check {
 public:
  absl::string_view id() const override { return "pcie"; }
  absl::string_view summary() const override {
    return "Adapters run their PCIe link at full width and speed, without AER errors";
  }
  unsigned needs() const override { return kNeedsWindow; }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_PCIE_H_
