// Prometheus renderer: a run and the facts it read, in the text exposition
// format 0.0.4 that node_exporter's textfile collector reads
// (`rdmacheck --format=prometheus -o /var/lib/node_exporter/textfile/rdmacheck.prom`).
// Every family has HELP and TYPE lines and a name starting `rdmacheck_`; the
// metric list is in docs/output-formats.md, section Prometheus.
//
//   rdmacheck_check_status{check="port-active",status="FAIL"} 1
//   rdmacheck_device_max_qp_wr{device="mlx5_0"} 32768
//   rdmacheck_port_stat_per_second{device="mlx5_0",port="1",dir="counters",name="symbol_error"} 59
//
// No sample carries a timestamp (the textfile collector refuses files that
// do); when the run happened is rdmacheck_last_run_timestamp_seconds.
#ifndef RDMACHECK_REPORT_PROMETHEUS_H_
#define RDMACHECK_REPORT_PROMETHEUS_H_

#include <string>

#include "checks/run_report.h"
#include "facts/device_view.h"

namespace rdmacheck {

// `view`: the facts the run read (devices, ports, netdevs, counters and
// their window, RLIMIT_MEMLOCK). Label values are escaped as the format asks
// (backslash, double quote, newline) and made valid UTF-8; a family with no
// sample (no device: no port metrics) is left out whole.
std::string RenderPrometheus(const RunReport& rep, const DeviceView& view);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORT_PROMETHEUS_H_
