#include "report/prometheus.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "facts/hw_counters.h"
#include "facts/port_rate.h"
#include "facts/rdma_types.h"
#include "report/internal/text_util.h"

namespace rdmacheck {
namespace {

using Labels = std::vector<std::pair<absl::string_view, std::string>>;

// Exposition format 0.0.4: in HELP text backslash and newline are escaped,
// in label values the double quote as well. The text must be UTF-8.
std::string Escape(absl::string_view s, bool label) {
  std::string out;
  for (char c : report_internal::ValidUtf8(s)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && label) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

// Integers exactly (Prometheus parses them as float64); others to 9
// significant digits, which keeps microseconds of a check's duration.
std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.9g", v);
}
std::string Number(uint64_t v) { return absl::StrCat(v); }
// Durations to the microsecond: finer digits are the clock's noise.
std::string Seconds(double s) { return Number(std::round(s * 1e6) / 1e6); }

// One metric family: its HELP and TYPE lines, then every sample, together
// as the format requires. Left out when it has no sample.
class Family {
 public:
  Family(absl::string_view name, absl::string_view type, absl::string_view help)
      : name_(name), type_(type), help_(help) {}

  void Add(const Labels& labels, const std::string& value) {
    std::string line = name_;
    if (!labels.empty()) {
      line += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        absl::StrAppend(&line, i ? "," : "", labels[i].first, "=\"",
                        Escape(labels[i].second, /*label=*/true), "\"");
      }
      line += '}';
    }
    absl::StrAppend(&line, " ", value, "\n");
    samples_.push_back(std::move(line));
  }

  void AppendTo(std::string* out) const {
    if (samples_.empty()) return;
    absl::StrAppend(out, "# HELP ", name_, " ", Escape(help_, /*label=*/false), "\n", "# TYPE ",
                    name_, " ", type_, "\n");
    for (const std::string& s : samples_) *out += s;
  }

 private:
  std::string name_, type_, help_;
  std::vector<std::string> samples_;
};

void RunFamilies(const RunReport& rep, std::string* out) {
  Family build("rdmacheck_build_info", "gauge", "rdmacheck's version; always 1.");
  build.Add({{"version", rep.tool_version}}, "1");
  build.AppendTo(out);

  Family run("rdmacheck_run_info", "gauge",
             "Where the run's facts came from (live, profile:PATH) and its plan; always 1.");
  run.Add({{"source", rep.source}, {"plan", rep.plan}}, "1");
  run.AppendTo(out);

  Family last("rdmacheck_last_run_timestamp_seconds", "gauge",
              "When the run started, in seconds since the Unix epoch.");
  absl::Time started;
  std::string err;
  if (absl::ParseTime(absl::RFC3339_full, rep.started_at, &started, &err)) {
    last.Add({}, Number(static_cast<double>(absl::ToUnixSeconds(started))));
  }
  last.AppendTo(out);

  Family seconds("rdmacheck_run_duration_seconds", "gauge", "Wall time of the whole run.");
  seconds.Add({}, Seconds(rep.seconds));
  seconds.AppendTo(out);
}

// One-hot, one series per verdict, as node_exporter's own enum states are
// (node_systemd_unit_state): `== 1` selects, sum by (status) counts, and no
// one has to remember a number per verdict.
void CheckFamilies(const RunReport& rep, std::string* out) {
  Family status("rdmacheck_check_status", "gauge",
                "1 for the check's verdict (PASS, WARN, FAIL, SKIP), 0 for the other three.");
  Family seconds("rdmacheck_check_duration_seconds", "gauge", "Wall time of the check.");
  constexpr Verdict kAll[] = {Verdict::kPass, Verdict::kWarn, Verdict::kFail, Verdict::kSkip};
  for (const Result& r : rep.results) {
    for (Verdict v : kAll) {
      status.Add({{"check", r.id}, {"status", std::string(VerdictName(v))}},
                 r.verdict == v ? "1" : "0");
    }
    seconds.Add({{"check", r.id}}, Seconds(r.seconds));
  }
  status.AppendTo(out);
  seconds.AppendTo(out);
}

// The sizing limits the checks compare a plan with (ibv_query_device_ex);
// capability bit masks are not measurements and are left out.
struct AttrMetric {
  absl::string_view attr, metric, help;
};
constexpr AttrMetric kAttrs[] = {
    {"max_qp", "rdmacheck_device_max_qp", "Most QPs the device supports (max_qp)."},
    {"max_qp_wr", "rdmacheck_device_max_qp_wr", "Most work requests in one queue (max_qp_wr)."},
    {"max_sge", "rdmacheck_device_max_sge", "Most scatter/gather entries per work request (max_sge)."},
    {"max_sge_rd", "rdmacheck_device_max_sge_rd", "Most scatter/gather entries per RDMA READ (max_sge_rd)."},
    {"max_cq", "rdmacheck_device_max_cq", "Most CQs (max_cq)."},
    {"max_cqe", "rdmacheck_device_max_cqe", "Most entries in one CQ (max_cqe)."},
    {"max_mr", "rdmacheck_device_max_mr", "Most memory regions (max_mr)."},
    {"max_mr_size", "rdmacheck_device_max_mr_size_bytes", "Largest memory region (max_mr_size)."},
    {"max_pd", "rdmacheck_device_max_pd", "Most protection domains (max_pd)."},
    {"max_srq", "rdmacheck_device_max_srq", "Most shared receive queues (max_srq)."},
    {"max_srq_wr", "rdmacheck_device_max_srq_wr", "Most work requests in one SRQ (max_srq_wr)."},
    {"max_srq_sge", "rdmacheck_device_max_srq_sge", "Most scatter/gather entries per SRQ work request (max_srq_sge)."},
    {"max_qp_rd_atom", "rdmacheck_device_max_qp_rd_atom",
     "RDMA READs and atomics a QP takes outstanding as target (max_qp_rd_atom)."},
    {"max_qp_init_rd_atom", "rdmacheck_device_max_qp_init_rd_atom",
     "RDMA READs and atomics a QP issues outstanding (max_qp_init_rd_atom)."},
    {"max_ah", "rdmacheck_device_max_ah", "Most address handles (max_ah)."},
    {"max_mw", "rdmacheck_device_max_mw", "Most memory windows (max_mw)."},
};

void DeviceFamilies(const DeviceView& view, std::string* out) {
  Family info("rdmacheck_device_info", "gauge", "An RDMA device and its driver and firmware; always 1.");
  for (const DeviceInfo& d : view.devices) {
    info.Add({{"device", d.name},
              {"driver", d.driver.value_or("")},
              {"fw_ver", d.fw_ver.value_or("")},
              {"node_guid", d.node_guid.value_or("")}},
             "1");
  }
  info.AppendTo(out);
  for (const AttrMetric& a : kAttrs) {
    Family f(a.metric, "gauge", a.help);
    for (const DeviceInfo& d : view.devices) {
      if (std::optional<uint64_t> v = d.Attr(a.attr)) f.Add({{"device", d.name}}, Number(*v));
    }
    f.AppendTo(out);
  }
}

Labels PortLabels(const DeviceInfo& d, const PortInfo& p) {
  return {{"device", d.name}, {"port", absl::StrCat(p.port_num)}};
}

void PortFamilies(const DeviceView& view, std::string* out) {
  Family info("rdmacheck_port_info", "gauge", "A port, its link layer and the netdev it rides on; always 1.");
  Family state("rdmacheck_port_state_id", "gauge",
               "Port state, enum ibv_port_state: 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.");
  Family phys("rdmacheck_port_phys_state_id", "gauge",
              "Physical port state: 1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, "
              "5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test.");
  Family mtu("rdmacheck_port_active_mtu_bytes", "gauge", "The port's active (IB) MTU.");
  Family rate("rdmacheck_port_rate_bytes_per_second", "gauge",
              "The port's link rate (sysfs rate, or active_speed x active_width); x 8 / 1e9 for Gb/s.");
  for (const DeviceInfo& d : view.devices) {
    for (const PortInfo& p : d.ports) {
      Labels l = PortLabels(d, p);
      Labels il = l;
      il.emplace_back("link_layer", p.link_layer.value_or(""));
      il.emplace_back("netdev", PortNetdev(d, p).value_or(""));
      info.Add(il, "1");
      if (std::optional<int> c = p.state ? PortStateCode(*p.state) : std::nullopt)
        state.Add(l, Number(static_cast<uint64_t>(*c)));
      if (std::optional<int> c = p.phys_state ? PhysStateCode(*p.phys_state) : std::nullopt)
        phys.Add(l, Number(static_cast<uint64_t>(*c)));
      if (p.active_mtu) mtu.Add(l, Number(static_cast<uint64_t>(*p.active_mtu)));
      if (absl::StatusOr<PortRate> r = RateOfPort(p); r.ok()) rate.Add(l, Number(r->gbps * 1e9 / 8));
    }
  }
  for (const Family* f : {&info, &state, &phys, &mtu, &rate}) f->AppendTo(out);
}

void NetdevFamilies(const DeviceView& view, std::string* out) {
  Family mtu("rdmacheck_netdev_mtu_bytes", "gauge", "The MTU of a netdev an RDMA port rides on.");
  for (const NetdevInfo& n : view.netdevs) {
    if (n.mtu) mtu.Add({{"netdev", n.name}}, Number(static_cast<uint64_t>(*n.mtu)));
  }
  mtu.AppendTo(out);
}

// Both counter directories of every port: their latest value as a counter
// (the window's end when there is one), and over the window their change
// per second.
void CounterFamilies(const DeviceView& view, std::string* out) {
  Family total("rdmacheck_port_stat_total", "counter",
               "A port counter file (dir counters: the IB PMA's; hw_counters: the driver's), as last "
               "read; Documentation/ABI/stable/sysfs-class-infiniband.");
  Family rate("rdmacheck_port_stat_per_second", "gauge",
              "The change of a port counter file per second over the run's window.");
  Family window("rdmacheck_window_seconds", "gauge",
                "Length of the window over which the counters were read twice.");
  const double window_s = view.window ? static_cast<double>(view.window->ms) / 1000 : 0;
  if (view.window) window.Add({}, Number(window_s));
  for (const DeviceInfo& d : view.devices) {
    for (const PortInfo& p : d.ports) {
      const std::pair<absl::string_view, std::pair<const Counters*, const Counters*>> dirs[] = {
          {"counters", {&p.counters, &p.counters_after}},
          {"hw_counters", {&p.hw_counters, &p.hw_counters_after}}};
      for (const auto& [dir, samples] : dirs) {
        const Counters& before = *samples.first;
        const Counters& after = *samples.second;
        Counters latest = before;
        for (const auto& [name, v] : after) latest[name] = v;
        for (const auto& [name, v] : latest) {
          Labels l = PortLabels(d, p);
          l.emplace_back("dir", std::string(dir));
          l.emplace_back("name", name);
          total.Add(l, Number(v));
        }
        if (window_s <= 0) continue;
        for (const auto& [name, delta] : CounterDelta(before, after)) {
          Labels l = PortLabels(d, p);
          l.emplace_back("dir", std::string(dir));
          l.emplace_back("name", name);
          rate.Add(l, Number(static_cast<double>(delta) / window_s));
        }
      }
    }
  }
  total.AppendTo(out);
  window.AppendTo(out);
  rate.AppendTo(out);
}

void HostFamilies(const DeviceView& view, std::string* out) {
  Family memlock("rdmacheck_memlock_limit_bytes", "gauge",
                 "RLIMIT_MEMLOCK where the facts were read (limit soft or hard); +Inf when unlimited.");
  const std::pair<absl::string_view, const std::optional<uint64_t>*> limits[] = {
      {"soft", &view.host.memlock_soft}, {"hard", &view.host.memlock_hard}};
  for (const auto& [which, v] : limits) {
    if (!*v) continue;
    memlock.Add({{"limit", std::string(which)}},
                **v == HostInfo::kUnlimited ? "+Inf" : Number(**v));
  }
  memlock.AppendTo(out);
}

}  // namespace

std::string RenderPrometheus(const RunReport& rep, const DeviceView& view) {
  std::string out;
  RunFamilies(rep, &out);
  CheckFamilies(rep, &out);
  DeviceFamilies(view, &out);
  PortFamilies(view, &out);
  NetdevFamilies(view, &out);
  CounterFamilies(view, &out);
  HostFamilies(view, &out);
  return out;
}

}  // namespace rdmacheck
