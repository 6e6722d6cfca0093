// The steps of a traffic probe, written once for the local probe
// (acts/probe/probe.cc: both ends on this host) and the peer probe
// (tools/peer/remote_probe.cc: the requester here, the responder on the far
// host): one end's verbs resources, each WR's SGE layout and the send
// buffers, the message pattern, the posts, the completion waits and the byte
// check. What differs between the two (where the far end is, how its half is
// reached) stays with them.
//
//   ProbeEnd a;
//   RETURN_IF_ERROR(OpenProbeEnd("/sys", "rxe0", 1, std::nullopt, &a));
//   RETURN_IF_ERROR(AllocPdAndCq(&a));
//   RETURN_IF_ERROR(CreateProbeQp(&a, 16, 1, 4));
//   ASSIGN_OR_RETURN(WrLayouts lay, LayOutWrs(req.wrs, a.qp->granted().max_send_sge, &r.wrs));
//   RETURN_IF_ERROR(MakeSendBuffers(lay, "on this host", &a, &r));
//   std::vector<ibv_sge> sges = WriteMessage(l, a.send_4k->buf.data(), a.send_4k->mr.lkey(), w.index);
//   RETURN_IF_ERROR(PostProbeSend(a, i, ProbeOp::kSend, sges, 0, 0));
#ifndef RDMACHECK_ACTS_PROBE_PROBE_STEPS_H_
#define RDMACHECK_ACTS_PROBE_PROBE_STEPS_H_

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "acts/probe/completion_wait.h"
#include "acts/probe/probe_util.h"
#include "acts/probe/sge_layout.h"
#include "acts/probe_types.h"
#include "facts/device_view.h"
#include "facts/hw_counters.h"
#include "verbs/context.h"
#include "verbs/rc_connect.h"
#include "verbs/resources.h"

namespace rdmacheck {

// One end of a probe's RC connection. Members in creation order, so they are
// destroyed QP -> MRs -> CQ -> PD -> context (each needs the ones before it).
struct ProbeEnd {
  std::string dev;
  int port = 1;
  std::optional<verbs::Context> ctx;
  ibv_port_attr port_attr{};
  GidEntry gid;
  ibv_gid raw_gid{};
  std::optional<verbs::ProtectionDomain> pd;
  std::optional<verbs::CompletionQueue> cq;
  std::optional<Region> region;     // receive buffer / RDMA WRITE target
  std::optional<Region> send_4k;    // send buffer, page aligned
  std::optional<Region> send_huge;  // send buffer in huge pages
  std::optional<verbs::QueuePair> qp;
};

// Opens `dev` and resolves its port and GID (ResolvePortGid: NotFound for a
// missing device, FailedPrecondition for a port not ACTIVE).
absl::Status OpenProbeEnd(const std::string& sysfs_root, const std::string& dev, int port,
                          std::optional<int> gid_index, ProbeEnd* e);
// A protection domain and a 64-entry CQ, shared by the QP's two queues.
absl::Status AllocPdAndCq(ProbeEnd* e);
// The RC QP (one receive SGE), still in RESET.
absl::Status CreateProbeQp(ProbeEnd* e, uint32_t send_wr, uint32_t recv_wr, uint32_t send_sge);
// RESET -> INIT with local and remote write access.
absl::Status InitProbeQp(const ProbeEnd& e);

// The far QP as this end connects to it.
struct RemoteQp {
  uint32_t qpn = 0;
  ibv_gid gid{};
  std::string gid_text;
};
// INIT -> RTR -> RTS towards `remote` at path MTU `mtu`, with the request's
// timeout, retry_cnt and rnr_retry (bounded by the caller).
absl::Status ConnectProbeQp(const ProbeEnd& e, const RemoteQp& remote, ibv_mtu mtu, int timeout, int retry_cnt,
                            int rnr_retry);

// The send SGEs to ask the QP for: the most any WR names, or the device's
// max_sge with req.want_max_sge (for WRs of num_sge 0).
absl::StatusOr<uint32_t> WantSendSge(const ProbeRequest& req, const ProbeEnd& e);

// Each WR's layout (nullopt: skipped, more SGEs than granted) and the
// buffers they need: send in 4 KiB or huge pages, receive (at least 4 KiB).
struct WrLayouts {
  std::vector<std::optional<SgeLayout>> layouts;
  uint64_t need_4k = 4096;
  uint64_t need_huge = 0;
  uint64_t need_recv = 4096;
};
// Fills *out with one WrOutcome per WR (index, spec, resolved num_sge, total
// bytes, the skip reason when over the granted SGEs); a layout the WR cannot
// have is the error (ComputeSgeLayout).
absl::StatusOr<WrLayouts> LayOutWrs(const std::vector<WrSpec>& wrs, uint32_t granted_send_sge,
                                    std::vector<WrOutcome>* out);

// The send buffers on `a` for `lay`: page-aligned always, huge pages when a
// WR straddles 2 MiB. With no huge pages those WRs are skipped and r->notes
// says "no huge pages <where> (<mmap error>): the 2 MiB-boundary WRs were
// skipped"; only the page-aligned buffer failing is an error.
absl::Status MakeSendBuffers(const WrLayouts& lay, absl::string_view where, ProbeEnd* a, ProbeResult* r);

// The byte at offset k of WR `wr`'s message. Both halves of a peer probe
// compute it, so the far end verifies without the data crossing the side
// channel.
inline uint8_t ProbePatternByte(int wr, uint64_t k) {
  return static_cast<uint8_t>((k * 131 + wr * 29 + 7) & 0xff);
}
// Writes WR `wr`'s message into the layout's spans of the send buffer at
// `base` (registered with `lkey`) and returns the SGEs that send it.
std::vector<ibv_sge> WriteMessage(const SgeLayout& l, uint8_t* base, uint32_t lkey, int wr);
// Sets `bytes` of the target to bytes that differ from every expected one,
// so a byte the transfer did not write shows as a mismatch.
void PrefillTarget(uint8_t* dst, int wr, uint64_t bytes);
// The first of `bytes` offsets where `dst` is not WR `wr`'s message.
std::optional<uint64_t> FirstMismatch(const uint8_t* dst, int wr, uint64_t bytes);

// One receive WR over the whole of b.region; the error names ibv_post_recv
// and the device.
absl::Status PostProbeRecv(const ProbeEnd& b, uint64_t wr_id);
// The signaled SEND or RDMA WRITE (to remote_addr / rkey) of `sges`; the
// error names ibv_post_send, the device, the opcode and the SGE count.
absl::Status PostProbeSend(const ProbeEnd& a, uint64_t wr_id, ProbeOp op, std::vector<ibv_sge>& sges,
                           uint64_t remote_addr, uint32_t rkey);

// Waits up to deadline_s (or *stop) for the send's completion on a's CQ and
// records it in *w (RecordSendCompletion); true when it succeeded.
bool WaitSendCompletion(const ProbeEnd& a, double deadline_s, const std::atomic<bool>* stop, WrOutcome* w,
                        bool* interrupted);
// What is left of deadline_s since `since` (monotonic seconds), never < 0.
double SecondsLeft(double deadline_s, double since);

// The port's hw_counters now, or nullopt when they cannot be read.
std::optional<Counters> SnapCounters(const std::string& sysfs_root, const ProbeEnd& e);
// ibv_query_qp's state ("RTS", "ERR"), "none" before the QP exists.
std::string QpStateOf(const ProbeEnd& e);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_PROBE_STEPS_H_
