// The qdiscs on a traffic path (the gather's `tc -j qdisc show`, facts/qdisc.h)
// and what they mean for the checks that send: the bandwidth run, the
// traffic probes. A token bucket smaller than a RoCE frame drops every
// full-size packet at enqueue, and rxe (kernel 6.1) retries a packet its
// qdisc refused without end: traffic at that MTU leaves the QP stuck in the
// kernel (docs/checks/bandwidth.md). So a check asks first.
//
//   QdiscPath path = QdiscPathOf(ctx.view, dev, port, peer_dev, peer_port);
//   if (std::optional<PathQdisc> q = path.Dropping(path.active_mtu)) {
//     ReportDroppingQdisc(*q, path.active_mtu, "rxe0 -> rxe1", b);  // FAIL + remedy
//   }
#ifndef RDMACHECK_CHECKS_QDISC_PATH_H_
#define RDMACHECK_CHECKS_QDISC_PATH_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "checks/check.h"
#include "facts/device_view.h"
#include "facts/qdisc.h"

namespace rdmacheck {

// A qdisc on one of the pair's netdevs.
struct PathQdisc {
  std::string netdev;
  Qdisc q;
  bool sender = false;  // on the netdev the data leaves by (this end's)
};

struct QdiscPath {
  std::vector<PathQdisc> qdiscs;  // this end's netdev's, then the peer's
  int active_mtu = 4096;          // the smaller of the two ports', bytes
  // The qdisc on the sending netdev that passes no RoCE frame of path MTU
  // `mtu`; nullopt when every one passes them.
  std::optional<PathQdisc> Dropping(int mtu) const;
  // The largest path MTU, at most `mtu`, whose frames the sending netdev's
  // qdiscs pass; 0 when not even 256 fits.
  int FittingMtu(int mtu) const;
};

// peer: nullptr for loopback QPs on `dev`.
QdiscPath QdiscPathOf(const DeviceView& view, const DeviceInfo& dev, int port, const DeviceInfo* peer,
                      int peer_port);

// The command that mends a qdisc that drops full-size frames (its rate, a
// bucket that holds one), or removes it.
std::string QdiscFix(const PathQdisc& pq);

// The FAIL row naming the qdisc against the frames of `mtu`, and QdiscFix.
void ReportDroppingQdisc(const PathQdisc& pq, int mtu, absl::string_view pair, ResultBuilder& b);

// Before a traffic probe (hung-qp, sge-page-crossing), whose WRs fill
// packets of the active MTU: when a qdisc on the sending netdev drops those,
// the FAIL row, the remedy and a note, and true: the probe is not sent.
bool RefuseDroppingPath(const DeviceView& view, const DeviceInfo& dev, int port, const DeviceInfo* peer,
                        int peer_port, absl::string_view pair, ResultBuilder& b);

// True for the kinds that only queue (noqueue, pfifo_fast, fq_codel, mq,
// fq, pfifo, bfifo): not worth naming as a cause.
bool PlainQueue(const Qdisc& q);

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_QDISC_PATH_H_
