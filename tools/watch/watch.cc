#include "tools/watch/watch.h"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <sstream>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {
namespace {

constexpr uint32_t kPsnMask = 0xffffff;  // PSNs are 24 bits and wrap

// Forward distance a -> b modulo 2^24; values >= 2^23 mean b is behind a.
uint32_t PsnAdvance(uint32_t a, uint32_t b) { return (b - a) & kPsnMask; }

bool Connected(const std::string& type) { return type == "RC" || type == "UC"; }

std::string PsnList(const std::vector<std::optional<uint32_t>>& v) {
  std::vector<std::string> s;
  for (const auto& p : v) s.push_back(p ? absl::StrCat(*p) : "-");
  return absl::StrJoin(s, " -> ");
}

void Judge(WatchedQp* q, int samples, double interval_s) {
  for (const std::string& st : q->states) {
    if (st == "ERR" || st == "SQE") {
      q->flag = QpFlag::kError;
      q->reason = absl::StrCat("state ", absl::StrJoin(q->states, " -> "),
                               ": the QP failed; posted work completes with flush errors "
                               "(look for the first error completion in the application)");
      return;
    }
  }
  if (q->seen < 2 || !Connected(q->last.type)) return;
  // Judged only in one steady state across the samples: RTS, or RTR (a
  // receive-only responder: perftest's server side stays there).
  const std::string& st0 = q->states[0];
  if (st0 != "RTS" && st0 != "RTR") return;  // RESET/INIT: not connected yet
  for (const std::string& st : q->states)
    if (st != st0) return;  // moving through the connection states
  const bool rq_same =
      std::all_of(q->rq_psn.begin(), q->rq_psn.end(), [&](auto& p) { return p == q->rq_psn[0]; });
  if (st0 == "RTR") {
    if (rq_same) {
      q->flag = QpFlag::kNoProgress;
      q->reason = absl::StrFormat(
          "RTR (receive only), rq-psn %s unchanged over %.3g s: nothing received "
          "(idle, or stuck: if its peer should be sending, the packets are not arriving)",
          PsnList(q->rq_psn), (samples - 1) * interval_s);
    }
    return;
  }
  for (size_t i = 1; i < q->sq_psn.size(); ++i) {
    if (q->sq_psn[i - 1] && q->sq_psn[i] && PsnAdvance(*q->sq_psn[i - 1], *q->sq_psn[i]) > (kPsnMask >> 1)) {
      q->flag = QpFlag::kRetransmit;
      q->reason = absl::StrCat("sq-psn ", PsnList(q->sq_psn),
                               " went back: the requester is resending packets the peer did not "
                               "acknowledge (path blocked, e.g. UDP 4791 dropped, or the peer is gone)");
      return;
    }
  }
  bool sq_same = std::all_of(q->sq_psn.begin(), q->sq_psn.end(), [&](auto& p) { return p == q->sq_psn[0]; });
  if (sq_same && rq_same) {
    q->flag = QpFlag::kNoProgress;
    q->reason = absl::StrFormat(
        "RTS, sq-psn %s and rq-psn %s unchanged over %.3g s: nothing sent or received "
        "(idle, or stuck: if the application should be moving data, its peer's packets are not arriving)",
        PsnList(q->sq_psn), PsnList(q->rq_psn), (samples - 1) * interval_s);
  }
}

std::atomic<bool> g_stop{false};
extern "C" void OnWatchSigint(int) { g_stop.store(true); }

// Sleeps in short slices; false when Ctrl-C arrived.
bool InterruptibleSleep(double s) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
  while (std::chrono::steady_clock::now() < end) {
    if (g_stop.load()) return false;
    timespec ts{0, 20 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  return !g_stop.load();
}

}  // namespace

absl::string_view QpFlagName(QpFlag f) {
  switch (f) {
    case QpFlag::kNone: return "";
    case QpFlag::kError: return "error";
    case QpFlag::kRetransmit: return "retransmitting";
    case QpFlag::kNoProgress: return "no-progress";
  }
  return "";
}

WatchReport EvaluateSamples(const std::vector<std::vector<QpRecord>>& samples, double interval_s) {
  WatchReport rep;
  rep.samples = static_cast<int>(samples.size());
  rep.interval_s = interval_s;
  using Key = std::tuple<std::string, int, uint32_t, int64_t, std::string>;
  std::map<Key, WatchedQp> by_key;
  for (size_t s = 0; s < samples.size(); ++s) {
    for (const QpRecord& r : samples[s]) {
      Key k{r.ifname, r.port, r.lqpn, r.pid.value_or(-1), r.comm};
      WatchedQp& q = by_key[k];
      if (q.seen == 0) q.appeared = s > 0;
      q.last = r;
      q.states.push_back(r.state);
      q.sq_psn.push_back(r.sq_psn);
      q.rq_psn.push_back(r.rq_psn);
      q.gone = s + 1 < samples.size();
      ++q.seen;
    }
  }
  // Both ends on this host (one rxe device to another): pair them, so a
  // stall can say how many packets are sent but not received.
  std::map<const WatchedQp*, std::string> in_flight;
  std::map<const WatchedQp*, const WatchedQp*> starved_peer;  // requester -> a peer that received nothing
  for (auto& [k, q] : by_key) {
    // Only a requester in RTS sends: an RTR responder's sq-psn is 0, and
    // its distance to the peer's rq-psn means nothing.
    if (!Connected(q.last.type) || !q.last.rqpn || q.gone || q.last.state != "RTS") continue;
    const WatchedQp* match = nullptr;
    int n = 0;
    for (const auto& [k2, p] : by_key) {
      if (&p == &q || p.gone || !p.last.rqpn || !Connected(p.last.type)) continue;
      if (p.last.lqpn == *q.last.rqpn && *p.last.rqpn == q.last.lqpn && p.last.ifname != q.last.ifname) {
        match = &p;
        ++n;
      }
    }
    if (n != 1) continue;
    q.local_peer = match->last.Name();
    if (!q.last.sq_psn || !match->last.rq_psn) continue;
    q.unreceived = PsnAdvance(*match->last.rq_psn, *q.last.sq_psn);
    if (*q.unreceived > 0 && *q.unreceived <= (kPsnMask >> 1)) {
      in_flight[&q] = absl::StrCat("; ", *q.unreceived, " packets sent that its peer ", q.local_peer,
                                   " (on this host) has not received: sq-psn ", *q.last.sq_psn, ", the peer's rq-psn ",
                                   *match->last.rq_psn);
      if (match->seen >= 2 && std::all_of(match->rq_psn.begin(), match->rq_psn.end(),
                                          [&](auto& p) { return p == match->rq_psn[0]; }))
        starved_peer[&q] = match;
    }
  }
  for (auto& [k, q] : by_key) {
    Judge(&q, rep.samples, interval_s);
    // rxe resends from the last acknowledged PSN after each retry timeout,
    // so a blocked requester's sq-psn can move between two samples; its
    // peer on this host receiving nothing is what shows it is stuck.
    if (q.flag == QpFlag::kNone && starved_peer.count(&q)) {
      q.flag = QpFlag::kNoProgress;
      q.reason = absl::StrFormat(
          "RTS, sq-psn %s while its peer's rq-psn stays %s over %.3g s: sending (or resending), nothing "
          "received (path blocked, e.g. UDP 4791 dropped)",
          PsnList(q.sq_psn), PsnList(starved_peer[&q]->rq_psn), (rep.samples - 1) * interval_s);
    }
    if (q.flag != QpFlag::kNone && in_flight.count(&q)) q.reason += in_flight[&q];
    if (q.flag != QpFlag::kNone) ++rep.flagged;
    rep.qps.push_back(std::move(q));
  }
  if (rep.samples < 2) rep.notes.push_back("one sample: only states judged, progress needs --count 2 or more");
  return rep;
}

std::string RenderWatchText(const WatchReport& rep) {
  std::ostringstream os;
  std::map<std::string, int> devs;
  for (const WatchedQp& q : rep.qps) devs[q.last.ifname]++;
  os << absl::StrFormat("rdmacheck watch: %d QPs on %d devices, %d samples %.3g s apart\n", rep.qps.size(),
                        devs.size(), rep.samples, rep.interval_s);
  os << absl::StrFormat("%-9s %6s %6s %-4s %-14s %-22s %-22s %7s %-16s %s\n", "DEV/PORT", "LQPN", "RQPN", "TYPE",
                        "STATE", "SQ-PSN", "RQ-PSN", "PID", "COMM", "FLAG");
  for (const WatchedQp& q : rep.qps) {
    std::string state = q.states.empty() ? "-" : q.states.back();
    if (std::any_of(q.states.begin(), q.states.end(), [&](const std::string& s) { return s != state; }))
      state = absl::StrJoin(q.states, ">");
    os << absl::StrFormat("%-9s %6d %6s %-4s %-14s %-22s %-22s %7s %-16s %s\n",
                          absl::StrCat(q.last.ifname, "/", q.last.port), q.last.lqpn,
                          q.last.rqpn ? absl::StrCat(*q.last.rqpn) : "-", q.last.type, state, PsnList(q.sq_psn),
                          PsnList(q.rq_psn), q.last.pid ? absl::StrCat(*q.last.pid) : "-", q.last.comm,
                          absl::StrCat(QpFlagName(q.flag), q.appeared ? " (new)" : "", q.gone ? " (gone)" : ""));
  }
  for (const WatchedQp& q : rep.qps) {
    if (q.flag == QpFlag::kNone) continue;
    os << "\n[" << QpFlagName(q.flag) << "] " << q.last.Name() << " (pid "
       << (q.last.pid ? absl::StrCat(*q.last.pid) : "kernel") << " " << q.last.comm << "): " << q.reason << "\n";
  }
  for (const std::string& n : rep.notes) os << "note: " << n << "\n";
  os << "\n" << rep.qps.size() << " QPs, " << rep.flagged << " flagged\n";
  return os.str();
}

std::string RenderWatchJson(const WatchReport& rep) {
  nlohmann::ordered_json j;
  j["schema"] = "rdmacheck.watch/1";
  j["samples"] = rep.samples;
  j["interval_s"] = rep.interval_s;
  j["flagged"] = rep.flagged;
  j["qps"] = nlohmann::ordered_json::array();
  auto psns = [](const std::vector<std::optional<uint32_t>>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& p : v) a.push_back(p ? nlohmann::ordered_json(*p) : nlohmann::ordered_json());
    return a;
  };
  for (const WatchedQp& q : rep.qps) {
    nlohmann::ordered_json o;
    o["dev"] = q.last.ifname;
    o["port"] = q.last.port;
    o["lqpn"] = q.last.lqpn;
    o["rqpn"] = q.last.rqpn ? nlohmann::ordered_json(*q.last.rqpn) : nlohmann::ordered_json();
    o["type"] = q.last.type;
    o["pid"] = q.last.pid ? nlohmann::ordered_json(*q.last.pid) : nlohmann::ordered_json();
    o["comm"] = q.last.comm;
    o["states"] = q.states;
    o["sq_psn"] = psns(q.sq_psn);
    o["rq_psn"] = psns(q.rq_psn);
    o["path_mig_state"] = q.last.path_mig_state;
    o["appeared"] = q.appeared;
    o["gone"] = q.gone;
    o["local_peer"] = q.local_peer;
    o["unreceived_packets"] = q.unreceived ? nlohmann::ordered_json(*q.unreceived) : nlohmann::ordered_json();
    o["flag"] = std::string(QpFlagName(q.flag));
    o["reason"] = q.reason;
    j["qps"].push_back(std::move(o));
  }
  j["notes"] = rep.notes;
  return j.dump(2) + "\n";
}

QpSampler RdmaToolSampler(double deadline_s) {
  return [deadline_s]() -> absl::StatusOr<std::vector<QpRecord>> {
    absl::StatusOr<std::string> text = RunRdmaQpDump(deadline_s);
    if (!text.ok()) return text.status();
    return ParseRdmaQpJson(*text, "rdma -j -d res show qp");
  };
}

int RunWatchCommand(const WatchOptions& options, std::ostream& out, std::ostream& err, QpSampler sampler,
                    std::function<bool(double)> sleep_s) {
  const double interval = options.interval_s;
  const int count = options.count;
  const std::string& device = options.device;
  if (!sampler) sampler = RdmaToolSampler();
  // Ctrl-C ends the sampling; the report covers the samples taken.
  struct sigaction old {};
  bool installed = false;
  if (!sleep_s) {
    g_stop.store(false);
    struct sigaction sa {};
    sa.sa_handler = OnWatchSigint;
    sigemptyset(&sa.sa_mask);
    installed = sigaction(SIGINT, &sa, &old) == 0;
    sleep_s = InterruptibleSleep;
  }
  std::vector<std::vector<QpRecord>> samples;
  int code = 0;
  for (int n = 0; count == 0 || n < count; ++n) {
    if (n > 0 && !sleep_s(interval)) break;
    absl::StatusOr<std::vector<QpRecord>> s = sampler();
    if (!s.ok()) {
      err << "rdmacheck watch: " << s.status().message() << "\n";
      code = 3;
      break;
    }
    if (!device.empty()) s->erase(std::remove_if(s->begin(), s->end(), [&](const QpRecord& q) { return q.ifname != device; }), s->end());
    samples.push_back(*std::move(s));
  }
  if (installed) sigaction(SIGINT, &old, nullptr);
  if (samples.empty()) return code == 0 ? 3 : code;
  WatchReport rep = EvaluateSamples(samples, interval);
  if (code == 3) rep.notes.push_back("sampling stopped early: the dump failed (see stderr)");
  out << (options.format == "json" ? RenderWatchJson(rep) : RenderWatchText(rep));
  if (code != 0) return code;
  return rep.flagged > 0 ? 1 : 0;
}

}  // namespace rdmacheck
