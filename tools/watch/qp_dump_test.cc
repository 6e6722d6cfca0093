#include "tools/watch/qp_dump.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ParseRdmaQpJson, ReadsEveryField) {
  ASSERT_OK_AND_ASSIGN(
      std::vector<QpRecord> qps,
      ParseRdmaQpJson(R"([{"ifindex":3,"ifname":"rxe0","port":1,"lqpn":17,"rqpn":18,"type":"RC",
        "state":"RTS","rq-psn":5,"sq-psn":1234,"path-mig-state":"MIGRATED","pdn":2,"pid":301,
        "comm":"ib_write_bw"},
       {"ifindex":3,"ifname":"rxe0","port":1,"lqpn":1,"type":"GSI","state":"RTS","sq-psn":0,
        "comm":"[ib_core]"}])",
                      "t"));
  ASSERT_EQ(qps.size(), 2u);
  EXPECT_EQ(qps[0].ifname, "rxe0");
  EXPECT_EQ(qps[0].port, 1);
  EXPECT_EQ(qps[0].lqpn, 17u);
  EXPECT_EQ(qps[0].rqpn, 18u);
  EXPECT_EQ(qps[0].type, "RC");
  EXPECT_EQ(qps[0].state, "RTS");
  EXPECT_EQ(qps[0].rq_psn, 5u);
  EXPECT_EQ(qps[0].sq_psn, 1234u);
  EXPECT_EQ(qps[0].path_mig_state, "MIGRATED");
  EXPECT_EQ(qps[0].pid, 301);
  EXPECT_EQ(qps[0].comm, "ib_write_bw");
  EXPECT_EQ(qps[0].Name(), "rxe0/1 qp 17");
  // A kernel QP: no pid, no rqpn, no rq-psn.
  EXPECT_FALSE(qps[1].pid.has_value());
  EXPECT_FALSE(qps[1].rqpn.has_value());
  EXPECT_FALSE(qps[1].rq_psn.has_value());
  EXPECT_EQ(qps[1].comm, "[ib_core]");
}

TEST(ParseRdmaQpJson, EmptyOutputIsNoQps) {
  ASSERT_OK_AND_ASSIGN(std::vector<QpRecord> a, ParseRdmaQpJson("[]", "t"));
  EXPECT_TRUE(a.empty());
  ASSERT_OK_AND_ASSIGN(std::vector<QpRecord> b, ParseRdmaQpJson("", "t"));
  EXPECT_TRUE(b.empty());
}

struct BadCase {
  const char* text;
  const char* message;
};

TEST(ParseRdmaQpJson, BadInputNamesRecordAndKey) {
  const BadCase cases[] = {
      {"[{\"ifname\":\"rxe0\",\"lqpn\":", "dump: not JSON"},
      {"{\"ifname\":\"rxe0\"}", "dump: not a JSON array of QPs"},
      {"[3]", "dump: QP record 0 is not an object"},
      {"[{\"lqpn\":1}]", "dump: QP record 0: \"ifname\" is missing"},
      {"[{\"ifname\":\"rxe0\",\"lqpn\":1},{\"ifname\":\"rxe0\"}]", "dump: QP record 1: \"lqpn\" is missing"},
      {"[{\"ifname\":\"rxe0\",\"lqpn\":\"x\"}]", "QP record 0: \"lqpn\" is not a non-negative integer"},
      {"[{\"ifname\":\"rxe0\",\"lqpn\":1,\"sq-psn\":-4}]", "\"sq-psn\" is not a non-negative integer"},
      {"[{\"ifname\":\"rxe0\",\"lqpn\":1,\"state\":6}]", "\"state\" is not a string"},
  };
  for (const BadCase& c : cases) {
    EXPECT_THAT(ParseRdmaQpJson(c.text, "dump"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.text;
  }
}

// A real dump: fixtures/watch/ib_write_bw_stuck_1.json (see its README).
TEST(ParseRdmaQpJson, RecordedGuestDump) {
  std::ifstream in("fixtures/watch/ib_write_bw_stuck_1.json");
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_OK_AND_ASSIGN(std::vector<QpRecord> qps, ParseRdmaQpJson(ss.str(), "stuck_1"));
  ASSERT_EQ(qps.size(), 4u);
  const QpRecord& c = qps[0];
  EXPECT_EQ(c.Name(), "rxe0/1 qp 17");
  EXPECT_EQ(c.rqpn, 17u);
  EXPECT_EQ(c.type, "RC");
  EXPECT_EQ(c.state, "RTS");
  EXPECT_EQ(c.rq_psn, 13379789u);
  EXPECT_EQ(c.sq_psn, 1161993u);
  EXPECT_EQ(c.path_mig_state, "MIGRATED");
  EXPECT_EQ(c.pdn, 1u);
  EXPECT_EQ(c.pid, 293);
  EXPECT_EQ(c.comm, "ib_write_bw");
  EXPECT_EQ(qps[2].Name(), "rxe1/1 qp 17");
  EXPECT_EQ(qps[2].state, "RTR");
  EXPECT_EQ(qps[3].comm, "ib_core");
  EXPECT_FALSE(qps[3].pid.has_value());
}

// A stand-in for the rdma tool: a shell script with this body.
std::string FakeRdma(const std::string& name, const std::string& body) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  EXPECT_EQ(::chmod(path.c_str(), 0755), 0);
  return path;
}

TEST(RunRdmaQpDump, ReturnsStdoutOfTheDumpCommand) {
  const std::string rdma = FakeRdma("rdma_ok", "[ \"$*\" = \"-j -d res show qp\" ] || exit 9; echo '[]'");
  ASSERT_OK_AND_ASSIGN(std::string out, RunRdmaQpDump(5, rdma));
  EXPECT_EQ(out, "[]\n");
}

struct RunFails {
  const char* name;
  const char* body;  // nullptr: no such program
  double deadline_s;
  absl::StatusCode code;
  const char* message;
};

TEST(RunRdmaQpDump, Failures) {
  const RunFails rows[] = {
      {"rdma_missing", nullptr, 5, absl::StatusCode::kNotFound,
       "/nonexistent/rdma not found (install iproute2: apt-get install iproute2)"},
      {"rdma_hangs", "exec sleep 5", 0.2, absl::StatusCode::kDeadlineExceeded,
       "show qp' did not finish within 0.2 s"},
      {"rdma_fails", "echo 'error: no netlink' >&2; exit 3", 5, absl::StatusCode::kInternal,
       "exited 3: error: no netlink"},
  };
  for (const RunFails& r : rows) {
    const std::string rdma = r.body ? FakeRdma(r.name, r.body) : "/nonexistent/rdma";
    EXPECT_THAT(RunRdmaQpDump(r.deadline_s, rdma), StatusIs(r.code, HasSubstr(r.message))) << r.name;
  }
}

}  // namespace
}  // namespace rdmacheck
