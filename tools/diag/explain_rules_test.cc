#include "tools/diag/explain_rules.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Loaded once for all tests.
const ExplainRuleSet* Embedded() {
  static const ExplainRuleSet* const rules = [] {
    auto r = ExplainRuleSet::LoadEmbedded();
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? std::move(r).value().release() : nullptr;
  }();
  return rules;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ExplainRules, EmbeddedFilesAreTheDataFiles) {
  const std::vector<RuleSource>& files = EmbeddedExplainRuleFiles();
  ASSERT_GE(files.size(), 10u);
  std::vector<std::string> names;
  for (const RuleSource& f : files) {
    names.push_back(f.name);
    std::string text = ReadFile(f.name);
    ASSERT_FALSE(text.empty()) << f.name;
    EXPECT_EQ(f.text, text) << f.name;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  // wc-status is the catch-all table and must stay last.
  EXPECT_EQ(names.back(), "tools/diag/rules/99-wc-status.rules");
}

// LoadEmbedded trusts the base's examples (EveryExampleMatchesItsRule...
// and DataDirectoryLoadsFromDisk check them); a trusted load runs none.
TEST(ExplainRules, TrustedExamplesAreNotRun) {
  const std::string text =
      "rule: wrong-example\nfamily: test\npattern: ibv_create_qp failed\ndiagnosis: d\ncause: c\n"
      "remedy: r\nconfirm: none\nexample: ibv_create_qp failed: EINVAL\nexample: not this rule's line\n"
      "near-miss: ibv_create_cq failed\n";
  const std::vector<RuleSource> sources = {{"wrong.rules", text}};
  EXPECT_THAT(ExplainRuleSet::ParseSources(sources, "wrong.rules"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("example matches none of the rule's patterns")));
  ASSERT_OK_AND_ASSIGN(auto trusted, ExplainRuleSet::ParseSources(sources, "wrong.rules",
                                                                  ExplainRuleSet::Examples::kTrust));
  LineMatch m;
  EXPECT_TRUE(trusted->Classify("ibv_create_qp failed: EINVAL", &m));
}

TEST(ExplainRules, DataDirectoryLoadsFromDisk) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::LoadFile("tools/diag/rules"));
  EXPECT_EQ(rules->file(), "tools/diag/rules");
  auto embedded = Embedded();
  ASSERT_NE(embedded, nullptr);
  ASSERT_EQ(rules->rules().size(), embedded->rules().size());
  for (size_t i = 0; i < rules->rules().size(); ++i) {
    EXPECT_EQ(rules->rules()[i].id, embedded->rules()[i].id);
    EXPECT_EQ(rules->rules()[i].file, embedded->rules()[i].file);
  }
  EXPECT_GE(rules->rules().size(), 70u);
}

TEST(ExplainRules, OneFileOfTheBaseLoadsAlone) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::LoadFile(
                                       "tools/diag/rules/99-wc-status.rules"));
  ASSERT_FALSE(rules->rules().empty());
  EXPECT_EQ(rules->rules()[0].file, "tools/diag/rules/99-wc-status.rules");
}

// Golden test over the rule file itself: every example is won by its own rule
// with the expected captures, and every near miss matches no rule.
TEST(ExplainRules, EveryExampleMatchesItsRuleAndNoNearMissMatches) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  int examples = 0, near_misses = 0;
  for (size_t i = 0; i < rules->rules().size(); ++i) {
    const ExplainRule& r = rules->rules()[i];
    EXPECT_GE(r.examples.size(), 2u) << r.id;
    EXPECT_GE(r.near_misses.size(), 1u) << r.id;
    for (const ExplainExample& ex : r.examples) {
      ++examples;
      LineMatch m;
      ASSERT_TRUE(rules->Classify(ex.line, &m)) << r.id << ": " << ex.line;
      EXPECT_EQ(rules->rules()[m.rule].id, r.id) << ex.line;
      for (const auto& [name, want] : ex.expect) {
        std::string got = "(none)";
        for (const auto& c : m.captures) {
          if (c.first == name) got = c.second;
        }
        EXPECT_EQ(got, want) << r.id << " capture " << name << " of " << ex.line;
      }
    }
    for (const std::string& nm : r.near_misses) {
      ++near_misses;
      LineMatch m;
      EXPECT_FALSE(rules->Classify(nm, &m))
          << r.id << " near miss '" << nm << "' matched "
          << (m.rule >= 0 ? rules->rules()[m.rule].id : "");
    }
  }
  EXPECT_GE(examples, 2 * static_cast<int>(rules->rules().size()));
  EXPECT_GE(near_misses, static_cast<int>(rules->rules().size()));
}

// A confirm id is a promise that `rdmacheck --checks <id>` runs that check:
// every id the loader accepts must be one the registry has
// (checks/check_target_ids.txt is written from checks/BUILD.bazel's CHECKS).
TEST(ExplainRules, EveryConfirmableCheckIsRegistered) {
  std::ifstream f("checks/check_target_ids.txt");
  ASSERT_TRUE(f.good()) << "checks/check_target_ids.txt missing from runfiles";
  std::set<std::string> registered;
  for (std::string line; std::getline(f, line);) {
    if (!line.empty()) registered.insert(line);
  }
  std::vector<std::string> missing;
  for (const std::string& id : KnownConfirmChecks()) {
    if (registered.count(id) == 0) missing.push_back(id);
  }
  EXPECT_TRUE(missing.empty())
      << "confirm ids with no registered check: " << absl::StrJoin(missing, " ");
}

TEST(ExplainRules, EveryFamilyOfTheIssueIsCovered) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  std::map<std::string, int> per_family;
  for (const ExplainRule& r : rules->rules()) ++per_family[r.family];
  const std::map<std::string, int> kMin = {
      {"perftest", 8},   {"pingpong", 6}, {"rdma-cm", 6},  {"rdma-tool", 2},
      {"libibverbs", 3}, {"kernel-rxe", 5}, {"wc-status", 23},
      {"verbs-errno", 6}, {"ucx", 3},      {"nccl", 5},     {"openmpi", 4},
  };
  for (const auto& [family, min] : kMin) {
    EXPECT_GE(per_family[family], min) << family;
  }
  EXPECT_GE(rules->rules().size(), 75u);
}

// Each ibv_wc_status (1..23) has a rule, found by its number and enum name.
TEST(ExplainRules, EveryWcStatusHasARuleByNumberAndName) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  const char* kNames[] = {
      "",  // IBV_WC_SUCCESS is not an error
      "IBV_WC_LOC_LEN_ERR",   "IBV_WC_LOC_QP_OP_ERR",    "IBV_WC_LOC_EEC_OP_ERR",
      "IBV_WC_LOC_PROT_ERR",  "IBV_WC_WR_FLUSH_ERR",     "IBV_WC_MW_BIND_ERR",
      "IBV_WC_BAD_RESP_ERR",  "IBV_WC_LOC_ACCESS_ERR",   "IBV_WC_REM_INV_REQ_ERR",
      "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",      "IBV_WC_RETRY_EXC_ERR",
      "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR",
      "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR",
      "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",    "IBV_WC_RESP_TIMEOUT_ERR",
      "IBV_WC_GENERAL_ERR",   "IBV_WC_TM_ERR",           "IBV_WC_TM_RNDV_INCOMPLETE",
  };
  std::set<std::string> ids;
  for (int status = 1; status <= 23; ++status) {
    LineMatch by_num, by_eq, by_name;
    std::string num = absl::StrCat(" Failed status ", status, ": wr_id 0 syndrom 0x0");
    std::string eq = absl::StrCat("wc status = ", status);
    ASSERT_TRUE(rules->Classify(num, &by_num)) << num;
    ASSERT_TRUE(rules->Classify(eq, &by_eq)) << eq;
    ASSERT_TRUE(rules->Classify(kNames[status], &by_name)) << kNames[status];
    EXPECT_EQ(by_num.rule, by_eq.rule) << status;
    EXPECT_EQ(by_num.rule, by_name.rule) << status;
    EXPECT_EQ(rules->rules()[by_num.rule].family, "wc-status");
    ids.insert(rules->rules()[by_num.rule].id);
  }
  EXPECT_EQ(ids.size(), 23u);  // 23 different rules
}

// The lines quoted in the issue, each with the rule that must explain it.
TEST(ExplainRules, IssueLinesAreExplained) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  struct Row {
    const char* line;
    const char* rule;
  };
  const Row kRows[] = {
      {"Couldn't listen to port 18515", "perftest-port-in-use"},
      {"Couldn't connect to 10.0.0.2:18515", "perftest-connect-failed"},
      {"Unable to find the Infiniband/RoCE device", "perftest-device-not-found"},
      {"IB device mlx5_3 not found", "perftest-device-not-found"},
      {"Failed to modify QP to RTR", "qp-rtr-failed"},
      {"Requested mtu is higher than active mtu", "perftest-mtu-too-big"},
      {"Found Incompatibility issue with GID types.", "perftest-gid-type-mismatch"},
      {" Gid index should be between 0 and 64", "perftest-gid-index-range"},
      {"Completion with error at server", "perftest-completion-error"},
      {" Failed status 12: wr_id 0 syndrom 0x81", "wc-retry-exc-err"},
      {"Couldn't create QP", "perftest-create-qp"},
      {"Couldn't get port info", "pingpong-port-info"},
      {"Failed status transport retry counter exceeded (12) for wr_id 2",
       "wc-retry-exc-err"},
      {"Couldn't post send", "pingpong-post-send"},
      {"parse WC failed 1", "pingpong-parse-wc"},
      {"cma event RDMA_CM_EVENT_UNREACHABLE, error -110", "cm-unreachable"},
      {"cma event RDMA_CM_EVENT_ADDR_ERROR, error -110", "cm-addr-error"},
      {"cma event RDMA_CM_EVENT_ROUTE_ERROR, error -110", "cm-route-error"},
      {"cma event RDMA_CM_EVENT_REJECTED, error 8", "cm-rejected"},
      {"rdma_resolve_addr: No such device", "cm-no-device"},
      {"rdma_bind_addr: Cannot assign requested address", "cm-bind-addr"},
      {"error: File exists", "rdma-link-exists"},
      {"error: No such file or directory", "rdma-link-noent"},
      {"rdma_rxe: already configured on va", "rxe-already-configured"},
      {"libibverbs: Warning: couldn't load driver 'rxe': x", "verbs-driver-load"},
      {"libibverbs: Warning: no userspace device-specific driver found for "
       "/sys/class/infiniband_verbs/uverbs0",
       "verbs-no-provider"},
      {"rdma_rxe: invalid max inline data = 512 > 400", "rxe-invalid-cap"},
      {"rdma_rxe: unloaded", "rxe-unloaded"},
      {"rxe: qp#17 moved to error state", "rxe-qp-error"},
      {"rdma_rxe: failed to add va", "rxe-failed-add"},
      {"Failed status local length error (1) for wr_id 0", "wc-loc-len-err"},
      {"Failed status local protection error (4) for wr_id 0", "wc-loc-prot-err"},
      {"Failed status Work Request Flushed Error (5) for wr_id 0", "wc-wr-flush-err"},
      {"Failed status remote access error (10) for wr_id 0", "wc-rem-access-err"},
      {"Failed status RNR retry counter exceeded (13) for wr_id 0",
       "wc-rnr-retry-exc-err"},
      {"Failed status 12", "wc-retry-exc-err"},
      {"status = 13", "wc-rnr-retry-exc-err"},
      {"ibv_create_qp failed: Invalid argument", "errno-create-qp-einval"},
      {"ibv_reg_mr: Cannot allocate memory", "errno-reg-mr-enomem"},
      {"ibv_create_cq failed: Cannot allocate memory", "errno-create-cq-enomem"},
      {"[1.0] [h:1:0] ib_iface.c:1035 UCX  ERROR ibv_create_cq(cqe=4096) failed: "
       "Cannot allocate memory",
       "ucx-ib-enomem"},
      {"Transport retry count exceeded on mlx5_0:1/RoCE", "ucx-retry-exceeded"},
      {"[1.0] [h:1:0] ib_log.c:246  UCX  WARN  IB: ibv_create_cq(cqe=9) failed: "
       "Invalid argument",
       "ucx-create-cq-failed"},
      {"h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 1.2.3.4<5> with "
       "status=12 opcode=1 len=0 vendor err 129 (Send)",
       "nccl-retry-exceeded"},
      {"misc/ibvwrap.cc:252 NCCL WARN Call to ibv_create_qp failed with error "
       "Cannot allocate memory",
       "nccl-create-qp-failed"},
      {"h:1:1 [0] NCCL INFO NET/IB : No device found.", "nccl-no-ib-device"},
      {"The OpenFabrics (openib) BTL failed to initialize while trying to",
       "ompi-openib-init"},
      {"f: error registering openib memory of size 10 errno says Cannot allocate "
       "memory",
       "ompi-reg-mem"},
      {"The InfiniBand retry count between two MPI processes has been",
       "ompi-retry-exceeded"},
      {"[n][[1,1],0][btl_openib.c:1:f] btl_openib: memlock limit too low",
       "ompi-memlock"},
  };
  for (const Row& row : kRows) {
    LineMatch m;
    ASSERT_TRUE(rules->Classify(row.line, &m)) << row.line;
    EXPECT_EQ(rules->rules()[m.rule].id, row.rule) << row.line;
  }
}

// Link and PCIe trouble: other lines of the reports named in the rule file's
// header than the rules' own examples, each with the rule that must explain
// it and the checks that confirm it.
TEST(ExplainRules, LinkAndPcieLinesPointToTheirChecks) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  struct Row {
    const char* line;
    const char* rule;
    std::vector<std::string> confirm;
  };
  const Row kRows[] = {
      {"...-48:34057:34142 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got "
       "async event : port error",
       "nccl-async-port-error", {"link-health", "port-active"}},
      {"[1505656948.510897] [juno000:88430:0]      ib_device.c:171  UCX  WARN  "
       "IB Async event on mlx5_0: client reregistration on port 1",
       "ucx-async-port-event", {"link-health", "port-active", "gid-table"}},
      {"mlx5_core 0000:5c:00.0: Port module event[error]: module 0, Cable "
       "error, High Temperature",
       "mlx5-port-module", {"link-health", "port-active", "port-rate"}},
      {"pcieport 0000:00:1c.5: AER: Multiple Corrected error received: "
       "0000:00:1c.5",
       "pcie-aer-corrected", {"pcie"}},
      {"PCIe Bus Error: severity=Corrected, type=Physical Layer, "
       "id=00e5(Receiver ID)",
       "pcie-aer-corrected", {"pcie"}},
      {"0000:50:00.0: PCIe Bus Error: severity=Uncorrectable (Fatal), "
       "type=Transaction Layer, (Requester ID)",
       "pcie-aer-uncorrected", {"pcie", "device-present"}},
      {"   GUID 0x2c903006e29b0 port 7: [SymbolErrorCounter == 65535] "
       "[LinkErrorRecoveryCounter == 7] [LinkDownedCounter == 2] "
       "[PortRcvSwitchRelayErrors == 1]",
       "ibqueryerrors-link-errors", {"link-health", "port-rate"}},
  };
  for (const Row& row : kRows) {
    LineMatch m;
    ASSERT_TRUE(rules->Classify(row.line, &m)) << row.line;
    EXPECT_EQ(rules->rules()[m.rule].id, row.rule) << row.line;
    EXPECT_EQ(rules->rules()[m.rule].confirm, row.confirm) << row.line;
  }
  // Information, not trouble: these stay unexplained.
  const char* kQuiet[] = {
      "[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): PCIe "
      "slot power capability was not advertised.",
      "[   22.325345] mlx5_core 0000:63:00.0: 504.112 Gb/s available PCIe "
      "bandwidth (32.0 GT/s PCIe x16 link)",
      "Mar 27 15:37:39 cc1 kernel: mlx5_core 0000:01:00.1 eth1: Link up",
  };
  for (const char* line : kQuiet) {
    LineMatch m;
    EXPECT_FALSE(rules->Classify(line, &m)) << line;
  }
}

TEST(ExplainRules, PcieRemediationNamesTheLimitingPort) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  LineMatch m;
  ASSERT_TRUE(rules->Classify(
      "mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited "
      "by 8 GT/s x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16 GT/s "
      "x16 link)",
      &m));
  std::string all;
  for (const std::string& line : rules->rules()[m.rule].remedy) {
    all += ExplainRuleSet::Substitute(line, m.captures) + "\n";
  }
  EXPECT_THAT(all, HasSubstr("lspci -vvv -s 0000:b2:00.0 | grep -E 'LnkCap|LnkSta'"));
  EXPECT_THAT(all, HasSubstr("a slot wired x16 at 16 GT/s"));
  EXPECT_THAT(all, HasSubstr("rdmacheck --checks pcie,port-rate"));
  EXPECT_EQ(all.find("${"), std::string::npos);
}

TEST(ExplainRules, RemediationSubstitutesCaptures) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  LineMatch m;
  ASSERT_TRUE(rules->Classify("rdma_rxe: already configured on enp3s0", &m));
  const ExplainRule& r = rules->rules()[m.rule];
  std::string all;
  for (const std::string& line : r.remedy) {
    all += ExplainRuleSet::Substitute(line, m.captures) + "\n";
  }
  EXPECT_THAT(all, HasSubstr("rdma link show | grep enp3s0"));
  EXPECT_THAT(all, HasSubstr("type rxe netdev enp3s0"));
  EXPECT_EQ(all.find("${"), std::string::npos);
}

// The same failing call at UCX's ERROR level is a finding, at DEBUG (a probe
// UCX falls back from) none; libfabric's <debug> and <trace> likewise.
TEST(ExplainRules, LinesBelowTheLoggersInfoLevelAreNoFinding) {
  auto rules = Embedded();
  ASSERT_NE(rules, nullptr);
  LineMatch m;
  EXPECT_TRUE(rules->Classify(
      "[1681107537.414083] [w-2:146204:0]  rc_mlx5_common.c:735  UCX  ERROR ibv_alloc_dm(dev=mlx5_2 length=2048) "
      "failed: Invalid argument",
      &m));
  EXPECT_FALSE(rules->Classify(
      "[1681107537.414083] [w-2:146204:0]  rc_mlx5_common.c:735  UCX  DEBUG ibv_alloc_dm(dev=mlx5_2 length=2048) "
      "failed: Invalid argument",
      &m));
  EXPECT_FALSE(rules->Classify("[1.0] [h:1:0]  ib_iface.c:1  UCX  TRACE ibv_create_qp() failed: Invalid argument", &m));
  EXPECT_TRUE(rules->Classify(
      "libfabric:verbs:fabric:fi_ibv_get_qp_cap():445<info> ibv_create_qp: Invalid argument(22)", &m));
  EXPECT_FALSE(rules->Classify(
      "libfabric:verbs:fabric:fi_ibv_get_qp_cap():445<debug> ibv_create_qp: Invalid argument(22)", &m));
}

TEST(ExplainRules, SubstituteLeavesMissingCapturesVisible) {
  Captures caps = {{"dev", "mlx5_0"}};
  EXPECT_EQ(ExplainRuleSet::Substitute("ibv_devinfo -d ${dev} -i ${port}", caps),
            "ibv_devinfo -d mlx5_0 -i <port>");
  EXPECT_EQ(ExplainRuleSet::Substitute("no refs", caps), "no refs");
  EXPECT_EQ(ExplainRuleSet::Substitute("open ${dev", caps), "open ${dev");
}

// A minimal valid rule; the malformed cases below change one thing.
constexpr char kGood[] =
    "rule: demo-port\n"                             // 1
    "family: perftest\n"                            // 2
    "pattern: listen to port (?P<port>\\d+)\n"      // 3
    "diagnosis: port ${port} taken\n"               // 4
    "cause: leftover server\n"                      // 5
    "remedy: ss -ltnp 'sport = :${port}'\n"         // 6
    "confirm: none\n"                               // 7
    "example: Couldn't listen to port 1\n"          // 8
    "expect: port=1\n"                              // 9
    "example: listen to port 22\n"                  // 10
    "near-miss: listen to port x\n";                // 11

TEST(ExplainRulesLoader, MinimalRuleLoads) {
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::Parse(kGood, "t.rules"));
  ASSERT_EQ(rules->rules().size(), 1u);
  const ExplainRule& r = rules->rules()[0];
  EXPECT_EQ(r.id, "demo-port");
  EXPECT_EQ(r.capture_names, std::vector<std::string>{"port"});
  EXPECT_EQ(r.key, std::vector<std::string>{"port"});  // default: all captures
  EXPECT_TRUE(r.confirm.empty());
}

std::string Replace(std::string text, const std::string& from,
                    const std::string& to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

TEST(ExplainRulesLoader, MalformedFilesNameFileLineAndReason) {
  const std::string good = kGood;
  struct Case {
    std::string name;
    std::string text;
    std::string message;
  };
  const Case kCases[] = {
      {"bad regex names file:line and the re2 error",
       Replace(good, "(?P<port>\\d+)", "(?P<port>\\d+"),
       "t.rules:3: rule 'demo-port': pattern does not compile: missing ): "},
      {"bad regex: invalid escape",
       Replace(good, "listen to port", "listen to port \\8"),
       "t.rules:3: rule 'demo-port': pattern does not compile: invalid escape "
       "sequence: \\8"},
      {"missing diagnosis", Replace(good, "diagnosis: port ${port} taken\n", ""),
       "t.rules:1: rule 'demo-port': missing field 'diagnosis'"},
      {"missing confirm", Replace(good, "confirm: none\n", ""),
       "t.rules:1: rule 'demo-port': missing field 'confirm'"},
      {"missing near miss", Replace(good, "near-miss: listen to port x\n", ""),
       "missing field 'near-miss'"},
      {"only one example", Replace(good, "example: listen to port 22\n", ""),
       "needs at least two 'example:' lines"},
      {"duplicate id",
       good + Replace(Replace(good, "listen to port", "bind to port"),
                      "Couldn't listen", "Couldn't bind"),
       "t.rules:12: duplicate rule id 'demo-port' (first defined at t.rules:1)"},
      {"example does not match",
       Replace(good, "example: listen to port 22", "example: connect to port 22"),
       "t.rules:10: rule 'demo-port': example matches none of the rule's "
       "patterns: 'connect to port 22'"},
      {"example below its logger's info level",
       Replace(good, "example: listen to port 22", "example: libfabric:1:verbs:core:f():1<debug> listen to port 22"),
       "t.rules:10: rule 'demo-port': example 'libfabric:1:verbs:core:f():1<debug> listen to port 22' gives no "
       "finding (a line below its logger's info level is none)"},
      {"near miss matches", Replace(good, "listen to port x", "listen to port 7"),
       "near miss 'listen to port 7' matches rule 'demo-port'"},
      {"wrong expected capture", Replace(good, "expect: port=1", "expect: port=2"),
       "t.rules:8: rule 'demo-port': example 'Couldn't listen to port 1' "
       "captures port='1', expected '2'"},
      {"unknown field", Replace(good, "cause: leftover", "causes: leftover"),
       "t.rules:5: unknown field 'causes'"},
      {"unknown check id", Replace(good, "confirm: none", "confirm: port-up"),
       "t.rules:7: rule 'demo-port': unknown check 'port-up'"},
      {"substitution of a missing capture",
       Replace(good, "remedy: ss -ltnp 'sport = :${port}'", "remedy: kill ${pid}"),
       "rule 'demo-port': ${pid} is not a capture of any pattern"},
      {"field twice", Replace(good, "family: perftest\n",
                              "family: perftest\nfamily: nccl\n"),
       "t.rules:3: rule 'demo-port': field 'family' given twice"},
      {"field before rule", "family: perftest\n" + good,
       "t.rules:1: field 'family' before the first 'rule:' line"},
      {"line without colon", Replace(good, "cause: leftover server", "leftover"),
       "t.rules:5: expected 'field: value'"},
      {"bad id", Replace(good, "rule: demo-port", "rule: Demo Port"),
       "t.rules:1: rule id 'Demo Port' must be"},
      {"expect without example", Replace(good, "family: perftest\n",
                                         "family: perftest\nexpect: port=1\n"),
       "t.rules:3: rule 'demo-port': 'expect:' must follow its 'example:' line"},
      {"key names no capture", Replace(good, "confirm: none\n",
                                       "confirm: none\nkey: dev\n"),
       "rule 'demo-port': key 'dev' is not a capture"},
  };
  for (const Case& c : kCases) {
    EXPECT_THAT(ExplainRuleSet::Parse(c.text, "t.rules"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.name;
  }
}

TEST(ExplainRulesLoader, EarlierRuleClaimingAnExampleIsReported) {
  std::string text = std::string(kGood) +
                     "rule: demo-specific\n"
                     "family: perftest\n"
                     "pattern: Couldn't listen to port 1\\b\n"
                     "diagnosis: d\n"
                     "cause: c\n"
                     "remedy: r\n"
                     "confirm: none\n"
                     "example: Couldn't listen to port 1\n"
                     "example: x Couldn't listen to port 1\n"
                     "near-miss: nothing here\n";
  EXPECT_THAT(ExplainRuleSet::Parse(text, "t.rules"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("t.rules:19: rule 'demo-specific'"),
                             HasSubstr("is claimed by rule 'demo-port'"))));
}

TEST(ExplainRulesLoader, MissingFileIsNotFound) {
  EXPECT_THAT(ExplainRuleSet::LoadFile("/nonexistent/rules.txt"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("/nonexistent/rules.txt")));
}

// /dev/zero would grow memory until killed; a FIFO would block.
TEST(ExplainRulesLoader, NotARegularFileIsRefused) {
  EXPECT_THAT(ExplainRuleSet::LoadFile("/dev/zero"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("LoadRuleFile(/dev/zero): not a regular file (a rule file is read from a file)")));
}

TEST(ExplainRulesLoader, ErrorsNameTheFileOfTheRule) {
  std::string good(kGood);
  ASSERT_OK(ExplainRuleSet::Parse(good, "a.rules").status());
  std::string bad = Replace(good, "confirm: none", "confirm: port-up");
  EXPECT_THAT(ExplainRuleSet::ParseSources({{"a.rules", "# only a comment\n"},
                                            {"b.rules", bad}},
                                           "dir"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("b.rules:7: rule 'demo-port': unknown check")));
  // The same id in two files names both.
  EXPECT_THAT(ExplainRuleSet::ParseSources({{"a.rules", good}, {"b.rules", good}},
                                           "dir"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("b.rules:1: duplicate rule id 'demo-port' "
                                 "(first defined at a.rules:1)")));
}

TEST(ExplainRulesLoader, FollowsMustNameAnotherRule) {
  std::string good(kGood);
  EXPECT_THAT(
      ExplainRuleSet::Parse(Replace(good, "confirm: none\n",
                                    "confirm: none\nfollows: no-such-rule\n"),
                            "t.rules"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("t.rules:1: rule 'demo-port': follows 'no-such-rule', "
                         "which is no rule's id")));
  EXPECT_THAT(
      ExplainRuleSet::Parse(
          Replace(good, "confirm: none\n", "confirm: none\nfollows: demo-port\n"),
          "t.rules"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("itself")));
}

TEST(ExplainRulesLoader, DirectoryOfRuleFilesLoadsInNameOrder) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/rules_dir");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string good(kGood);
  // Written in the opposite order to their names: the names decide.
  std::string specific = Replace(good, "demo-port", "demo-specific");
  for (int i = 0; i < 4; ++i) specific = Replace(specific, "listen to port", "bind to port");
  std::ofstream(dir + "/20-generic.rules") << good;
  std::ofstream(dir + "/10-specific.rules") << specific;
  std::ofstream(dir + "/notes.txt") << "not a rule file\n";
  ASSERT_OK_AND_ASSIGN(auto rules, ExplainRuleSet::LoadFile(dir));
  ASSERT_EQ(rules->rules().size(), 2u);
  EXPECT_EQ(rules->rules()[0].id, "demo-specific");
  EXPECT_EQ(rules->rules()[0].file, dir + "/10-specific.rules");
  std::filesystem::remove(dir + "/10-specific.rules");
  std::filesystem::remove(dir + "/20-generic.rules");
  EXPECT_THAT(ExplainRuleSet::LoadFile(dir),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("directory holds no *.rules file")));
}

}  // namespace
}  // namespace rdmacheck
