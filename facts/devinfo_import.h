// Import of `ibv_devinfo` / `ibv_devinfo -v` text (rdma-core's
// libibverbs/examples/devinfo.c) into a partial DeviceView: devices, their
// attributes, ports and GIDs. Host facts and netdevs are not in that output
// and stay absent; GID netdevs are empty. Users can paste what they already
// have (a bug report, a vendor's support bundle) instead of a capture.
//
//   absl::StatusOr<DeviceView> view = ParseIbvDevinfo(text, "node7.txt");
//   // view->source == "ibv_devinfo:node7.txt"
//   std::optional<uint64_t> wr = view->devices[0].Attr("max_qp_wr");
//
// What maps where:
//   hca_id                      -> DeviceInfo.name; driver guessed from the
//                                  name's prefix ("mlx5_0" -> "mlx5") for
//                                  known providers only
//   transport "InfiniBand (0)"  -> transport "InfiniBand"
//   fw_ver, node_guid, sys_image_guid, hw_ver, board_id -> same fields
//   vendor_id 0x02c9, vendor_part_id 4123 -> numbers
//   max_qp:, max_qp_wr:, ... (struct ibv_device_attr fields, plus
//   phys_port_cnt, device_cap_flags_ex, max_wq_type_rq) -> attrs by the same
//   name; "atomic_cap: ATOMIC_HCA (1)" -> attrs["atomic_cap"] = 1
//   port: N                     -> PortInfo.port_num
//   state "PORT_ACTIVE (4)"     -> "ACTIVE"
//   phys_state "LINK_UP (5)"    -> "LinkUp" (the sysfs spelling)
//   max_mtu/active_mtu "4096 (5)" -> 4096
//   port_lid, sm_lid, pkey_tbl_len, gid_tbl_len, max_msg_sz,
//   active_width "4X (2)" -> 2, active_speed "25.0 Gbps (32)" -> 32
//   GID[  1]: ::ffff:1.2.3.4, RoCE v2 -> GidEntry{1, "::ffff:1.2.3.4", RoCEv2}
//     (GIDs are normalised to RFC 5952 text; "IB/RoCE v1" is IB on an
//     InfiniBand port and RoCEv1 on an Ethernet one; no type: IB on
//     InfiniBand ports, unknown otherwise). gids_known is true for ports
//     whose block came from -v output (it has gid_tbl_len).
// Leading "#" lines become provenance. Unknown keys are skipped (newer
// rdma-core prints more; MLNX_OFED's extra keys too); indentation is not
// needed (pastes lose it). As pasted, partial input is still input:
//   - a paste cut anywhere keeps everything before the cut; DeviceView.warnings
//     gets one "FILE:LINE: ..." per block left incomplete (and for a last line
//     cut inside its value), and the facts after it stay absent;
//   - "Failed to open device" lines (stderr, interleaved) are counted into
//     host.devices_not_opened; "No IB devices found" gives a view with no
//     device; a leading command line ("$ ibv_devinfo -v") is skipped.
// Known keys with bad values before the last line, and text before the first
// hca_id, are InvalidArgument "FILE:LINE: FIELD: ...".
#ifndef RDMACHECK_FACTS_DEVINFO_IMPORT_H_
#define RDMACHECK_FACTS_DEVINFO_IMPORT_H_

#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"

namespace rdmacheck {

absl::StatusOr<DeviceView> ParseIbvDevinfo(absl::string_view text,
                                           absl::string_view filename);
// The same, when other tools' output pasted with it was read by their own
// readers (facts/paste_import.h): those lines (1-based) are not counted
// among the lines left out.
absl::StatusOr<DeviceView> ParseIbvDevinfo(absl::string_view text, absl::string_view filename,
                                           const std::set<int>& read_elsewhere);

// One line as users paste it, made plain: the CR, HTML markup and entities
// (a saved archive page), mail quoting ("> ", ">> "), a diff's "+" marker, a
// list's "- ", a table's empty cells ("| |"), markdown bold and the
// indentation dropped
// (devinfo.c's tabs, ibstat's and ip's indentation carry no meaning their
// keys do not). Shared by every paste reader (facts/paste_import.h).
std::string PastedLine(absl::string_view line);

// True when the text looks like ibv_devinfo output as pasted: an hca_id:
// line, `-l`'s "N HCAs found:", its no-device and stderr lines, or three of
// devinfo.c's own keys — how ReadProfileFile tells the formats apart.
bool LooksLikeIbvDevinfo(absl::string_view text);

// The provider a device name is of, for known providers ("mlx5_0" ->
// "mlx5", "rxe0" -> "rxe"); nullopt for a udev name ("rocep1s0f0").
std::optional<std::string> DriverFromName(absl::string_view name);

// libibverbs/init.c's warning for a device in sysfs whose provider library
// is missing ("libibverbs: Warning: no userspace device-specific driver
// found for /sys/class/infiniband_verbs/uverbs0"): the device is left out
// of every listing.
bool NoProviderWarning(absl::string_view line);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_DEVINFO_IMPORT_H_
