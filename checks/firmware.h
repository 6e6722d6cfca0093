// firmware: the adapters of one part (vendor_id, vendor_part_id) run one
// firmware version, and none is below the plan's [part ID] min_fw_ver.
// Versions compare as dotted numbers (20.100 is newer than 20.31). Mixed
// versions WARN; below the minimum FAILs; soft devices (rxe, siw) have no
// firmware and SKIP. Doc: docs/checks/firmware.md
#ifndef RDMACHECK_CHECKS_FIRMWARE_H_
#define RDMACHECK_CHECKS_FIRMWARE_H_

#include "checks/check.h"

namespace rdmacheck {

class FirmwareCheck : public Check {
 public:
  absl::string_view id() const override { return "firmware"; }
  absl::string_view summary() const override {
    return "Adapters of one part run the same firmware, at least the plan's minimum";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_FIRMWARE_H_
