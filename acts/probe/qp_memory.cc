#include "acts/probe/qp_memory.h"

#include <infiniband/verbs.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "acts/probe/probe.h"
#include "util/status_macros.h"
#include "verbs/context.h"
#include "verbs/resources.h"
#include "util/clock.h"

namespace rdmacheck {
namespace {

absl::StatusOr<std::string> Slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("open ", path, ": cannot read"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ibv_qp_type ToIbv(QpType t) {
  switch (t) {
    case QpType::kRc: return IBV_QPT_RC;
    case QpType::kUc: return IBV_QPT_UC;
    case QpType::kUd: return IBV_QPT_UD;
  }
  return IBV_QPT_RC;
}

}  // namespace

absl::Status ParseMemoryFields(absl::string_view text, absl::string_view what, MemorySnapshot* out) {
  struct Field {
    absl::string_view name;
    std::optional<uint64_t> MemorySnapshot::*slot;
  };
  static constexpr Field kFields[] = {
      {"VmRSS", &MemorySnapshot::vm_rss},
      {"VmPin", &MemorySnapshot::vm_pin},
      {"VmLck", &MemorySnapshot::vm_lck},
      {"VmallocUsed", &MemorySnapshot::vmalloc_used},
  };
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(line, absl::MaxSplits(':', 1));
    for (const Field& f : kFields) {
      if (kv.first != f.name) continue;
      absl::string_view v = absl::StripAsciiWhitespace(kv.second);
      uint64_t kb = 0;
      if (!absl::ConsumeSuffix(&v, "kB") || !absl::SimpleAtoi(absl::StripAsciiWhitespace(v), &kb)) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ":", line_no, ": ", f.name, " is '", kv.second, "', not '<number> kB'"));
      }
      out->*(f.slot) = kb * 1024;
    }
  }
  return absl::OkStatus();
}

uint64_t UverbsMappedBytes(absl::string_view maps) {
  uint64_t total = 0;
  for (absl::string_view line : absl::StrSplit(maps, '\n', absl::SkipEmpty())) {
    // "7f12a000-7f12c000 rw-s 00000000 00:05 123  /dev/infiniband/uverbs0"
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() < 6 || !absl::StartsWith(f[5], "/dev/infiniband/uverbs")) continue;
    std::pair<absl::string_view, absl::string_view> range = absl::StrSplit(f[0], absl::MaxSplits('-', 1));
    uint64_t lo = 0, hi = 0;
    if (absl::SimpleHexAtoi(range.first, &lo) && absl::SimpleHexAtoi(range.second, &hi) && hi > lo) total += hi - lo;
  }
  return total;
}

absl::StatusOr<MemorySnapshot> ReadMemorySnapshot(const std::string& status_path,
                                                  const std::string& meminfo_path,
                                                  const std::string& maps_path) {
  MemorySnapshot s;
  RDMACHECK_ASSIGN_OR_RETURN(std::string status, Slurp(status_path));
  RDMACHECK_RETURN_IF_ERROR(ParseMemoryFields(status, status_path, &s));
  // meminfo is the kernel's view (system-wide); missing it is not fatal.
  absl::StatusOr<std::string> meminfo = Slurp(meminfo_path);
  if (meminfo.ok()) RDMACHECK_RETURN_IF_ERROR(ParseMemoryFields(*meminfo, meminfo_path, &s));
  absl::StatusOr<std::string> maps = Slurp(maps_path);
  if (maps.ok()) s.uverbs_mapped = UverbsMappedBytes(*maps);
  return s;
}

absl::StatusOr<QpMemoryMeasurement> MeasureQpMemory(const QpMemoryRequest& req) {
  if (req.device.empty()) return absl::InvalidArgumentError("MeasureQpMemory: no device");
  if (req.count == 0 || req.count > QpMemoryRequest::kMaxQps) {
    return absl::InvalidArgumentError(absl::StrCat("MeasureQpMemory(dev=", req.device, "): count=", req.count,
                                                   " must be 1..", QpMemoryRequest::kMaxQps));
  }
  if (!(req.deadline_s > 0 && req.deadline_s <= 60)) {
    return absl::InvalidArgumentError(
        absl::StrCat("MeasureQpMemory(dev=", req.device, "): deadline_s=", req.deadline_s, " must be in (0, 60]"));
  }
  // First, so it is destroyed last: everything below is released before a
  // SIGINT is passed on.
  SigintGuard sigint;
  const double t0 = MonotonicSeconds();
  QpMemoryMeasurement m;
  m.device = req.device;
  m.requested = req.count;

  RDMACHECK_ASSIGN_OR_RETURN(verbs::Context ctx, verbs::Context::Open(req.device));
  RDMACHECK_ASSIGN_OR_RETURN(verbs::ProtectionDomain pd, verbs::ProtectionDomain::Alloc(ctx));
  // One CQ shared by all the QPs: the measured difference is the QPs alone
  // (memory-budget counts CQs on their own rows).
  RDMACHECK_ASSIGN_OR_RETURN(verbs::CompletionQueue cq, verbs::CompletionQueue::Create(ctx, 16));
  std::optional<verbs::SharedReceiveQueue> srq;
  if (req.with_srq) {
    RDMACHECK_ASSIGN_OR_RETURN(verbs::SharedReceiveQueue s,
                               verbs::SharedReceiveQueue::Create(pd, std::max<uint32_t>(req.caps.max_recv_wr, 1),
                                                                 std::max<uint32_t>(req.caps.max_recv_sge, 1)));
    srq.emplace(std::move(s));
  }
  ibv_qp_cap want{};
  want.max_send_wr = req.caps.max_send_wr;
  want.max_send_sge = req.caps.max_send_sge;
  want.max_inline_data = req.caps.max_inline_data;
  if (!req.with_srq) {
    want.max_recv_wr = req.caps.max_recv_wr;
    want.max_recv_sge = req.caps.max_recv_sge;
  }
  RDMACHECK_ASSIGN_OR_RETURN(m.before, ReadMemorySnapshot());
  std::vector<verbs::QueuePair> qps;
  qps.reserve(req.count);
  for (uint32_t i = 0; i < req.count; ++i) {
    if (ProbeInterruptFlag().load()) {
      m.stopped = "interrupted";
      break;
    }
    if (MonotonicSeconds() - t0 > req.deadline_s) {
      m.stopped = absl::StrCat("deadline of ", req.deadline_s, " s");
      break;
    }
    absl::StatusOr<verbs::QueuePair> qp =
        verbs::QueuePair::Create(pd, cq, cq, ToIbv(req.type), want, srq ? &*srq : nullptr);
    if (!qp.ok()) {
      if (qps.empty()) return qp.status();
      m.stopped = std::string(qp.status().message());
      break;
    }
    if (qps.empty()) {
      const ibv_qp_cap& g = qp->granted();
      m.granted.max_send_wr = g.max_send_wr;
      m.granted.max_recv_wr = g.max_recv_wr;
      m.granted.max_send_sge = g.max_send_sge;
      m.granted.max_recv_sge = g.max_recv_sge;
      m.granted.max_inline_data = g.max_inline_data;
    }
    qps.push_back(*std::move(qp));
  }
  m.created = static_cast<uint32_t>(qps.size());
  RDMACHECK_ASSIGN_OR_RETURN(m.after, ReadMemorySnapshot());
  qps.clear();  // QPs first, then the SRQ, CQ, PD and context as they leave scope
  m.seconds = MonotonicSeconds() - t0;
  return m;
}

}  // namespace rdmacheck
