// Device profiles: a DeviceView recorded as text, so checks can run on a
// machine without the device (tests, CI, a support engineer's laptop).
//
// The format is line-oriented and versioned ("rdmacheck-profile 1"); it is
// documented in docs/profile-format.md and round-trips a DeviceView exactly:
// ParseProfile(WriteProfile(v)) equals v in every field but `source`.
// ReadProfileFile also accepts `ibv_devinfo [-v]` text and imports it
// (facts/devinfo_import.h).
//
//   absl::StatusOr<DeviceView> view =
//       ReadProfileFile("fixtures/profiles/rxe_mtu1500.profile");
//   if (!view.ok()) return view.status();  // "x.profile:12: active_mtu: ..."
//   std::string text = WriteProfile(*view);
#ifndef RDMACHECK_FACTS_PROFILE_H_
#define RDMACHECK_FACTS_PROFILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"

namespace rdmacheck {

// The profile format versions this build reads. WriteProfile writes the last.
inline constexpr int kProfileVersion = 1;

// Parses profile text. `filename` names the input in error messages
// ("FILE:LINE: FIELD: what is wrong", all InvalidArgument) and in
// view.source, which becomes "profile:<filename>".
absl::StatusOr<DeviceView> ParseProfile(absl::string_view text,
                                        absl::string_view filename);

// Renders `view` as profile text (version kProfileVersion). Every field is
// written, so parsing the result gives back `view` (except `source`).
std::string WriteProfile(const DeviceView& view);


}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_PROFILE_H_
