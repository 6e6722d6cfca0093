#include "tools/bench/bench_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "acts/bench/bench_runner.h"
#include "acts/bench/sweep.h"
#include "checks/exit_codes.h"
#include "checks/qdisc_path.h"
#include "checks/run_report.h"
#include "facts/gather.h"
#include "facts/qdisc.h"
#include "facts/device_view.h"
#include "tools/peer/peer_mode.h"
#include "tools/peer/remote_bench.h"
#include "tools/bench/bench_output.h"
#include "tools/bench/bench_plot.h"
#include "util/output_file.h"
#include "util/stop_flag.h"
#include "verbs/context.h"

namespace rdmacheck {

absl::StatusOr<std::vector<int>> ParseCpuList(const std::string& text) {
  std::vector<int> cpus;
  for (absl::string_view w : absl::StrSplit(text, ',')) {
    std::vector<absl::string_view> r = absl::StrSplit(w, absl::MaxSplits('-', 1));
    int lo = 0, hi = 0;
    if (!absl::SimpleAtoi(r[0], &lo) || (r.size() == 2 && !absl::SimpleAtoi(r[1], &hi)) || lo < 0 ||
        (r.size() == 2 && hi < lo) || lo >= 4096 || hi >= 4096) {
      return absl::InvalidArgumentError(absl::StrCat("'", w, "' is not a CPU number or range (e.g. 0,2-3)"));
    }
    if (r.size() == 1) hi = lo;
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

absl::Status FitUnderQdiscs(const DeviceView& view, const BenchOptions& o, BenchSettings* s, std::string* warning) {
  const DeviceInfo* dev = view.Device(o.ends.device);
  if (dev == nullptr) return absl::OkStatus();
  const QdiscPath path = QdiscPathOf(view, *dev, o.ends.port, nullptr, 0);
  const int asked = s->mtu > 0 ? s->mtu : path.active_mtu;
  std::optional<PathQdisc> pq = path.Dropping(asked);
  if (!pq) return absl::OkStatus();
  const int fit = path.FittingMtu(asked);
  const std::string why = absl::StrCat(
      pq->netdev, " has qdisc ", QdiscText(pq->q), ", which passes frames of at most ",
      LargestFramePassed(pq->q).value_or(0), " B, less than a RoCE frame of path MTU ", asked, " (",
      RoceFrameBytes(asked), " B): rxe retries each packet it drops without end (docs/checks/bandwidth.md). Fix: ",
      QdiscFix(*pq));
  const bool mtu_sweep = o.sweep && (absl::StrContains(*o.sweep, "mtu") || absl::StrContains(*o.sweep, "all"));
  if (s->mtu > 0 || mtu_sweep || fit == 0)
    return absl::FailedPreconditionError(absl::StrCat(why, s->mtu > 0 ? "; -m " : "", s->mtu > 0 ? absl::StrCat(s->mtu) : "",
                                                      mtu_sweep ? "; the MTU sweep would send into it" : "",
                                                      fit == 0 ? "; no path MTU down to 256 fits" : ""));
  s->mtu = fit;
  *warning = absl::StrCat(why, ". Running at -m ", fit, ", the largest whose frames (", RoceFrameBytes(fit),
                          " B) it passes.");
  return absl::OkStatus();
}

namespace {

bool Ok(const BenchResult& r) { return r.end == BenchEnd::kOk; }

// This host's view of the device (sysfs, no verbs) with its netdevs' qdiscs.
absl::StatusOr<DeviceView> QdiscView(const std::string& device) {
  GatherOptions g;
  g.only_device = device;
  g.use_verbs = false;
  g.read_rulesets = false;
  return GatherLive(g);
}

// The far device as the runs named it ("rxe1@198.18.0.2" with --peer).
std::string FarName(const BenchOptions& o, const SweepResult& sw) {
  for (const SweepRow& r : sw.rows)
    if (r.result) return r.result->peer_device;
  return o.ends.peer_device.empty() ? o.ends.device : o.ends.peer_device;
}

// The first CPU this process may run on other than the one it is on, for
// the pinning point (any CPU of the mask when there is one only).
int PinCpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  const int here = sched_getcpu();
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    if (first < 0) first = c;
    if (c != here) return c;
  }
  return first < 0 ? 0 : first;
}

}  // namespace

BenchSettings SettingsOf(const BenchOptions& o) {
  BenchSettings s = o.settings;
  if (o.tx_depth) s.tx_depth = *o.tx_depth;
  if (!o.latency) return s;
  s.mode = BenchMode::kLatency;
  if (!o.tx_depth) s.tx_depth = kDefaultLatTxDepth;
  if (!o.size_given) s.size = kDefaultLatSize;
  if (!o.iters_given) s.iters = kDefaultLatIters;
  return s;
}

int RunBenchCommand(const BenchOptions& in, std::ostream& out, std::ostream& err) {
  SigintGuard sigint;  // Ctrl-C ends the run, everything is released, then 130
  BenchOptions o = in;
  if (o.advise && !o.sweep) {
    err << "rdmacheck bench: --advise needs --sweep (what to advise from) (see rdmacheck bench --help)\n";
    return kExitUsage;
  }
  if (o.pin) {
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(*o.pin);
    if (!cpus.ok()) {
      err << "rdmacheck bench: --pin: " << cpus.status().message() << " (see rdmacheck bench --help)\n";
      return kExitUsage;
    }
    o.settings.pin_cpus = *cpus;
  }
  if (o.settings.threads > o.settings.qps) {
    err << "rdmacheck bench: --threads " << o.settings.threads << " needs at least as many QPs (-q " << o.settings.qps
        << "): each thread posts and polls QPs of its own (see rdmacheck bench --help)\n";
    return kExitUsage;
  }
  o.settings = SettingsOf(o);
  if (o.latency) {
    if (o.settings.op != BenchOp::kWrite) {
      err << "rdmacheck bench: --lat measures RDMA WRITE latency (ib_write_lat); --op " << BenchOpName(o.settings.op)
          << " has no latency run here (see rdmacheck bench --help)\n";
      return kExitUsage;
    }
  }
  if (o.ends.device.empty()) {
    absl::StatusOr<verbs::DeviceList> list = verbs::DeviceList::Get();
    if (!list.ok() || list->empty()) {
      err << "rdmacheck bench: no RDMA device found"
          << (list.ok() ? "" : absl::StrCat(" (", list.status().message(), ")"))
          << "; rdmacheck -d DEV says why (docs/checks/device-present.md)\n";
      return kExitNothingRan;
    }
    o.ends.device = list->Names()[0];
  }
  // --peer: the far end's half is that host's `rdmacheck serve`. Declared
  // before the runner, so the runner's session closes the far end's QPs
  // (BENCH_END) before the channel says BYE.
  std::optional<PeerClient> peer;
  std::optional<ChannelBenchPeer> far;
  if (o.peer) {
    if (absl::StatusOr<std::pair<std::string, int>> hp = ParseHostPort(*o.peer); !hp.ok()) {
      err << "rdmacheck bench: --peer " << *o.peer << ": " << hp.status().message() << " (see rdmacheck bench --help)\n";
      return kExitUsage;
    }
    // The far end logs which device it serves; the full view is not needed.
    DeviceView mine;
    mine.source = "live";
    mine.provenance.push_back("rdmacheck bench --peer: this end's device only");
    mine.devices.emplace_back();
    mine.devices.back().name = o.ends.device;
    absl::StatusOr<PeerClient> c = PeerClient::Open(*o.peer, mine, kToolVersion);
    if (!c.ok()) {
      err << "rdmacheck bench: --peer " << *o.peer << ": " << c.status().message() << "\n";
      return kExitNothingRan;
    }
    peer.emplace(*std::move(c));
    far.emplace(peer->channel(), peer->host());
    o.ends.far = &*far;
  }
  // Nothing into a qdisc that drops full-size frames: the gather reads the
  // sending netdev's (with --peer, the far end's receive side only carries ACKs).
  if (absl::StatusOr<DeviceView> qv = QdiscView(o.ends.device); qv.ok()) {
    std::string warning;
    if (absl::Status st = FitUnderQdiscs(*qv, o, &o.settings, &warning); !st.ok()) {
      err << "rdmacheck bench: " << st.message() << "\n";
      return kExitNothingRan;
    }
    if (!warning.empty()) err << "rdmacheck bench: " << warning << "\n";
  }
  // -D as perftest runs it: the first and last margin are not counted. The
  // margin is -D / 4 in whole seconds (perftest_parameters.c: margin =
  // duration / 4 on ints, whatever its --help says of 2 s): 1 s of -D 5.
  if (o.settings.duration_s > 0) o.settings.warmup_s = std::floor(o.settings.duration_s / 4);
  LiveRunner runner(o.ends);
  const bool gbits = o.report_gbits;
  if (!o.sweep) {
    absl::StatusOr<BenchResult> r = runner.Run(o.settings);
    if (!r.ok()) {
      err << "rdmacheck bench: " << r.status().message() << "\n";
      return kExitNothingRan;
    }
    if (o.format == "json") {
      out << RunJson(*r).dump(2) << "\n";
    } else if (o.format == "csv") {
      out << RunCsv(*r);
    } else {
      out << RunTable(*r, gbits);
    }
    if (r->end == BenchEnd::kInterrupted) return 130;
    return Ok(*r) ? kExitOk : kExitFail;
  }

  absl::StatusOr<std::vector<SweepDim>> dims = ParseSweepDims(*o.sweep);
  if (!dims.ok()) {
    err << "rdmacheck bench: --sweep: " << dims.status().message() << " (see rdmacheck bench --help)\n";
    return kExitUsage;
  }
  // Each point runs until stable, unless -D gives its duration.
  BenchSettings base = o.settings;
  if (base.duration_s == 0) {
    base.stop = kSweepStop;
    base.warmup_s = kSweepWarmup;
  }
  const bool tty = isatty(STDERR_FILENO);
  auto progress = [&](int done, int total, const SweepRow& row) {
    if (!o.progress) return;
    std::string fig = !row.result ? "not measured"
                      : row.result->settings.mode == BenchMode::kLatency
                          ? absl::StrFormat("%.2f us", row.result->lat.median_us)
                          : absl::StrFormat("%.3f Gb/s", row.result->bw_avg_gbps);
    err << (tty ? "\r\x1b[K" : "") << "[" << done << "/" << total << "] " << SweepDimName(row.point.dim) << " "
        << row.point.value << ": " << fig << (tty && done < total ? "" : "\n") << std::flush;
  };
  SweepResult sw = RunSweep(runner, base, *dims, PinCpu(), progress);
  std::optional<Advice> advice;
  if (o.advise) advice = Advise(sw, base, &runner);
  if (o.plot) {
    const std::string title = absl::StrCat(BenchOpName(base.op), base.mode == BenchMode::kLatency ? " latency" : " bandwidth",
                                           " sweep: ", o.ends.device, " -> ", FarName(o, sw));
    if (absl::Status s = WriteFileAtomically(*o.plot, SweepSvg(sw, gbits, title)); !s.ok()) {
      err << "rdmacheck bench: --plot " << *o.plot << ": " << s.message() << "\n";
      return kExitUsage;
    }
  }
  if (o.format == "json") {
    out << SweepJson(sw, advice ? &*advice : nullptr).dump(2) << "\n";
  } else if (o.format == "csv") {
    out << SweepCsv(sw);
  } else {
    out << SweepTable(sw, gbits);
    if (advice) out << AdviceText(*advice);
    out << " sessions opened: " << runner.sessions_opened() << "\n";
  }
  bool all_ok = !sw.rows.empty();
  for (const SweepRow& r : sw.rows) {
    if (r.result && r.result->end == BenchEnd::kInterrupted) return 130;
    all_ok = all_ok && r.result && Ok(*r.result);
  }
  if (sw.rows.empty() || !sw.rows[0].result) {
    bool any = false;
    for (const SweepRow& r : sw.rows) any = any || r.result.has_value();
    if (!any) return kExitNothingRan;
  }
  return all_ok ? kExitOk : kExitFail;
}

}  // namespace rdmacheck
