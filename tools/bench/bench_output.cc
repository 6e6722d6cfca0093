#include "tools/bench/bench_output.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {

namespace {

constexpr char kRule[] =
    "---------------------------------------------------------------------------------------\n";

std::string OpTitle(const BenchSettings& s) {
  const char* op = s.op == BenchOp::kWrite ? "RDMA_Write" : s.op == BenchOp::kRead ? "RDMA_Read" : "Send";
  return absl::StrCat(op, s.mode == BenchMode::kLatency ? " Latency Test" : " BW Test");
}

double Figure(double gbps, bool gbits) { return gbits ? gbps : gbps * 1e9 / 8 / (1 << 20); }

std::string Inline(const BenchSettings& s) { return absl::StrCat(s.inline_size.value_or(0)); }

}  // namespace

std::string SettingsFlags(const BenchSettings& s) {
  std::string f = absl::StrCat("-s ", s.size);
  if (s.mode == BenchMode::kBandwidth) absl::StrAppend(&f, " -q ", s.qps, " -l ", s.post_list);
  absl::StrAppend(&f, " --cq-mod ", s.cq_mod, " -t ", s.tx_depth, " -I ", Inline(s));
  if (s.mtu > 0) absl::StrAppend(&f, " -m ", s.mtu);
  if (s.duration_s > 0) {
    absl::StrAppend(&f, " -D ", s.duration_s);
  } else if (!s.stop) {
    absl::StrAppend(&f, " -n ", s.iters);
  }
  if (!s.pin_cpus.empty()) absl::StrAppend(&f, " --pin ", absl::StrJoin(s.pin_cpus, ","));
  if (s.threads > 1 && s.mode == BenchMode::kBandwidth) absl::StrAppend(&f, " --threads ", s.threads);
  return f;
}

std::string RunTable(const BenchResult& r, bool gbits) {
  const BenchSettings& s = r.settings;
  std::string o = kRule;
  absl::StrAppend(&o, "                    ", OpTitle(s), "\n");
  absl::StrAppend(&o, absl::StrFormat(" Devices         : %s -> %s%s\n", r.device, r.peer_device,
                                      r.loopback ? " (loopback QPs on one device)" : ""));
  absl::StrAppend(&o, absl::StrFormat(" GIDs            : %d %s -> %d %s\n", r.gid_index, r.gid, r.peer_gid_index,
                                      r.peer_gid));
  absl::StrAppend(&o, absl::StrFormat(" Number of qps   : %-10d Transport type : IB (RoCE GRH)\n", s.qps));
  absl::StrAppend(&o, absl::StrFormat(" Mtu             : %d[B] (active %d[B])\n", s.mtu, r.active_mtu));
  absl::StrAppend(&o, absl::StrFormat(" TX depth        : %-10d CQ Moderation  : %d\n", s.tx_depth, s.cq_mod));
  absl::StrAppend(&o, absl::StrFormat(" Post List       : %-10d Max inline data: %s[B]\n", s.post_list, Inline(s)));
  absl::StrAppend(&o, absl::StrFormat(" Registered      : %d bytes (both ends)\n", r.registered_bytes));
  for (const std::string& n : r.notes) absl::StrAppend(&o, " Note            : ", n, "\n");
  absl::StrAppend(&o, kRule);
  if (s.mode == BenchMode::kLatency) {
    absl::StrAppend(&o,
                    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
                    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n");
    const LatencyStats& l = r.lat;
    absl::StrAppend(&o, absl::StrFormat(" %-7d %-10d     %-10.2f     %-10.2f   %-10.2f       %-10.2f     %-10.2f      "
                                        "%-10.2f             %-10.2f\n",
                                        s.size, l.samples, l.min_us, l.max_us, l.median_us, l.avg_us, l.stdev_us,
                                        l.p99_us, l.p999_us));
  } else {
    const char* unit = gbits ? "Gb/sec" : "MB/sec";
    absl::StrAppend(&o, absl::StrFormat(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]\n",
                                        unit, unit));
    absl::StrAppend(&o, absl::StrFormat(" %-10d %-10d     %-12.2f       %-12.2f       %.6f\n", s.size, r.messages,
                                        Figure(r.bw_peak_gbps, gbits), Figure(r.bw_avg_gbps, gbits),
                                        r.msg_rate_mpps));
  }
  absl::StrAppend(&o, kRule);
  if (r.end != BenchEnd::kOk) {
    absl::StrAppend(&o, " Ended early     : ", BenchEndName(r.end), ": ", r.failure, "\n");
    absl::StrAppend(&o, " QP state        : ", r.qp_state, "\n", kRule);
  }
  return o;
}

std::string SweepTable(const SweepResult& sw, bool gbits) {
  std::string o;
  SweepDim cur = SweepDim::kSize;
  bool first = true;
  const bool lat = !sw.rows.empty() && sw.rows[0].point.settings.mode == BenchMode::kLatency;
  const std::string unit = lat ? "median[usec]" : gbits ? "BW average[Gb/sec]" : "BW average[MB/sec]";
  for (const SweepRow& row : sw.rows) {
    if (first || row.point.dim != cur) {
      cur = row.point.dim;
      first = false;
      absl::StrAppend(&o, kRule, " sweep: ", SweepDimName(cur), "\n");
      absl::StrAppend(&o, absl::StrFormat(" %-18s %-20s %-12s %-9s %s\n", SweepDimName(cur), unit, "#messages",
                                          "seconds", "stable"));
    }
    std::string value = absl::StrCat(row.point.value, row.point.is_default ? " *" : "");
    if (!row.result) {
      absl::StrAppend(&o, absl::StrFormat(" %-18s not measured: %s\n", value, row.error));
      continue;
    }
    const BenchResult& r = *row.result;
    const double fig = lat ? r.lat.median_us : Figure(r.bw_avg_gbps, gbits);
    std::string state = r.end != BenchEnd::kOk ? absl::StrCat(BenchEndName(r.end), ": ", r.failure)
                        : r.settings.stop     ? (r.stable ? "yes" : "no (max time)")
                                              : "-";
    absl::StrAppend(&o, absl::StrFormat(" %-18s %-20.3f %-12d %-9.2f %s\n", value, fig, r.messages, r.seconds, state));
  }
  absl::StrAppend(&o, kRule, " * the default; ", sw.rows.size(), " points in ", absl::StrFormat("%.1f", sw.wall_s),
                  " s\n");
  for (const std::string& n : sw.notes) absl::StrAppend(&o, " note: ", n, "\n");
  return o;
}

std::string AdviceText(const Advice& a) {
  std::string o = absl::StrCat(kRule, " advice (from this node's measurements)\n");
  for (const std::string& l : a.lines) absl::StrAppend(&o, "  - ", l, "\n");
  return o;
}

nlohmann::json RunJson(const BenchResult& r) {
  const BenchSettings& s = r.settings;
  nlohmann::json j;
  j["mode"] = s.mode == BenchMode::kLatency ? "latency" : "bandwidth";
  j["op"] = std::string(BenchOpName(s.op));
  j["device"] = r.device;
  j["peer_device"] = r.peer_device;
  j["loopback"] = r.loopback;
  j["gid"] = r.gid;
  j["gid_index"] = r.gid_index;
  j["peer_gid"] = r.peer_gid;
  j["peer_gid_index"] = r.peer_gid_index;
  j["settings"] = {{"size", s.size},           {"qps", s.qps},           {"post_list", s.post_list},
                   {"cq_mod", s.cq_mod},       {"inline", s.inline_size.value_or(0)},
                   {"mtu", s.mtu},             {"active_mtu", r.active_mtu}, {"tx_depth", s.tx_depth},
                   {"iters", s.iters},         {"duration_s", s.duration_s}, {"pin", s.pin_cpus},
                   {"threads", s.threads},     {"flags", SettingsFlags(s)}};
  j["end"] = std::string(BenchEndName(r.end));
  if (r.end != BenchEnd::kOk) {
    j["failure"] = r.failure;
    if (r.end == BenchEnd::kWcError)
      j["wc_status"] = {{"code", r.wc_status}, {"text", r.wc_status_text}, {"vendor_err", r.vendor_err}};
  }
  j["qp_state"] = r.qp_state;
  j["messages"] = r.messages;
  j["seconds"] = r.seconds;
  if (s.mode == BenchMode::kLatency) {
    const LatencyStats& l = r.lat;
    j["latency_us"] = {{"samples", l.samples}, {"min", l.min_us},   {"median", l.median_us}, {"avg", l.avg_us},
                       {"stdev", l.stdev_us},  {"p99", l.p99_us},   {"p99_9", l.p999_us},    {"max", l.max_us}};
  } else {
    j["bytes"] = r.bytes;
    j["bw_avg_gbps"] = r.bw_avg_gbps;
    j["bw_peak_gbps"] = r.bw_peak_gbps;
    j["bw_avg_mbps"] = r.bw_avg_mbps();
    j["msg_rate_mpps"] = r.msg_rate_mpps;
    j["slice_gbps"] = r.slice_gbps;
    if (s.stop) j["stable"] = r.stable;
  }
  j["registered_bytes"] = r.registered_bytes;
  j["setup_seconds"] = r.setup_seconds;
  if (r.counters_known) {
    j["counters_delta"] = CounterDelta(r.counters_before, r.counters_after);
    j["peer_counters_delta"] = CounterDelta(r.peer_counters_before, r.peer_counters_after);
  }
  j["notes"] = r.notes;
  return j;
}

nlohmann::json SweepJson(const SweepResult& sw, const Advice* advice) {
  nlohmann::json j;
  j["points"] = nlohmann::json::array();
  for (const SweepRow& row : sw.rows) {
    nlohmann::json p = {{"dimension", std::string(SweepDimName(row.point.dim))},
                        {"value", row.point.value},
                        {"default", row.point.is_default},
                        {"wall_s", row.wall_s}};
    if (row.result) {
      p["result"] = RunJson(*row.result);
    } else {
      p["error"] = row.error;
    }
    j["points"].push_back(p);
  }
  j["notes"] = sw.notes;
  j["wall_s"] = sw.wall_s;
  if (advice) {
    nlohmann::json a;
    a["lines"] = advice->lines;
    a["dimensions"] = nlohmann::json::array();
    for (const DimAdvice& d : advice->dims) {
      a["dimensions"].push_back({{"dimension", std::string(SweepDimName(d.dim))},
                                 {"default", d.default_value},
                                 {"best", d.best_value},
                                 {"default_figure", d.default_figure},
                                 {"best_figure", d.best_figure},
                                 {"gain", d.gain},
                                 {"changed", d.changed},
                                 {"statement", d.statement}});
    }
    if (advice->combined_settings) a["combined_flags"] = SettingsFlags(*advice->combined_settings);
    if (advice->combined) a["combined"] = RunJson(*advice->combined);
    if (advice->baseline) a["baseline"] = RunJson(*advice->baseline);
    if (!advice->combined_error.empty()) a["combined_error"] = advice->combined_error;
    j["advice"] = a;
  }
  return j;
}

namespace {
constexpr char kCsvHeader[] =
    "dimension,value,default,mode,op,size,qps,post_list,cq_mod,inline,mtu,tx_depth,end,messages,seconds,"
    "bw_avg_gbps,bw_peak_gbps,msg_rate_mpps,lat_min_us,lat_median_us,lat_avg_us,lat_p99_us,lat_p999_us,lat_max_us\n";

// Values are numbers or words of ours; a device name or a value with a comma is quoted.
std::string CsvField(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string CsvRow(const std::string& dim, const std::string& value, bool def, const BenchResult& r) {
  const BenchSettings& s = r.settings;
  return absl::StrFormat("%s,%s,%d,%s,%s,%d,%d,%d,%d,%d,%d,%d,%s,%d,%.6f,%.6f,%.6f,%.6f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                         CsvField(dim), CsvField(value), def ? 1 : 0,
                         s.mode == BenchMode::kLatency ? "latency" : "bandwidth", BenchOpName(s.op), s.size, s.qps,
                         s.post_list, s.cq_mod, s.inline_size.value_or(0), s.mtu, s.tx_depth,
                         CsvField(std::string(BenchEndName(r.end))), r.messages, r.seconds, r.bw_avg_gbps,
                         r.bw_peak_gbps, r.msg_rate_mpps, r.lat.min_us, r.lat.median_us, r.lat.avg_us, r.lat.p99_us,
                         r.lat.p999_us, r.lat.max_us);
}
}  // namespace

std::string RunCsv(const BenchResult& r) { return absl::StrCat(kCsvHeader, CsvRow("", "", true, r)); }

std::string SweepCsv(const SweepResult& sw) {
  std::string o = kCsvHeader;
  for (const SweepRow& row : sw.rows)
    if (row.result) absl::StrAppend(&o, CsvRow(std::string(SweepDimName(row.point.dim)), row.point.value,
                                               row.point.is_default, *row.result));
  return o;
}

}  // namespace rdmacheck
