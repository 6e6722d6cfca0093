// hung-qp: a short exchange of SENDs and RDMA WRITEs between the selected
// device and a peer device on this host (another device on a different
// netdev, so the IP path is exercised; else loopback on the same device)
// completes, each work request within its deadline, every byte verified.
// When one does not, the evidence gives the QP state, completion status,
// async events and hw_counters deltas, and the cause is classified (path
// blocked, MTU above the path's, peer not ready, CQ overrun, QP in error) with
// a remediation that fits. Live only. Doc: docs/checks/hung-qp.md
//
// The helpers below are shared with sge-page-crossing, which reports a stuck
// WR the same way.
#ifndef RDMACHECK_CHECKS_HUNG_QP_H_
#define RDMACHECK_CHECKS_HUNG_QP_H_

#include <string>
#include <vector>

#include "checks/check.h"
#include "acts/probe/classify.h"
#include "acts/probe_types.h"

namespace rdmacheck {

class HungQpCheck : public Check {
 public:
  absl::string_view id() const override { return "hung-qp"; }
  absl::string_view summary() const override {
    return "SENDs and RDMA WRITEs to a peer device complete within their deadline, every byte intact";
  }
  unsigned needs() const override { return kNeedsDevice | kNeedsQdiscs; }
  bool live_only() const override { return true; }
  Result Run(const CheckContext& ctx) const override;

  // The WRs of the exchange: a 64-byte SEND first (one packet), then a SEND
  // and an RDMA WRITE of several path-MTU packets.
  static std::vector<WrSpec> ExchangeWrs();
};

// The peer a probe from `dev` talks to: another device of the view whose
// port is ACTIVE, with the same link layer, on a different netdev (preferred)
// or any other; else `dev` itself (loopback).
struct PeerChoice {
  const DeviceInfo* peer = nullptr;
  int peer_port = 1;
  bool loopback = true;
  std::string why;  // "rxe1 on vb: traffic crosses the IP path va -> vb"
};
PeerChoice ChoosePeer(const DeviceView& view, const DeviceInfo& dev, int port);

// The ProbeRequest for dev/port -> peer with the run's options (-x, deadline).
ProbeRequest MakeProbeRequest(const CheckContext& ctx, const DeviceInfo& dev, int port,
                              const PeerChoice& peer);

// The "probe path" row (GIDs, path MTU, retry_cnt, timeout, deadline) and
// the loopback note.
void ReportPath(const ProbeResult& r, ResultBuilder& b);

// When a WR failed: the failed WR's QP state, async events, counter deltas
// and the classified cause as evidence, and remediation fitting the class.
// Returns the diagnosis (kHealthy: nothing added).
Diagnosis ReportFailure(const CheckContext& ctx, const ProbeResult& r, ResultBuilder& b);

// ReportPath, a row per WR, then ReportFailure.
// Evidence rows for each WR, and when one failed: QP states, completion
// status, async events, counter deltas and the classified cause, plus
// remediation fitting the class. Returns the diagnosis.
Diagnosis ReportProbe(const CheckContext& ctx, const ProbeResult& r, ResultBuilder& b);

// Remediation lines for a class (1-4 commands, the fix's proof last).
std::vector<std::string> HangRemedy(HangClass c, const DeviceView& view, const ProbeResult& r,
                                    absl::string_view check_id);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_HUNG_QP_H_
