// ClassifyProbe: why a traffic probe's work request did not complete, from
// what the probe recorded: completion statuses, QP state, async events and
// the hw_counters deltas of both ends. Pure; no device needed.
//
//   Diagnosis d = ClassifyProbe(result);
//   if (d.cls == HangClass::kPathBlocked) ...  // sent_pkts up, peer rcvd_pkts flat
//   d.why   // "rxe0 sent 7 packets, rxe1 received 0; status 12 ..."
#ifndef RDMACHECK_ACTS_PROBE_CLASSIFY_H_
#define RDMACHECK_ACTS_PROBE_CLASSIFY_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "acts/probe_types.h"

namespace rdmacheck {

// enum ibv_wc_status values the classifier looks at (verbs.h), kept here so
// this stays free of libibverbs.
inline constexpr int kWcSuccess = 0;
inline constexpr int kWcWrFlushErr = 5;
inline constexpr int kWcRemInvReqErr = 9;
inline constexpr int kWcRetryExcErr = 12;
inline constexpr int kWcRnrRetryExcErr = 13;
// IBV_MTU_256: no RoCE path carries less.
inline constexpr uint64_t kSmallestRoceMtu = 256;

enum class HangClass {
  kHealthy,         // every WR completed and verified
  kPathBlocked,     // packets sent, none received by the peer: firewall, GID, route
  kMtuAbovePath,    // small messages pass, full-MTU packets are lost (send_err / size)
  kPeerNotReady,    // RNR retries exhausted: no receive posted at the peer
  kPeerNoAck,       // the peer received packets but never answered
  kCqOverrun,       // CQ_ERR async event: completions lost
  kQpInError,       // the QP was already in the error state (flushes)
  kDataMismatch,    // completed, but the bytes differ
  kNotSent,         // retries exhausted but nothing left the device
  kLocalIpv6,       // packets sent, none received, between two local devices over IPv6 GIDs
  kUndetermined,    // no completion and no counters to tell why
  kOtherError,      // another completion error (status in the text)
  kInterrupted,     // SIGINT
};
// "path blocked", "MTU above the path's", "peer not ready (RNR)", ...
absl::string_view HangClassName(HangClass c);

struct Diagnosis {
  HangClass cls = HangClass::kHealthy;
  std::string why;  // one line with the numbers that decided it
};

Diagnosis ClassifyProbe(const ProbeResult& r);

// "sent_pkts +7, rcvd_pkts +0, retry_exceeded_err +1": sent_pkts and
// rcvd_pkts, then those of send_err, retry_exceeded_err,
// retry_rnr_exceeded_err, rcvd_rnr_err, completer_retry_err that moved; ""
// when none is present.
std::string FormatDelta(const Counters& d);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_CLASSIFY_H_
