// PortRate: a port's link rate in Gb/s, its width in lanes and its IB speed,
// read from the sysfs rate text ("100 Gb/sec (4X EDR)") or, when that is
// absent, from ibv_port_attr's active_speed and active_width codes.
//
//   absl::StatusOr<PortRate> r = RateOfPort(port);
//   if (r.ok() && r->lanes && *r->lanes < 4) ...  // a 4X link trained narrower
//   FormatRate(*r);                                // "25 Gb/s (1X EDR)"
//
// The per-lane rates are the kernel's (drivers/infiniband/core/sysfs.c
// rate_show; rdma-core's ibv_devinfo prints the same): 2.5, 5, 10, 10, 14,
// 25, 50, 100, 200 Gb/s for SDR .. XDR, so a rate computed from the codes
// equals the sysfs text of the same port. The codes are enum ib_port_speed
// and enum ib_port_width of the kernel's include/rdma/ib_verbs.h.
#ifndef RDMACHECK_FACTS_PORT_RATE_H_
#define RDMACHECK_FACTS_PORT_RATE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"

namespace rdmacheck {

struct IbSpeed {
  int code;                 // ibv_port_attr.active_speed: 1 (SDR) .. 256 (XDR)
  absl::string_view name;   // "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"
  double lane_gbps;         // per lane, as sysfs rate counts it
};

// The speed of an active_speed code, or of a name (case-insensitive); null
// when unknown. Codes grow with the speed, so compare codes to rank speeds.
const IbSpeed* SpeedOfCode(int active_speed);
const IbSpeed* SpeedNamed(absl::string_view name);

// Lanes of an active_width code: 1 -> 1, 2 -> 4, 4 -> 8, 8 -> 12, 16 -> 2.
std::optional<int> WidthLanes(int active_width);
// "1X", "2X", "4X", "8X", "12X" (case-insensitive) -> lanes.
std::optional<int> LanesNamed(absl::string_view width);

struct PortRate {
  double gbps = 0;
  std::optional<int> lanes;        // 4 for "4X"; unknown when the text names none
  const IbSpeed* speed = nullptr;  // null when the text names none
};

// Rate text as sysfs prints it ("100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)")
// and as people write it: "100 Gb/s", "100Gb/s", "100 Gbps", "100G", "56",
// "12.5 Gb/sec" (units case-insensitive). InvalidArgument naming the text and
// what is allowed otherwise.
absl::StatusOr<PortRate> ParseRate(absl::string_view text);

// The port's rate: its sysfs text when present, else its active_speed and
// active_width codes. NotFound when it has neither; InvalidArgument for text
// that does not parse or codes that name no speed or width.
absl::StatusOr<PortRate> RateOfPort(const PortInfo& port);

// 100 -> "100", 12.5 -> "12.5", 2.5 -> "2.5".
std::string FormatGbps(double gbps);
// "25 Gb/s (1X EDR)", "100 Gb/s" when width and speed are unknown.
std::string FormatRate(const PortRate& rate);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_PORT_RATE_H_
