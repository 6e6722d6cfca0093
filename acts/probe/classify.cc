#include "acts/probe/classify.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "facts/device_view.h"

namespace rdmacheck {
namespace {

uint64_t Get(const Counters& c, const char* name) {
  auto it = c.find(name);
  return it == c.end() ? 0 : it->second;
}

bool Has(const Counters& c, const char* name) { return c.count(name) > 0; }

std::string WrText(const WrOutcome& w) {
  std::string s = absl::StrCat("WR ", w.index, " (", ProbeOpName(w.spec.op), " ", w.total_bytes,
                               " B in ", w.num_sge, " SGE)");
  switch (w.state) {
    case WrState::kNoCompletion:
      absl::StrAppend(&s, ": no completion after ", absl::StrFormat("%.2f", w.seconds), " s");
      break;
    case WrState::kError:
      absl::StrAppend(&s, ": status ", w.wc_status, " (", w.wc_status_text, ")",
                      w.recv_side ? " on the receive side" : "");
      break;
    case WrState::kPostFailed:
      absl::StrAppend(&s, ": post failed: ", w.post_error);
      break;
    default:
      break;
  }
  return s;
}

// A GID that is an IPv6 address (global or link-local), not IPv4-mapped.
bool IsIpv6Gid(const std::string& gid) {
  GidAddress::Kind k = ClassifyGid(gid).kind;
  return k == GidAddress::kIpv6 || k == GidAddress::kLinkLocal;
}

}  // namespace

absl::string_view HangClassName(HangClass c) {
  switch (c) {
    case HangClass::kHealthy: return "healthy";
    case HangClass::kPathBlocked: return "path blocked";
    case HangClass::kMtuAbovePath: return "MTU above the path's";
    case HangClass::kPeerNotReady: return "peer not ready (RNR)";
    case HangClass::kPeerNoAck: return "peer does not answer";
    case HangClass::kCqOverrun: return "CQ overrun";
    case HangClass::kQpInError: return "QP already in error";
    case HangClass::kDataMismatch: return "data mismatch";
    case HangClass::kNotSent: return "nothing sent";
    case HangClass::kLocalIpv6: return "IPv6 between devices of one host";
    case HangClass::kUndetermined: return "undetermined";
    case HangClass::kOtherError: return "completion error";
    case HangClass::kInterrupted: return "interrupted";
  }
  return "?";
}

std::string FormatDelta(const Counters& d) {
  static const char* const kNames[] = {"sent_pkts",          "rcvd_pkts",
                                       "send_err",           "retry_exceeded_err",
                                       "retry_rnr_exceeded_err", "rcvd_rnr_err",
                                       "completer_retry_err"};
  std::vector<std::string> parts;
  // sent_pkts and rcvd_pkts always (a flat one is the point); the error
  // counters only when they moved.
  for (const char* n : kNames) {
    const bool always = std::string(n) == "sent_pkts" || std::string(n) == "rcvd_pkts";
    if (Has(d, n) && (always || Get(d, n) > 0)) parts.push_back(absl::StrCat(n, " +", Get(d, n)));
  }
  return absl::StrJoin(parts, ", ");
}

Diagnosis ClassifyProbe(const ProbeResult& r) {
  if (r.interrupted) return {HangClass::kInterrupted, "interrupted (SIGINT) before the probe finished"};
  const WrOutcome* f = r.FirstFailure();
  if (f == nullptr) {
    return {HangClass::kHealthy, absl::StrCat(r.CompletedCount(), " WRs completed, every byte verified")};
  }
  const std::string what = WrText(*f);
  for (const std::string& e : r.async_events) {
    if (absl::StrContains(e, "CQ_ERR")) {
      return {HangClass::kCqOverrun,
              absl::StrCat(what, "; async event ", e, ": the CQ overflowed and completions were lost")};
    }
  }
  if (f->qp_state_before == "ERR" || f->qp_state_before == "SQE" ||
      (f->state == WrState::kError && f->wc_status == kWcWrFlushErr)) {
    return {HangClass::kQpInError,
            absl::StrCat(what, "; QP state before the post: ",
                         f->qp_state_before.empty() ? "?" : f->qp_state_before,
                         ": work is flushed, look for the first error")};
  }
  if (f->state == WrState::kCompleted) {
    return {HangClass::kDataMismatch,
            absl::StrCat(what, " completed but the bytes differ from offset ",
                         f->first_mismatch.value_or(0))};
  }
  if (f->state == WrState::kError && f->wc_status == kWcRnrRetryExcErr) {
    return {HangClass::kPeerNotReady,
            absl::StrCat(what, ": the peer had no receive posted (RNR) for every retry")};
  }
  const bool transport = f->state == WrState::kNoCompletion ||
                         (f->state == WrState::kError && f->wc_status == kWcRetryExcErr);
  if (!transport) {
    return {HangClass::kOtherError, what};
  }
  // Packets too big for the path: rxe counts send_err when the netdev refuses
  // them; or smaller WRs earlier in the run completed while this one, over one
  // path-MTU packet, did not.
  const Counters& ld = f->local_delta;
  const Counters& pd = f->peer_delta;
  std::string deltas = absl::StrCat(r.device, " ", FormatDelta(ld));
  if (!r.loopback) absl::StrAppend(&deltas, "; ", r.peer_device, " ", FormatDelta(pd));
  if (Get(ld, "send_err") > 0) {
    // rxe counts send_err whenever ip_local_out refuses its packet
    // (rxe_net.c rxe_send): too big for a hop with DF set, or dropped by an
    // output-hook firewall rule (measured in the guest: a 64 B SEND under
    // `udp dport 4791 drop` on an nft output chain, send_err +176307 in
    // 2 s). A WR that fits the smallest RoCE MTU cannot be too big.
    if (f->total_bytes <= kSmallestRoceMtu) {
      return {HangClass::kPathBlocked,
              absl::StrCat(what, "; ", deltas, ": the host refused to send packets of only ", f->total_bytes,
                           " B (send_err): an output firewall rule dropping UDP 4791, or no route out")};
    }
    return {HangClass::kMtuAbovePath,
            absl::StrCat(what, "; ", deltas, ": the device could not send the packets (send_err)")};
  }
  bool smaller_ok = false;
  for (const WrOutcome& w : r.wrs) {
    if (&w == f) break;
    if (w.state == WrState::kCompleted && r.path_mtu > 0 && w.total_bytes < static_cast<uint64_t>(r.path_mtu))
      smaller_ok = true;
  }
  const bool counters = Has(ld, "sent_pkts") && Has(pd, "rcvd_pkts");
  if (smaller_ok && r.path_mtu > 0 && f->total_bytes >= static_cast<uint64_t>(r.path_mtu) &&
      (!counters || Get(pd, "rcvd_pkts") == 0)) {
    return {HangClass::kMtuAbovePath,
            absl::StrCat(what, "; messages under the path MTU ", r.path_mtu,
                         " B completed, this one needs full-size packets",
                         counters ? absl::StrCat("; ", deltas) : "")};
  }
  if (!counters) {
    return {HangClass::kUndetermined,
            absl::StrCat(what, "; no hw_counters to tell a blocked path from a silent peer")};
  }
  if (Get(ld, "sent_pkts") == 0) {
    return {HangClass::kNotSent, absl::StrCat(what, "; ", deltas, ": nothing left ", r.device)};
  }
  if (Get(pd, "rcvd_pkts") == 0 && !r.loopback && IsIpv6Gid(r.gid) && IsIpv6Gid(r.peer_gid)) {
    // Measured in the guest (kernel 6.1, 2001:2::1 on va, ::2 on vb): the
    // kernel's route to a local IPv6 address is through lo ("ip -6 route get
    // 2001:2::2 from 2001:2::1": "local ... dev lo table local"), whatever
    // netdev rxe asks for, so rxe1 never sees the packets; over IPv4 the
    // same pair crosses the veth (accept_local=1, rp_filter=0).
    return {HangClass::kLocalIpv6,
            absl::StrCat(what, "; ", deltas, ": packets left ", r.device, ", none reached ", r.peer_device,
                         ": between two devices of one host the kernel routes a local IPv6 destination "
                         "through lo, so IPv6 RoCE cannot cross their netdevs")};
  }
  if (Get(pd, "rcvd_pkts") == 0) {
    return {HangClass::kPathBlocked,
            absl::StrCat(what, "; ", deltas, ": packets left ", r.device, ", none reached ",
                         r.peer_device)};
  }
  return {HangClass::kPeerNoAck,
          absl::StrCat(what, "; ", deltas, ": ", r.peer_device, " received packets but ", r.device,
                       " got no acknowledgement")};
}

}  // namespace rdmacheck
