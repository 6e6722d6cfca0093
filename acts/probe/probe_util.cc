#include "acts/probe/probe_util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "acts/probe/gid_choice.h"
#include "facts/gid_table.h"
#include "util/status_macros.h"
#include "verbs/errors.h"
#include "util/clock.h"

namespace rdmacheck {

absl::StatusOr<PortGid> ResolvePortGid(const verbs::Context& ctx, const std::string& sysfs_root,
                                       const std::string& dev, int port, std::optional<int> gid_index) {
  PortGid pg;
  RDMACHECK_ASSIGN_OR_RETURN(pg.attr, ctx.QueryPort(static_cast<uint8_t>(port)));
  if (pg.attr.state != IBV_PORT_ACTIVE) {
    return absl::FailedPreconditionError(
        absl::StrCat(dev, " port ", port, " is ", ibv_port_state_str(pg.attr.state), ", not ACTIVE"));
  }
  constexpr int kGidScan = 64;
  if (gid_index) {
    RDMACHECK_ASSIGN_OR_RETURN(pg.gid, ReadGid(sysfs_root, dev, port, *gid_index));
  } else {
    std::vector<GidEntry> table = ReadGidTable(sysfs_root, dev, port, std::min<int>(kGidScan, pg.attr.gid_tbl_len));
    RDMACHECK_ASSIGN_OR_RETURN(pg.gid, ChooseGid(table, std::nullopt, absl::StrCat(dev, " port ", port)));
  }
  if (inet_pton(AF_INET6, pg.gid.gid.c_str(), pg.raw.raw) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(dev, " GID ", pg.gid.index, " '", pg.gid.gid, "' is not an IPv6 address"));
  }
  return pg;
}

absl::StatusOr<MappedBuffer> MappedBuffer::Map(uint64_t bytes, bool huge) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (huge ? MAP_HUGETLB : 0);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    int err = errno;
    return verbs::VerbsError(absl::StrCat("mmap(length=", bytes, huge ? " MAP_HUGETLB" : "", ")"), err);
  }
  return MappedBuffer(static_cast<uint8_t*>(p), bytes);
}

MappedBuffer::MappedBuffer(MappedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}

MappedBuffer::~MappedBuffer() {
  if (p_ != nullptr) munmap(p_, n_);
}

absl::StatusOr<Region> MakeRegion(const verbs::ProtectionDomain& pd, uint64_t bytes, bool huge, int access) {
  RDMACHECK_ASSIGN_OR_RETURN(MappedBuffer buf, MappedBuffer::Map(bytes, huge));
  RDMACHECK_ASSIGN_OR_RETURN(verbs::MemoryRegion mr, verbs::MemoryRegion::Register(pd, buf.data(), bytes, access));
  return Region{std::move(buf), std::move(mr)};
}

CompletionPoller PollerFor(const verbs::CompletionQueue& cq) {
  CompletionPoller p;
  ibv_cq* c = cq.get();
  p.poll = [c](int n, ibv_wc* wc) { return ibv_poll_cq(c, n, wc); };
  return p;
}

void DrainAsyncEvents(const verbs::Context& vctx, const std::string& dev, double wait_s, AsyncEventText text,
                      std::vector<std::string>* out) {
  const bool detail = text == AsyncEventText::kWithElement;
  ibv_context* ctx = vctx.get();
  int flags = fcntl(ctx->async_fd, F_GETFL);
  if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    if (detail) out->push_back(absl::StrCat("async events of ", dev, " not read: fcntl: ", verbs::ErrnoText(errno)));
    return;
  }
  const double end = MonotonicSeconds() + wait_s;
  for (int i = 0; i < 64; ++i) {
    int ms = std::max(0, static_cast<int>((end - MonotonicSeconds()) * 1000));
    pollfd p{ctx->async_fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) break;
    ibv_async_event ev;
    if (ibv_get_async_event(ctx, &ev) != 0) break;
    std::string what = absl::StrCat(ibv_event_type_str(ev.event_type), " on ", dev);
    if (detail) {
      switch (ev.event_type) {
        case IBV_EVENT_QP_FATAL:
        case IBV_EVENT_QP_REQ_ERR:
        case IBV_EVENT_QP_ACCESS_ERR:
        case IBV_EVENT_COMM_EST:
        case IBV_EVENT_SQ_DRAINED:
        case IBV_EVENT_PATH_MIG:
        case IBV_EVENT_PATH_MIG_ERR:
        case IBV_EVENT_QP_LAST_WQE_REACHED:
          absl::StrAppend(&what, " (qp ", ev.element.qp->qp_num, ")");
          break;
        case IBV_EVENT_CQ_ERR:
          absl::StrAppend(&what, " (CQ_ERR)");
          break;
        default:
          break;
      }
    }
    out->push_back(std::move(what));
    ibv_ack_async_event(&ev);
  }
}

}  // namespace rdmacheck
