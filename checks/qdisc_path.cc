#include "checks/qdisc_path.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

// The netdevs a port's RoCE packets pass, top down: the GIDs' netdevs
// (a VLAN) and what lies below them (its parent, a bond's slaves), each with
// its own qdisc.
std::vector<std::string> NetdevsOf(const DeviceView& view, const DeviceInfo* d, int port) {
  std::vector<std::string> out;
  const PortInfo* p = d ? d->Port(port) : nullptr;
  if (p == nullptr) return out;
  std::vector<std::string> todo = RoceNetdevs(*d, *p);
  for (size_t i = 0; i < todo.size() && out.size() < 16; ++i) {
    if (std::find(out.begin(), out.end(), todo[i]) != out.end()) continue;
    out.push_back(todo[i]);
    if (const NetdevInfo* n = view.Netdev(todo[i])) todo.insert(todo.end(), n->lower.begin(), n->lower.end());
  }
  return out;
}

}  // namespace

QdiscPath QdiscPathOf(const DeviceView& view, const DeviceInfo& dev, int port, const DeviceInfo* peer,
                      int peer_port) {
  QdiscPath path;
  if (const PortInfo* p = dev.Port(port); p && p->active_mtu) path.active_mtu = std::min(path.active_mtu, *p->active_mtu);
  if (peer != nullptr)
    if (const PortInfo* p = peer->Port(peer_port); p && p->active_mtu)
      path.active_mtu = std::min(path.active_mtu, *p->active_mtu);
  const std::vector<std::string> here = NetdevsOf(view, &dev, port);
  std::vector<std::string> all = here;
  for (const std::string& nd : NetdevsOf(view, peer, peer_port)) all.push_back(nd);
  std::vector<std::string> seen;
  for (const std::string& nd : all) {
    if (std::find(seen.begin(), seen.end(), nd) != seen.end()) continue;
    seen.push_back(nd);
    const NetdevInfo* n = view.Netdev(nd);
    if (n == nullptr) continue;
    const bool sender = std::find(here.begin(), here.end(), nd) != here.end();
    for (const Qdisc& q : n->qdiscs) path.qdiscs.push_back({nd, q, sender});
  }
  return path;
}

std::optional<PathQdisc> QdiscPath::Dropping(int mtu) const {
  for (const PathQdisc& pq : qdiscs) {
    std::optional<uint64_t> largest = LargestFramePassed(pq.q);
    if (pq.sender && largest && *largest < RoceFrameBytes(mtu)) return pq;
  }
  return std::nullopt;
}

int QdiscPath::FittingMtu(int mtu) const {
  for (int m = 4096; m >= 256; m /= 2)
    if (m <= mtu && !Dropping(m)) return m;
  return 0;
}

void ReportDroppingQdisc(const PathQdisc& pq, int mtu, absl::string_view pair, ResultBuilder& b) {
  const uint64_t largest = LargestFramePassed(pq.q).value_or(0);
  b.Expect(absl::StrCat(pq.netdev, " qdisc ", QdiscText(pq.q)),
           absl::StrCat("passes the RoCE frames of path MTU ", mtu, " (", RoceFrameBytes(mtu), " B)"),
           absl::StrCat("passes frames of at most ", largest, " B: it drops every full-size RoCE packet ", pair,
                        " sends, and rxe retries each one without end (docs/checks/bandwidth.md)"),
           Verdict::kFail);
  b.Remedy(QdiscFix(pq));
}

std::string QdiscFix(const PathQdisc& pq) {
  const std::string rate = pq.q.rate_bps ? absl::StrCat(*pq.q.rate_bps / 1000000, "mbit") : "RATE";
  return absl::StrCat("tc qdisc replace dev ", pq.netdev, " root tbf rate ", rate,
                      " burst 64kb latency 50ms   # a bucket that holds a frame of ", RoceFrameBytes(4096),
                      " B; or remove the shaper: tc qdisc del dev ", pq.netdev, " root");
}

bool RefuseDroppingPath(const DeviceView& view, const DeviceInfo& dev, int port, const DeviceInfo* peer,
                        int peer_port, absl::string_view pair, ResultBuilder& b) {
  const QdiscPath path = QdiscPathOf(view, dev, port, peer, peer_port);
  std::optional<PathQdisc> pq = path.Dropping(path.active_mtu);
  if (!pq) return false;
  ReportDroppingQdisc(*pq, path.active_mtu, pair, b);
  b.Note(absl::StrCat("not probed ", pair, ": its WRs fill packets of path MTU ", path.active_mtu,
                      ", which the qdisc on ", pq->netdev, " would drop"));
  return true;
}

bool PlainQueue(const Qdisc& q) {
  for (absl::string_view k : {"noqueue", "pfifo_fast", "fq_codel", "mq", "fq", "pfifo", "bfifo"})
    if (q.kind == k) return true;
  return false;
}

}  // namespace rdmacheck
