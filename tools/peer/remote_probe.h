// The traffic probe split across two hosts for peer mode: the client half
// (this host's device, the requester: it posts the SENDs and RDMA WRITEs)
// and the server half (`rdmacheck serve`: the responder, which posts the
// receives, exposes the RDMA WRITE target and verifies every byte). The QP
// details (QPN, GID, MTU, rkey, address) and each WR's outcome cross the
// side channel (tools/peer/channel.h); the result is a ProbeResult like the local
// probe's, so hung-qp and sge-page-crossing report and classify it unchanged.
//
//   PeerChannel ch = ...;                       // after the handshake
//   absl::StatusOr<ProbeResult> r = RunPeerProbe(ch, req);   // client
//   absl::Status s = ServePeerProbe(ch, setup_frame, "rxe1"); // server
//
// Bounded like the local probe: retry_cnt/rnr_retry < 7, a deadline on every
// completion wait and every side-channel read, everything released on every
// path (QP -> MR -> CQ -> PD -> context).
#ifndef RDMACHECK_TOOLS_PEER_REMOTE_PROBE_H_
#define RDMACHECK_TOOLS_PEER_REMOTE_PROBE_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/peer/channel.h"
#include "acts/probe_types.h"

namespace rdmacheck {

// Client half. req.device is this host's; req.peer_device / peer_gid_index
// name the far end's (empty: the device `serve -d` was given). The result's
// peer_device is "<dev>@<host>".
absl::StatusOr<ProbeResult> RunPeerProbe(PeerChannel& ch, const ProbeRequest& req,
                                         const std::atomic<bool>* stop = nullptr);

// Server half, after a PROBE_SETUP frame arrived: sets up, answers the
// client's WR frames until PROBE_END, tears down. `device` is the one
// `serve -d` was given ("" any the client names).
absl::Status ServePeerProbe(PeerChannel& ch, const PeerFrame& setup, const std::string& device,
                            const std::string& sysfs_root = "/sys");

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_PEER_REMOTE_PROBE_H_
