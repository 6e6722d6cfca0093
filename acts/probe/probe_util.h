// What the live probes (acts/probe/probe.cc, acts/probe/cq_overrun.cc,
// tools/peer/remote_probe.cc) share below the connection itself: a monotonic
// clock, a port's ACTIVE check and GID, registered buffers in plain or huge
// pages, a CQ poller for WaitForCompletions, and the async-event drain.
//
//   ASSIGN_OR_RETURN(PortGid pg, ResolvePortGid(ctx, "/sys", "rxe0", 1, std::nullopt));
//   ASSIGN_OR_RETURN(Region r, MakeRegion(pd, 4096, false, IBV_ACCESS_LOCAL_WRITE));
//   WaitOutcome w = WaitForCompletions(PollerFor(cq), 1, 2.0, nullptr);
//   DrainAsyncEvents(ctx, "rxe0", 0.05, AsyncEventText::kWithElement, &events);
#ifndef RDMACHECK_ACTS_PROBE_PROBE_UTIL_H_
#define RDMACHECK_ACTS_PROBE_PROBE_UTIL_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "facts/device_view.h"
#include "acts/probe/completion_wait.h"
#include "verbs/context.h"
#include "verbs/resources.h"

namespace rdmacheck {

// A port that is ACTIVE and the GID the probe uses on it.
struct PortGid {
  ibv_port_attr attr{};
  GidEntry gid;
  ibv_gid raw{};  // gid.gid parsed
};

// QueryPort; FailedPrecondition "<dev> port <p> is <state>, not ACTIVE";
// then entry `gid_index` of the sysfs GID table, or else ChooseGid's pick
// among the first 64 entries (where every driver puts the addresses it has);
// InvalidArgument if that GID is not an IPv6 address.
absl::StatusOr<PortGid> ResolvePortGid(const verbs::Context& ctx, const std::string& sysfs_root,
                                       const std::string& dev, int port, std::optional<int> gid_index);

// Anonymous memory (page aligned), or huge pages; unmapped on destruction.
class MappedBuffer {
 public:
  // The mmap error names the length and MAP_HUGETLB.
  static absl::StatusOr<MappedBuffer> Map(uint64_t bytes, bool huge);
  MappedBuffer(MappedBuffer&& o) noexcept;
  MappedBuffer& operator=(MappedBuffer&&) = delete;
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;
  ~MappedBuffer();
  uint8_t* data() const { return p_; }
  uint64_t size() const { return n_; }

 private:
  MappedBuffer(uint8_t* p, uint64_t n) : p_(p), n_(n) {}
  uint8_t* p_ = nullptr;
  uint64_t n_ = 0;
};

// A registered buffer: the region is deregistered before the memory goes.
struct Region {
  MappedBuffer buf;
  verbs::MemoryRegion mr;
};

absl::StatusOr<Region> MakeRegion(const verbs::ProtectionDomain& pd, uint64_t bytes, bool huge, int access);

// ibv_poll_cq on `cq`, which must outlive the poller.
CompletionPoller PollerFor(const verbs::CompletionQueue& cq);

// What each drained event reads as.
enum class AsyncEventText {
  // "<event> on <dev>", plus " (qp N)" for QP events and " (CQ_ERR)" for a
  // CQ error; a line saying so if the fd cannot be made non-blocking.
  kWithElement,
  // "<event> on <dev>" only, nothing on an fcntl failure (the peer sends its
  // list across as one ';'-joined field).
  kTypeOnly,
};

// Makes the context's async fd non-blocking and appends every event pending
// within `wait_s` (at most 64), acknowledging each.
void DrainAsyncEvents(const verbs::Context& ctx, const std::string& dev, double wait_s, AsyncEventText text,
                      std::vector<std::string>* out);

}  // namespace rdmacheck

#endif  // RDMACHECK_ACTS_PROBE_PROBE_UTIL_H_
