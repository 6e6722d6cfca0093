// sge-page-crossing: SENDs and RDMA WRITEs whose every SGE straddles a 4 KiB
// page boundary (and a 2 MiB one where huge pages are available), from 1 SGE
// up to the granted max_send_sge, complete within the deadline and arrive
// byte for byte. An older NIC is reported to have silently dropped a WQE
// whose SGE crossed a 4 KiB page, so the send never completed. A stuck WR is
// a FAIL classified as hung-qp does. An opt-in table of suspected legacy
// drivers (each entry unverified) only WARNs. Live only.
// Doc: docs/checks/sge-page-crossing.md
#ifndef RDMACHECK_CHECKS_SGE_PAGE_CROSSING_H_
#define RDMACHECK_CHECKS_SGE_PAGE_CROSSING_H_

#include <string>
#include <vector>

#include "checks/check.h"
#include "acts/probe_types.h"

namespace rdmacheck {

class SgePageCrossingCheck : public Check {
 public:
  absl::string_view id() const override { return "sge-page-crossing"; }
  absl::string_view summary() const override {
    return "WRs whose every SGE crosses a 4 KiB (and 2 MiB) boundary complete, 1 to max_send_sge SGEs, "
           "every byte intact";
  }
  unsigned needs() const override { return kNeedsDevice | kNeedsQdiscs; }
  bool live_only() const override { return true; }
  Result Run(const CheckContext& ctx) const override;

  // SEND and RDMA WRITE with n = 1..max_sge SGEs of 256 B each straddling a
  // 4 KiB boundary, then n = 0 (the granted count, when above max_sge); and 1
  // and 3 SGEs of 4 KiB straddling 2 MiB boundaries (4 huge pages).
  static std::vector<WrSpec> Wrs(uint32_t max_sge);
};

// Per-driver deviations as data: drivers suspected (not shown) to mishandle
// an SGE that crosses a page. Consulted only with Options::suspect_legacy_sge.
struct SuspectedSgeDriver {
  const char* driver;  // DeviceInfo::driver
  const char* reason;  // says that it is unverified and why it is listed
};
const std::vector<SuspectedSgeDriver>& SuspectedSgeDrivers();

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_SGE_PAGE_CROSSING_H_
