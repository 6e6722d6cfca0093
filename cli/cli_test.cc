// End to end: the real rdmacheck binary on fixture profiles and plans.
#include "cli/cli.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/input_file.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct CliRun {
  int code = -1;
  std::string out;  // stdout and stderr together
};

CliRun Shell(const std::string& cmd) {
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

CliRun Rdmacheck(const std::string& args) { return Shell("./rdmacheck " + args + " 2>&1"); }
// stdout alone: what NPD takes as the message.
CliRun RdmacheckStdout(const std::string& args) { return Shell("./rdmacheck " + args + " 2>/dev/null"); }

std::string ReadAll(const std::string& path) {
  return ReadInputFile("ReadAll", path, "a report", 1 << 20).value_or("(unreadable)");
}

const std::string kP = "fixtures/profiles/";
const std::string kPlans = "fixtures/plans/";

// The phases account for the run from exec on: the command line's own
// time is a phase of its own, before the inputs are read.
TEST(Cli, PhasesStartWithStartupThenFlags) {
  CliRun r = RdmacheckStdout("--profile " + kP + "rxe_mtu9000.profile --plan " + kPlans +
                             "rxe_guest.plan --format=json");
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& p : j.at("phases")) names.push_back(p.at("name"));
  ASSERT_GE(names.size(), 4u) << r.out;
  EXPECT_EQ(names[0], "startup");
  EXPECT_EQ(names[1], "flags");
  EXPECT_EQ(names[2], "profile");
  EXPECT_EQ(names[3], "plan");
  EXPECT_GE(j.at("phases").at(1).at("seconds").get<double>(), 0.0);
}

TEST(Cli, HealthyProfileExitsZeroWithSummary) {
  CliRun r = Rdmacheck("--profile " + kP + "rxe_mtu9000.profile --plan " + kPlans +
                    "rxe_guest.plan --color=never");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[PASS] device-present"));
  EXPECT_THAT(r.out, HasSubstr("[PASS] port-active"));
  EXPECT_THAT(r.out, Not(HasSubstr("\x1b[")));
}

TEST(Cli, NoDeviceFailsWithRemedyAndExitsOne) {
  CliRun r = Rdmacheck("--profile " + kP + "no_device.profile --color=never");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[FAIL] device-present"));
  EXPECT_THAT(r.out, HasSubstr("modprobe rdma_rxe"));
}

// The checklist on real pastes (fixtures/pastes/devinfo): never a usage or
// input error, a warning on stderr for each cut, and device-present saying
// what a pod's or a bare host's paste shows.
TEST(Cli, ChecklistRunsOnEveryRealPaste) {
  const std::string dir = "fixtures/pastes/devinfo/";
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  ASSERT_GE(names.size(), 25u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    CliRun r = RdmacheckStdout("--profile " + dir + name + " --format=json");
    EXPECT_TRUE(r.code == 0 || r.code == 1) << r.code << r.out;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_GE(j["checks"].size(), 10u);
  }
  CliRun cut = Rdmacheck("--profile " + dir + "ucx7613-v-cx4lx-cut.txt --color=never");
  EXPECT_THAT(cut.out, HasSubstr("rdmacheck: warning: " + dir + "ucx7613-v-cx4lx-cut.txt:26: "
                                 "device mlx5_0 (line 1) ends inside its -v attribute list"));
  // SKIP rows name the facts the cut lost.
  EXPECT_THAT(cut.out, HasSubstr("fact missing"));
  CliRun pod = Rdmacheck("--profile " + dir + "k8s-rdma-plugin-failed-to-open-vf.txt "
                         "--checks device-present --color=never");
  EXPECT_EQ(pod.code, 0) << pod.out;  // WARN: the pod's own device opened
  EXPECT_THAT(pod.out, HasSubstr("devices listed but not opened (ibv_devinfo: Failed to open device)"));
  EXPECT_THAT(pod.out, HasSubstr("--device=/dev/infiniband/uverbs"));
  CliRun bare = Rdmacheck("--profile " + dir + "nvcaffe590-list-0-hcas-warnings.txt "
                          "--checks device-present --color=never");
  EXPECT_EQ(bare.code, 1) << bare.out;
  EXPECT_THAT(bare.out, HasSubstr("apt-get install ibverbs-providers"));
}

// Pastes of several tools make one profile; capture keeps where each fact
// came from.
TEST(Cli, CaptureFromSeveralPastes) {
  const std::string p = "fixtures/pastes/";
  CliRun r = RdmacheckStdout("capture --from " + p + "devinfo/ucx7613-v-cx4lx-cut.txt " + p +
                             "ulimit/ucx8229-memlock-64.txt");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("provenance fact host memlock_soft: " + p + "ulimit/ucx8229-memlock-64.txt:7"));
  EXPECT_THAT(r.out, HasSubstr("memlock_soft 65536"));
  EXPECT_THAT(r.out, HasSubstr("[device mlx5_0]"));
  CliRun bad = Rdmacheck("capture --from " + p + "README.md");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.out, HasSubstr("not a format rdmacheck reads (tried: "));
}

TEST(Cli, JsonIsParseableAndComplete) {
  CliRun r = Rdmacheck("--profile " + kP + "rxe_old_kernel.profile --plan " + kPlans +
                    "incident_einval.plan -d rxe0 --format=json");
  EXPECT_EQ(r.code, 1) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["tool"]["name"], "rdmacheck");
  EXPECT_EQ(j["source"], "profile:" + kP + "rxe_old_kernel.profile");
  ASSERT_TRUE(j["checks"].is_array());
  int fails = 0;
  std::map<std::string, std::string> verdicts;
  for (const auto& c : j["checks"]) {
    verdicts[c["id"]] = c["verdict"];
    if (c["verdict"] == "FAIL") ++fails;
    // The plan's 65536 WRs are over this rxe's max_qp_wr: both the limit
    // check and the create (cap readback) must say so, naming the field.
    if (c["id"] == "device-limits" || c["id"] == "cap-readback") {
      EXPECT_THAT(c.dump(), HasSubstr("max_send_wr"));
    }
  }
  EXPECT_EQ(verdicts["device-limits"], "FAIL");
  EXPECT_EQ(verdicts["cap-readback"], "FAIL");
  EXPECT_EQ(verdicts["device-present"], "PASS");
  EXPECT_EQ(j["summary"]["fail"], fails);
  EXPECT_EQ(j["summary"]["total"], j["checks"].size());
}

TEST(Cli, JunitIsXmlWithOneCasePerCheck) {
  CliRun r = Rdmacheck("--profile " + kP + "rxe_port_down.profile --format=junit --checks port-active,device-present");
  EXPECT_EQ(r.code, 1) << r.out;
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(r.out.c_str()), tinyxml2::XML_SUCCESS) << r.out;
  const tinyxml2::XMLElement* suite = doc.FirstChildElement("testsuites")->FirstChildElement("testsuite");
  ASSERT_NE(suite, nullptr);
  int cases = 0, failures = 0;
  for (auto* tc = suite->FirstChildElement("testcase"); tc; tc = tc->NextSiblingElement("testcase")) {
    ++cases;
    if (tc->FirstChildElement("failure")) {
      ++failures;
      EXPECT_STREQ(tc->Attribute("name"), "port-active");
      EXPECT_THAT(tc->FirstChildElement("failure")->GetText(), HasSubstr("ip link set dev va up"));
    }
  }
  EXPECT_EQ(cases, 2);
  EXPECT_EQ(failures, 1);
}

TEST(Cli, BadInputIsExitTwoNamingFileAndLine) {
  std::string bad = ::testing::TempDir() + "/bad.plan";
  std::ofstream(bad) << "[plan]\nname = x\n[qp q]\nmax_send_wr = lots\n";
  CliRun r = Rdmacheck("--profile " + kP + "rxe_mtu9000.profile --plan " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, HasSubstr(bad + ":4"));
  EXPECT_THAT(r.out, HasSubstr("max_send_wr"));

  CliRun missing = Rdmacheck("--profile /nonexistent/x.profile");
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.out, HasSubstr("/nonexistent/x.profile"));

  CliRun flag = Rdmacheck("--format=yaml");
  EXPECT_EQ(flag.code, 2);
  EXPECT_THAT(flag.out, HasSubstr("--format"));

  CliRun unknown = Rdmacheck("--profile " + kP + "rxe_mtu9000.profile --checks nosuch");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.out, HasSubstr("no check matches 'nosuch'"));
}

TEST(Cli, NothingRanIsExitThree) {
  // On a node with no device, port-active alone can only SKIP.
  CliRun r = Rdmacheck("--profile " + kP + "no_device.profile --checks port-active");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[SKIP] port-active"));
}

TEST(Cli, CaptureConvertsDevinfoTextToAProfileThatRunsTheSame) {
  std::string prof = ::testing::TempDir() + "/conv.profile";
  CliRun c = Rdmacheck("capture --profile " + kP + "mlx5_cx6.devinfo.txt -o " + prof);
  ASSERT_EQ(c.code, 0) << c.out;
  CliRun a = Rdmacheck("--profile " + kP + "mlx5_cx6.devinfo.txt --format=json");
  CliRun b = Rdmacheck("--profile " + prof + " --format=json");
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["summary"], jb["summary"]);
  EXPECT_EQ(ja["checks"].size(), jb["checks"].size());
}

TEST(Cli, CaptureWindowOnAHostWithoutDevicesAndAWindowedProfile) {
  // This host has no RDMA device: nothing to watch, so no window.
  CliRun w = Rdmacheck("capture --window 0.3");
  ASSERT_EQ(w.code, 0) << w.out;
  EXPECT_THAT(w.out, Not(HasSubstr("[window]")));
  // The gathered fixture node (facts:gather on fixtures/sysfs_hw) has one:
  // hw_node_test; a profile's window is judged: here.
  CliRun lh = Rdmacheck("--profile " + kP + "mlx5_symbol_errors.profile --checks link-health");
  EXPECT_EQ(lh.code, 1) << lh.out;
  EXPECT_THAT(lh.out, HasSubstr("symbol_error"));
}

TEST(Cli, ListNamesEveryCheck) {
  CliRun r = Rdmacheck("list");
  EXPECT_EQ(r.code, 0);
  for (const char* id : {"device-present", "port-active", "device-limits"}) EXPECT_THAT(r.out, HasSubstr(id));
}

TEST(Cli, SupportReportBundlesProfileChecksAndFindings) {
  CliRun r = Rdmacheck("report --profile " + kP + "rxe_port_down.profile --format=json " +
                       "fixtures/logs/ib_write_bw_firewall_client.log");
  EXPECT_EQ(r.code, 1) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "rdmacheck.report/1");
  EXPECT_THAT(j["profile"].get<std::string>(), HasSubstr("rdmacheck-profile 1"));
  EXPECT_EQ(j["run"]["schema_version"], 1);
  EXPECT_GE(j["run"]["summary"]["fail"].get<int>(), 1);
  EXPECT_THAT(j["explain"].dump(), HasSubstr("wc-retry-exc-err"));

  // A log that cannot be read: exit 2 before any check runs, named as report's.
  CliRun nolog = Rdmacheck("report --profile " + kP + "rxe_mtu9000.profile /nonexistent/app.log");
  EXPECT_EQ(nolog.code, 2) << nolog.out;
  EXPECT_THAT(nolog.out, HasSubstr("rdmacheck report: cannot open '/nonexistent/app.log'"));
  EXPECT_THAT(nolog.out, Not(HasSubstr("device-present")));

  CliRun text = Rdmacheck("report --profile " + kP + "rxe_mtu9000.profile --color=never");
  EXPECT_EQ(text.code, 0) << text.out;
  EXPECT_THAT(text.out, HasSubstr("==== profile ===="));
  EXPECT_THAT(text.out, HasSubstr("[PASS] device-present"));
}

TEST(Cli, ExplainLiveRunsTheConfirmingChecksHere) {
  // This machine has no RDMA device: the confirming checks run and say so.
  CliRun r = Rdmacheck("explain --live fixtures/logs/ib_write_bw_firewall_client.log");
  EXPECT_THAT(r.out, HasSubstr("wc-retry-exc-err"));
  EXPECT_THAT(r.out, HasSubstr("== --live: the checks that confirm these findings, on this host =="));
  CliRun json = Rdmacheck("explain --live --format=json fixtures/logs/ib_write_bw_firewall_client.log");
  EXPECT_EQ(json.code, 2);
  EXPECT_THAT(json.out, HasSubstr("rdmacheck report --format=json"));
}

TEST(Cli, DiagCreateQpNamesTheFieldAndExitsOne) {
  CliRun r = Rdmacheck("diag create-qp --profile " + kP + "rxe_old_kernel.profile -d rxe0 " +
                       "--max-send-wr 65536 --max-send-sge 16");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("max_send_wr=65536 is over this device's max_qp_wr 16384"));
  CliRun ok = Rdmacheck("diag create-qp --profile " + kP + "rxe_mtu9000.profile -d rxe0 --max-send-wr 100");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_THAT(ok.out, HasSubstr("127"));  // rxe: 100 -> roundup_pow_of_two(101) - 1
}

// The NPD config's selection (ci/container/kubernetes/rdmacheck-npd.json).
const std::string kNpdArgs =
    " --format=npd --skip hung-qp,sge-page-crossing,cq-overrun,memory-budget,bandwidth,latency --window 1 "
    "--check-deadline 3";

TEST(Cli, NpdPrintsOneLineAndTheStatusNpdReads) {
  CliRun fail = RdmacheckStdout("--profile " + kP + "rxe_nft_drop.profile" + kNpdArgs);
  EXPECT_EQ(fail.code, 1);
  EXPECT_EQ(fail.out,
            "FAIL firewall-4791: UDP 4791 in on va (rxe0) to 198.18.0.1: dropped... (+1 WARN)\n");
  // WARN only: healthy to NPD, and the line still names the warning.
  CliRun warn = RdmacheckStdout("--profile " + kP + "rxe_mtu9000.profile" + kNpdArgs);
  EXPECT_EQ(warn.code, 0);
  EXPECT_THAT(warn.out, ::testing::StartsWith("WARN cap-readback: rxe0: QP class default (RC)"));
  CliRun ok = RdmacheckStdout("--profile " + kP + "mlx5_cx6.profile" + kNpdArgs);
  EXPECT_EQ(ok.code, 0);
  EXPECT_EQ(ok.out, "OK: 11 checks passed, 4 skipped\n");
  for (const CliRun* r : {&fail, &warn, &ok}) {
    EXPECT_LE(r->out.size(), 81u) << r->out;  // 80 bytes and the newline
    EXPECT_EQ(r->out.find('\n'), r->out.size() - 1) << r->out;
  }
}

TEST(Cli, NpdUnknownIsNeitherZeroNorOneAndStillSaysWhy) {
  CliRun skipped = RdmacheckStdout("--profile " + kP + "no_device.profile --checks port-active --format=npd");
  EXPECT_EQ(skipped.code, 3);
  EXPECT_EQ(skipped.out, "UNKNOWN: 1 check skipped: no RDMA device to look at (see device-present)\n");
  CliRun bad = RdmacheckStdout("--profile /nonexistent/x.profile --format=npd");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "UNKNOWN: ReadProfileFile(/nonexistent/x.profile): no such file\n");
  // The support bundle is a document, not a status line or metrics.
  for (const char* format : {"npd", "prometheus"}) {
    CliRun report = Rdmacheck(std::string("report --format=") + format);
    EXPECT_EQ(report.code, 2);
    EXPECT_THAT(report.out, HasSubstr("report: --format is text or json"));
  }
}

TEST(Cli, PrometheusCarriesVerdictsAndTheWindowsRates) {
  CliRun r = RdmacheckStdout("--profile " + kP + "mlx5_symbol_errors.profile --format=prometheus");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("rdmacheck_check_status{check=\"link-health\",status=\"FAIL\"} 1\n"));
  EXPECT_THAT(r.out, HasSubstr("rdmacheck_port_stat_per_second{device=\"mlx5_0\",port=\"1\","
                               "dir=\"counters\",name=\"symbol_error\"} 58.8822355\n"));  // +118 in 2.004 s
  EXPECT_THAT(r.out, HasSubstr("rdmacheck_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 12500000000\n"));
  EXPECT_THAT(r.out, HasSubstr("rdmacheck_memlock_limit_bytes{limit=\"soft\"} +Inf\n"));
}

TEST(Cli, OutputFileIsReplacedWholeOrNotAtAll) {
  const std::string dir = ::testing::TempDir() + "/out";
  mkdir(dir.c_str(), 0755);
  const std::string file = dir + "/rdmacheck.prom";
  std::ofstream(file) << "rdmacheck_build_info{version=\"old\"} 1\n";
  CliRun ok = Rdmacheck("--profile " + kP + "rxe_mtu9000.profile --format=prometheus -o " + file);
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_THAT(ReadAll(file), HasSubstr("rdmacheck_build_info{version=\"0.1.0\"} 1\n"));

  // A write that fails halfway (a file size limit of 512 bytes; SIGXFSZ
  // ignored, so write() returns EFBIG): the old file stays, no temporary.
  const std::string before = ReadAll(file);
  CliRun cut = Shell("trap '' XFSZ; ulimit -f 1; ./rdmacheck --profile " + kP +
                     "rxe_mtu9000.profile --format=json -o " + file + " 2>&1");
  EXPECT_EQ(cut.code, 2) << cut.out;
  EXPECT_THAT(cut.out, HasSubstr("--output: cannot write " + file));
  EXPECT_THAT(cut.out, HasSubstr("File too large (the file is as it was)"));
  EXPECT_EQ(ReadAll(file), before);
  CliRun left = Shell("ls -a " + dir);
  EXPECT_THAT(left.out, Not(HasSubstr(".tmp.")));
}

}  // namespace
}  // namespace rdmacheck
