// The RC connection sequence: ibv_modify_qp to INIT, to RTR (a GRH address
// vector, as RoCE needs) and to RTS (timeout, retry_cnt, rnr_retry). A
// failure names the call and its arguments (verbs/errors.h).
//
//   RcPath p{.dev = "rxe0", .port = 1, .path_mtu = IBV_MTU_1024,
//            .dest_qpn = remote_qpn, .dgid = remote_gid, .dgid_text = "fe80::1",
//            .sgid_index = 1};
//   RETURN_IF_ERROR(ConnectRc(qp, p));  // or ToInit, ToRtr, ToRts one by one
//
// Bounds (retry_cnt 7 retries forever on rxe) are the caller's to check: the
// values are passed to the device as given.
#ifndef RDMACHECK_VERBS_RC_CONNECT_H_
#define RDMACHECK_VERBS_RC_CONNECT_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "verbs/resources.h"

namespace rdmacheck::verbs {

// How a failed transition names its call. The traffic probes give the
// arguments ("ibv_modify_qp(dev=rxe0 state=RTR path_mtu=1024 dest_qpn=17
// dgid=... sgid_index=1)"); the cq-overrun probe, whose two QPs share a
// device, gives the QP number ("ibv_modify_qp(dev=rxe0 qp=17 state=RTR
// dest_qpn=18 sgid_index=1)"). Reports and guest scenarios match these texts.
enum class RcCallNaming { kArguments, kQpNumber };

// One end's view of the connection.
struct RcPath {
  std::string dev;  // for the messages only
  int port = 1;
  ibv_mtu path_mtu = IBV_MTU_1024;
  uint32_t dest_qpn = 0;
  ibv_gid dgid{};
  std::string dgid_text;  // the remote GID as the messages show it
  int sgid_index = 0;
  uint32_t rq_psn = 0;
  uint32_t sq_psn = 0;
  int timeout = 14;
  int retry_cnt = 6;
  int rnr_retry = 3;
  int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  // RDMA READs in flight: issued by this end (RTS) and accepted from the far
  // end (RTR). The probes send none; the READ bandwidth run needs many.
  int rd_atomic = 1;
  RcCallNaming naming = RcCallNaming::kArguments;
};

// The call text of the transition of QP `qp_num` to `to` (INIT, RTR or RTS),
// as the errors below carry it.
std::string RcModifyCall(const RcPath& p, uint32_t qp_num, ibv_qp_state to);

// RESET -> INIT: port, pkey index 0, access flags.
absl::Status ToInit(const QueuePair& qp, const RcPath& p);
// INIT -> RTR: path MTU, dest QPN, rq_psn, GRH to dgid from sgid_index (hop
// limit 64), rd_atomic reads accepted, min RNR timer 0.64 ms.
absl::Status ToRtr(const QueuePair& qp, const RcPath& p);
// RTR -> RTS: timeout, retry_cnt, rnr_retry, sq_psn, rd_atomic reads issued.
absl::Status ToRts(const QueuePair& qp, const RcPath& p);
// Any state -> ERR, flushing every WR still queued. Before a QP with WRs in
// flight is destroyed: rxe's requester retries a packet its netdev refuses
// (send_err) for as long as the QP is not in error, and destroying the QP
// while it does has been seen to wait on it.
absl::Status ToErr(const QueuePair& qp, const std::string& dev);
// ToInit, ToRtr, ToRts; the first failure.
absl::Status ConnectRc(const QueuePair& qp, const RcPath& p);

}  // namespace rdmacheck::verbs

#endif  // RDMACHECK_VERBS_RC_CONNECT_H_
