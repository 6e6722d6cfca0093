// A RunReport holding all four verdicts, shared by the renderers' tests so
// they all describe the same run, and the facts of a node for the renderers
// that print them too (prometheus, the support bundle).
//
//   RunReport rep = report_testing::SampleReport();
//   EXPECT_EQ(rep.Count(Verdict::kFail), 1);
//   DeviceView view = report_testing::SampleView();  // mlx5_0, a 2 s window
#ifndef RDMACHECK_REPORT_INTERNAL_TEST_REPORT_H_
#define RDMACHECK_REPORT_INTERNAL_TEST_REPORT_H_

#include <cstdint>

#include "checks/run_report.h"
#include "facts/device_view.h"

namespace rdmacheck::report_testing {

// PASS device-present, FAIL port-active (two evidence rows, one failing; a
// note; two remediation steps), WARN mtu-match, SKIP loopback-traffic,
// PASS gid-roce-v2. Counts: 2 pass, 1 warn, 1 fail, 1 skip.
inline RunReport SampleReport() {
  RunReport rep;
  rep.host = "rxeguest";
  rep.kernel = "6.1.0-27-amd64";
  rep.source = "live";
  rep.plan = "<default>";
  rep.started_at = "2026-11-29T09:30:00Z";
  rep.seconds = 0.012;
  rep.phases = {{"startup", 0.01}, {"gather.sysfs rxe0", 0.004}, {"checks", 0.012}};
  rep.devices = {{"rxe0", "rxe", "", "5254:00ff:fe12:3456"}};

  Result pass;
  pass.id = "device-present";
  pass.verdict = Verdict::kPass;
  pass.title = "An RDMA device is present";
  pass.evidence = {{"RDMA devices", ">= 1", "1 (rxe0)", Verdict::kPass}};
  pass.seconds = 0.0001;

  Result fail;
  fail.id = "port-active";
  fail.verdict = Verdict::kFail;
  fail.title = "Port 1 of rxe0 is ACTIVE";
  fail.evidence = {{"rxe0 port 1 state", "ACTIVE", "DOWN", Verdict::kFail},
                   {"rxe0 port 1 netdev", "", "va", Verdict::kPass}};
  fail.notes = {"rxe follows the state of its netdev"};
  fail.remediation = {"ip link set dev va up", "ibv_devinfo -d rxe0 | grep state"};
  fail.seconds = 0.0002;

  Result warn;
  warn.id = "mtu-match";
  warn.verdict = Verdict::kWarn;
  warn.title = "Active MTU of rxe0 port 1 is 4096";
  warn.evidence = {{"rxe0 port 1 active_mtu", "4096", "1024", Verdict::kWarn}};
  warn.remediation = {"ip link set dev va mtu 4200"};
  warn.seconds = 0.0003;

  Result skip;
  skip.id = "loopback-traffic";
  skip.verdict = Verdict::kSkip;
  skip.title = "RC traffic flows from rxe0 to itself";
  skip.skip_reason = "traffic probe needs a live device";

  Result pass2;
  pass2.id = "gid-roce-v2";
  pass2.verdict = Verdict::kPass;
  pass2.title = "rxe0 port 1 has a RoCE v2 GID";
  pass2.evidence = {{"rxe0 port 1 GID 1 type", "RoCE v2", "RoCE v2", Verdict::kPass}};

  rep.results = {pass, fail, warn, skip, pass2};
  return rep;
}

// One ConnectX-6 (mlx5_0) with a 100 GbE port on ens1f0np0 (MTU 9000), its
// counters read twice over a 2 s window (symbol_error 0 -> 118,
// np_cnp_sent 1204 -> 1240), memlock 8 MiB soft and unlimited hard.
inline DeviceView SampleView() {
  DeviceView v;
  v.source = "live";
  v.host.memlock_soft = 8388608;
  v.host.memlock_hard = HostInfo::kUnlimited;
  DeviceInfo d;
  d.name = "mlx5_0";
  d.driver = "mlx5";
  d.fw_ver = "20.31.1014";
  d.netdev = "ens1f0np0";
  d.attrs = {{"max_qp", 262144}, {"max_qp_wr", 32768}, {"max_mr_size", UINT64_MAX},
             {"device_cap_flags", 0xed721c36}};
  PortInfo p;
  p.port_num = 1;
  p.state = "ACTIVE";
  p.phys_state = "LinkUp";
  p.link_layer = "Ethernet";
  p.active_mtu = 4096;
  p.rate = "100 Gb/sec (4X EDR)";
  p.counters = {{"symbol_error", 0}, {"port_rcv_data", 100}};
  p.counters_after = {{"symbol_error", 118}, {"port_rcv_data", 100}};
  p.hw_counters = {{"np_cnp_sent", 1204}};
  p.hw_counters_after = {{"np_cnp_sent", 1240}};
  d.ports.push_back(p);
  v.devices.push_back(d);
  NetdevInfo n;
  n.name = "ens1f0np0";
  n.mtu = 9000;
  v.netdevs.push_back(n);
  LinkWindow w;
  w.ms = 2000;
  v.window = w;
  return v;
}

}  // namespace rdmacheck::report_testing

#endif  // RDMACHECK_REPORT_INTERNAL_TEST_REPORT_H_
