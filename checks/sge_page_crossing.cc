#include "checks/sge_page_crossing.h"

#include <map>
#include <memory>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checks/hung_qp.h"
#include "acts/probe/classify.h"
#include "checks/qdisc_path.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kSge4KBytes = 256;   // 128 B each side of the boundary
constexpr uint32_t kSge2MBytes = 4096;  // 2 KiB each side
constexpr uint32_t k2MSges = 3;         // needs 4 huge pages (8 MiB)

std::string BoundaryName(uint64_t b) { return b >= kPage2M ? "2 MiB" : "4 KiB"; }

struct Group {
  int total = 0, ok = 0;
  uint32_t max_sge_ok = 0;
  uint64_t sges = 0, bytes = 0, crossing = 0;
  uint32_t sge_bytes = 0;
  const WrOutcome* failed = nullptr;
};

}  // namespace

const std::vector<SuspectedSgeDriver>& SuspectedSgeDrivers() {
  // A field report describes an older NIC, not named, that silently dropped a
  // WQE whose SGE crossed a 4 KiB page. No driver source or public report
  // confirms it for any driver (docs/checks/sge-page-crossing.md); these are
  // the drivers of that hardware era, so they only WARN.
  static const auto* table = new std::vector<SuspectedSgeDriver>{
      {"ehca", "unverified: IBM eHCA (driver removed in Linux 4.x), of the era "
               "docs/checks/sge-page-crossing.md describes; no source or report confirms a page-crossing limit"},
      {"ipath", "unverified: QLogic InfiniPath (removed), of that era; no source or report confirms it"},
      {"mthca", "unverified: Mellanox InfiniHost (pre-ConnectX), of that era; no source or report confirms it"},
      {"qib", "unverified: QLogic/Intel TrueScale, of that era; no source or report confirms it"},
  };
  return *table;
}

std::vector<WrSpec> SgePageCrossingCheck::Wrs(uint32_t max_sge) {
  std::vector<WrSpec> out;
  if (max_sge == 0) max_sge = 1;
  for (ProbeOp op : {ProbeOp::kSend, ProbeOp::kRdmaWrite}) {
    for (uint32_t n = 1; n <= max_sge; ++n) out.push_back({op, kSge4KBytes, n, kPage4K});
  }
  for (ProbeOp op : {ProbeOp::kSend, ProbeOp::kRdmaWrite}) {
    out.push_back({op, kSge2MBytes, 1, kPage2M});
    if (max_sge >= k2MSges) out.push_back({op, kSge2MBytes, k2MSges, kPage2M});
  }
  return out;
}

Result SgePageCrossingCheck::Run(const CheckContext& ctx) const {
  const std::string deadline = absl::StrFormat("%g", ctx.options.probe_deadline_s);
  const std::string title = "SENDs and RDMA WRITEs whose every SGE crosses a page arrive intact, 1 to max_send_sge SGEs";
  if (!ctx.view.live()) return ResultBuilder::Skip(*this, title, "traffic probe needs a live device");
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  if (devs.empty()) return ResultBuilder::Skip(*this, title, "no RDMA device");
  if (!ctx.device_for) return ResultBuilder::CouldNotRun(*this, title, "no Device to run the probe on");
  ResultBuilder b(*this, title);
  for (const DeviceInfo* dev : devs) {
    std::vector<const PortInfo*> ports = ctx.SelectedPorts(*dev);
    const int port = ports.empty() ? 1 : ports[0]->port_num;
    PeerChoice peer = ChoosePeer(ctx.view, *dev, port);
    const std::string pair = absl::StrCat(dev->name, " -> ", peer.loopback ? dev->name : peer.peer->name);
    if (RefuseDroppingPath(ctx.view, *dev, port, peer.loopback ? nullptr : peer.peer, peer.peer_port, pair, b))
      continue;
    std::unique_ptr<Device> d = OpenOrWarn(ctx, *dev, "probe", b);
    if (d == nullptr) continue;
    const uint32_t max_sge = static_cast<uint32_t>(dev->Attr("max_sge").value_or(1));
    ProbeRequest req = MakeProbeRequest(ctx, *dev, port, peer);
    req.want_max_sge = true;
    req.wrs = Wrs(max_sge);
    absl::StatusOr<ProbeResult> got = d->RunTrafficProbe(req);
    if (absl::IsUnimplemented(got.status())) {
      return ResultBuilder::Skip(*this, title, std::string(got.status().message()));
    }
    if (!got.ok()) {
      b.Expect(absl::StrCat("probe setup ", pair), "connected RC QP pair", std::string(got.status().message()),
               Verdict::kWarn);
      b.Note(absl::StrCat("could not carry out the probe ", pair));
      continue;
    }
    const ProbeResult& r = *got;
    b.Note(absl::StrCat("peer: ", peer.why));
    ReportPath(r, b);
    b.Expect(absl::StrCat(r.device, " QP max_send_sge granted"),
             absl::StrCat(">= 1 (asked for max_sge ", r.requested_send_sge, ")"), absl::StrCat(r.granted_send_sge),
             r.granted_send_sge >= 1 ? Verdict::kPass : Verdict::kFail);
    // One row per (operation, boundary): WRs of 1..N SGEs.
    std::map<std::tuple<int, uint64_t>, Group> groups;
    bool skipped_2m = false;
    for (const WrOutcome& w : r.wrs) {
      if (w.state == WrState::kNotRun) {  // skipped here, or after the first failure
        skipped_2m = skipped_2m || (!w.skip_reason.empty() && w.spec.straddle >= kPage2M);
        continue;
      }
      Group& g = groups[{static_cast<int>(w.spec.op), w.spec.straddle}];
      g.sge_bytes = w.spec.bytes;
      ++g.total;
      if (w.state == WrState::kCompleted && w.verified) {
        ++g.ok;
        g.max_sge_ok = std::max(g.max_sge_ok, w.num_sge);
        g.sges += w.num_sge;
        g.bytes += w.total_bytes;
        g.crossing += w.sges_crossing;
      } else if (g.failed == nullptr) {
        g.failed = &w;
      }
    }
    for (const auto& [key, g] : groups) {
      const ProbeOp op = static_cast<ProbeOp>(std::get<0>(key));
      const uint64_t boundary = std::get<1>(key);
      std::string subject =
          absl::StrCat(ProbeOpName(op), " ", r.device, " -> ", r.peer_device, ", SGEs of ", g.sge_bytes,
                       " B each crossing a ", BoundaryName(boundary), " boundary");
      std::string expected = absl::StrCat(g.total, " WRs complete within ", deadline, " s, every byte as sent");
      if (g.failed == nullptr && g.ok == g.total) {
        Verdict v = g.crossing == g.sges ? Verdict::kPass : Verdict::kWarn;
        b.Expect(subject, expected,
                 absl::StrCat(g.ok, " of ", g.total, " completed and verified, up to ", g.max_sge_ok, " SGEs: ",
                              g.crossing, " of ", g.sges, " SGEs crossing a ", BoundaryName(boundary), " page, ",
                              g.bytes, " B"),
                 v);
      } else {
        const WrOutcome& f = *g.failed;
        std::string what;
        switch (f.state) {
          case WrState::kError:
            what = absl::StrCat("status ", f.wc_status, " (", f.wc_status_text, ")");
            break;
          case WrState::kNoCompletion:
            what = absl::StrCat("no completion after ", absl::StrFormat("%.2f", f.seconds), " s");
            break;
          case WrState::kPostFailed:
            what = absl::StrCat("post failed: ", f.post_error);
            break;
          default:
            what = absl::StrCat("byte ", f.first_mismatch.value_or(0), " differs");
        }
        b.Expect(subject, expected,
                 absl::StrCat(g.ok, " of ", g.total, " completed; WR ", f.index, " with ", f.num_sge, " SGEs (",
                              f.sges_crossing, " crossing): ", what),
                 Verdict::kFail);
      }
    }
    for (const std::string& n : r.notes) b.Note(n);
    // Where the probe's time went (docs/performance.md), for a slow run.
    b.Note(absl::StrCat(r.CompletedCount(), " WRs in ", Ms(r.seconds), ": set up ", Ms(r.setup_seconds),
                        ", posting and completions ", Ms(r.wait_seconds), ", hw_counters read ",
                        Ms(r.counters_seconds), ", bytes written and compared ", Ms(r.bytes_seconds)));
    if (skipped_2m) {
      b.Note(absl::StrCat("2 MiB part skipped; sysctl vm.nr_hugepages=", k2MSges + 1, " reserves enough for it"));
    }
    ReportFailure(ctx, r, b);
    if (ctx.options.suspect_legacy_sge && dev->driver) {
      for (const SuspectedSgeDriver& s : SuspectedSgeDrivers()) {
        if (*dev->driver != s.driver) continue;
        b.Expect(absl::StrCat(dev->name, " driver"), "not in the table of suspected SGE page-crossing deviations",
                 absl::StrCat(s.driver, ": ", s.reason), Verdict::kWarn);
        b.Remedy("align each SGE's buffer so that it does not cross a 4 KiB page, or split it into one SGE per "
                 "page (docs/checks/sge-page-crossing.md)");
      }
    }
  }
  return b.Build();
}

}  // namespace rdmacheck
