#include "report/prometheus.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/internal/test_report.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using report_testing::SampleView;

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

void ExpectLines(const std::string& out, std::initializer_list<const char*> lines) {
  for (const char* line : lines) EXPECT_THAT(out, HasSubstr(line));
}

TEST(PrometheusTest, RunAndChecks) {
  const std::string out = RenderPrometheus(report_testing::SampleReport(), SampleView());
  ExpectLines(out, {
           "rdmacheck_build_info{version=\"0.1.0\"} 1\n",
           "rdmacheck_run_info{source=\"live\",plan=\"<default>\"} 1\n",
           "rdmacheck_last_run_timestamp_seconds 1795944600\n",  // 2026-11-29T09:30:00Z
           "rdmacheck_run_duration_seconds 0.012\n",
           "rdmacheck_check_status{check=\"port-active\",status=\"FAIL\"} 1\n",
           "rdmacheck_check_status{check=\"port-active\",status=\"PASS\"} 0\n",
           "rdmacheck_check_status{check=\"mtu-match\",status=\"WARN\"} 1\n",
           "rdmacheck_check_status{check=\"loopback-traffic\",status=\"SKIP\"} 1\n",
           "rdmacheck_check_duration_seconds{check=\"port-active\"} 0.0002\n",
              });
  // Four series per check, exactly one of them 1.
  int ones = 0, series = 0;
  for (const std::string& l : Lines(out)) {
    if (!absl::StartsWith(l, "rdmacheck_check_status{")) continue;
    ++series;
    ones += absl::EndsWith(l, " 1");
  }
  EXPECT_EQ(series, 5 * 4);
  EXPECT_EQ(ones, 5);
}

TEST(PrometheusTest, DevicePortNetdevHostFacts) {
  const std::string out = RenderPrometheus(report_testing::SampleReport(), SampleView());
  ExpectLines(out, {
           "rdmacheck_device_info{device=\"mlx5_0\",driver=\"mlx5\",fw_ver=\"20.31.1014\",node_guid=\"\"} 1\n",
           "rdmacheck_device_max_qp{device=\"mlx5_0\"} 262144\n",
           "rdmacheck_device_max_qp_wr{device=\"mlx5_0\"} 32768\n",
           "rdmacheck_device_max_mr_size_bytes{device=\"mlx5_0\"} 18446744073709551615\n",
           "rdmacheck_port_info{device=\"mlx5_0\",port=\"1\",link_layer=\"Ethernet\",netdev=\"ens1f0np0\"} 1\n",
           "rdmacheck_port_state_id{device=\"mlx5_0\",port=\"1\"} 4\n",
           "rdmacheck_port_phys_state_id{device=\"mlx5_0\",port=\"1\"} 5\n",
           "rdmacheck_port_active_mtu_bytes{device=\"mlx5_0\",port=\"1\"} 4096\n",
           "rdmacheck_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 12500000000\n",
           "rdmacheck_netdev_mtu_bytes{netdev=\"ens1f0np0\"} 9000\n",
           "rdmacheck_memlock_limit_bytes{limit=\"soft\"} 8388608\n",
           "rdmacheck_memlock_limit_bytes{limit=\"hard\"} +Inf\n",
              });
  // A bit mask is not a measurement.
  EXPECT_THAT(out, Not(HasSubstr("device_cap_flags")));
}

TEST(PrometheusTest, CountersAtTheWindowsEndAndTheirRatePerSecond) {
  const std::string out = RenderPrometheus(report_testing::SampleReport(), SampleView());
  ExpectLines(out, {
           "# TYPE rdmacheck_port_stat_total counter\n",
           "rdmacheck_port_stat_total{device=\"mlx5_0\",port=\"1\",dir=\"counters\",name=\"symbol_error\"} 118\n",
           "rdmacheck_port_stat_total{device=\"mlx5_0\",port=\"1\",dir=\"hw_counters\",name=\"np_cnp_sent\"} 1240\n",
           "rdmacheck_window_seconds 2\n",
           "rdmacheck_port_stat_per_second{device=\"mlx5_0\",port=\"1\",dir=\"counters\",name=\"symbol_error\"} 59\n",
           "rdmacheck_port_stat_per_second{device=\"mlx5_0\",port=\"1\",dir=\"counters\",name=\"port_rcv_data\"} 0\n",
           "rdmacheck_port_stat_per_second{device=\"mlx5_0\",port=\"1\",dir=\"hw_counters\",name=\"np_cnp_sent\"} 18\n",
              });
  // Without a window: the one sample, no rate, no window length.
  DeviceView once = SampleView();
  once.window.reset();
  for (PortInfo& p : once.devices[0].ports) {
    p.counters_after.clear();
    p.hw_counters_after.clear();
  }
  const std::string plain = RenderPrometheus(report_testing::SampleReport(), once);
  EXPECT_THAT(plain, HasSubstr("rdmacheck_port_stat_total{device=\"mlx5_0\",port=\"1\",dir=\"counters\",name=\"symbol_error\"} 0\n"));
  EXPECT_THAT(plain, Not(HasSubstr("rdmacheck_port_stat_per_second")));
  EXPECT_THAT(plain, Not(HasSubstr("rdmacheck_window_seconds")));
}

TEST(PrometheusTest, LabelValuesAreEscaped) {
  DeviceView view = SampleView();
  DeviceInfo odd;
  odd.name = "rxe\"0\\\n";
  odd.attrs = {{"max_qp", 7}};
  view.devices.push_back(odd);
  const std::string out = RenderPrometheus(report_testing::SampleReport(), view);
  EXPECT_THAT(out, HasSubstr("rdmacheck_device_max_qp{device=\"rxe\\\"0\\\\\\n\"} 7\n"));
  RunReport rep = report_testing::SampleReport();
  rep.results[0].id = "bad\xff";
  EXPECT_THAT(RenderPrometheus(rep, SampleView()),
              HasSubstr("rdmacheck_check_duration_seconds{check=\"bad\xef\xbf\xbd\"}"));
}

// What promtool checks on the binary's output (cli:promtool_test), here on
// the renderer alone: each family's HELP, then TYPE, then its samples
// together, every name prefixed, no family twice.
TEST(PrometheusTest, EveryFamilyHasHelpAndTypeOnceBeforeItsSamples) {
  const std::string out = RenderPrometheus(report_testing::SampleReport(), SampleView());
  std::set<std::string> seen;
  std::string current;
  for (const std::string& l : Lines(out)) {
    if (absl::StartsWith(l, "# HELP ")) {
      std::vector<std::string> w = absl::StrSplit(l, ' ');
      current = w[2];
      EXPECT_TRUE(seen.insert(current).second) << "twice: " << current;
      EXPECT_TRUE(absl::StartsWith(current, "rdmacheck_")) << current;
      continue;
    }
    if (absl::StartsWith(l, "# TYPE ")) {
      EXPECT_TRUE(absl::StartsWith(l, "# TYPE " + current + " ")) << l;
      continue;
    }
    const std::string name = l.substr(0, l.find_first_of("{ "));
    EXPECT_EQ(name, current) << l;
  }
  EXPECT_GE(seen.size(), 20u);
}

TEST(PrometheusTest, NoDeviceLeavesOutTheDeviceFamiliesWhole) {
  DeviceView none;
  none.host.memlock_soft = 65536;
  const std::string out = RenderPrometheus(report_testing::SampleReport(), none);
  EXPECT_THAT(out, Not(HasSubstr("rdmacheck_device_")));
  EXPECT_THAT(out, Not(HasSubstr("rdmacheck_port_")));
  EXPECT_THAT(out, HasSubstr("rdmacheck_memlock_limit_bytes{limit=\"soft\"} 65536\n"));
  EXPECT_THAT(out, Not(HasSubstr("limit=\"hard\"")));
}

}  // namespace
}  // namespace rdmacheck
