// Pastes beside ibv_devinfo: the output users paste into a ticket with it,
// each read into a partial DeviceView, and several merged into one.
//
//   absl::StatusOr<DeviceView> v = ReadPastes({"devinfo.txt", "ibstat.txt", "ulimit.txt"});
//
// Formats (told apart by their own lines; a text that is none of them is an
// error naming the formats tried and its first line):
//   ibv_devinfo [-v] [-l]     facts/devinfo_import.h
//   rdmacheck profile         facts/profile.h
//   ibstat                    CA 'NAME' blocks: fw, hw, GUIDs, ports' state,
//                             physical state, rate, lids, link layer
//   ibstatus                  "Infiniband device 'NAME' port N status:" blocks
//   show_gids                 the DEV PORT INDEX GID IPv4 VER DEV table
//   rdma link [show]          "link DEV/PORT state S physical_state P netdev N"
//                             (and iproute2's older "N/P: DEV/PORT: ..." form)
//   rdma -j link              its JSON (read with the JSON library)
//   ibdev2netdev              "DEV port N ==> NETDEV (Up)"
//   ip addr / ip -j addr      netdevs: mtu, state, index, addresses
//   ulimit -a / -Ha / -l      max locked memory -> host.memlock_soft (hard
//                             after a `ulimit -H...` command line)
// Every fact a paste gives is kept in DeviceView.fact_sources with its
// "FILE:LINE"; a fact two pastes give differently keeps the first and adds
// a warning naming both places and both values.
#ifndef RDMACHECK_FACTS_PASTE_IMPORT_H_
#define RDMACHECK_FACTS_PASTE_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"

namespace rdmacheck {

// The name of the format `text` is in ("ibstat", "show_gids", ...), or an
// InvalidArgument naming the formats tried and the first line of the text.
absl::StatusOr<std::string> SniffPaste(absl::string_view text, absl::string_view file);

// One paste of any of the formats above.
absl::StatusOr<DeviceView> ParsePaste(absl::string_view text, absl::string_view file);

// Reads one file of any format above (`--profile FILE`): a profile, or a
// paste read as ParsePaste reads it. NotFound naming the path when it does
// not exist; InvalidArgument for a device, a FIFO or a directory, and for
// text of no format, naming the line.
absl::StatusOr<DeviceView> ReadProfileFile(const std::string& path);

// Reads and merges the files, in order (the first to give a fact wins).
absl::StatusOr<DeviceView> ReadPastes(const std::vector<std::string>& paths);

// `into` gains what `from` has and lacks; disagreements become warnings.
void MergeView(const DeviceView& from, DeviceView& into);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_PASTE_IMPORT_H_
