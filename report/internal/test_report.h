// A RunReport holding all four verdicts, shared by the renderers' tests so
// they all describe the same run.
//
//   RunReport rep = report_testing::SampleReport();
//   EXPECT_EQ(rep.Count(Verdict::kFail), 1);
#ifndef RDMACHECK_REPORT_INTERNAL_TEST_REPORT_H_
#define RDMACHECK_REPORT_INTERNAL_TEST_REPORT_H_

#include "checks/run_report.h"

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

}  // namespace rdmacheck::report_testing

#endif  // RDMACHECK_REPORT_INTERNAL_TEST_REPORT_H_
