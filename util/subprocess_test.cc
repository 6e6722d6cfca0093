#include "util/subprocess.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/clock.h"
#include "util/status_matchers.h"

namespace rdmacheck {
namespace {

using ::rdmacheck::testing::StatusIs;
using ::testing::HasSubstr;

// No child of this process is left, running or as a zombie.
void ExpectNoChildren() {
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

struct Ended {
  const char* name;
  std::vector<std::string> argv;
  std::string out;
  std::string err;
  int exit_code;
  int signal;
  const char* how;
  const char* exit_status;  // "" for OK
};

TEST(RunSubprocess, HowTheChildEnded) {
  const Ended rows[] = {
      {"stdout", {"echo", "[]"}, "[]\n", "", 0, 0, "exited 0", ""},
      {"stdin_is_empty", {"cat"}, "", "", 0, 0, "exited 0", ""},
      {"both_streams", {"sh", "-c", "echo out; echo err >&2"}, "out\n", "err\n", 0, 0, "exited 0", ""},
      {"exit_code_with_stderr",
       {"sh", "-c", "echo 'error: no netlink' >&2; exit 3"},
       "",
       "error: no netlink\n",
       3,
       0,
       "exited 3",
       "'sh -c echo 'error: no netlink' >&2; exit 3' exited 3: error: no netlink"},
      {"exit_127_is_an_exit", {"sh", "-c", "exit 127"}, "", "", 127, 0, "exited 127",
       "'sh -c exit 127' exited 127"},
      {"sigpipe", {"sh", "-c", "kill -PIPE $$"}, "", "", 0, 13, "killed by SIGPIPE",
       "'sh -c kill -PIPE $$' killed by SIGPIPE"},
      {"sigkill", {"sh", "-c", "kill -KILL $$"}, "", "", 0, 9, "killed by SIGKILL",
       "'sh -c kill -KILL $$' killed by SIGKILL"},
  };
  for (const Ended& row : rows) {
    SCOPED_TRACE(row.name);
    ASSERT_OK_AND_ASSIGN(SubprocessResult r, RunSubprocess(row.argv, 5));
    EXPECT_EQ(r.out, row.out);
    EXPECT_EQ(r.err, row.err);
    EXPECT_EQ(r.exit_code, row.exit_code);
    EXPECT_EQ(r.signal, row.signal);
    EXPECT_EQ(r.HowItEnded(), row.how);
    EXPECT_EQ(r.Succeeded(), std::string(row.exit_status).empty());
    if (std::string(row.exit_status).empty()) {
      EXPECT_OK(r.ExitStatus());
    } else {
      EXPECT_THAT(r.ExitStatus(), StatusIs(absl::StatusCode::kInternal, row.exit_status));
    }
  }
  ExpectNoChildren();
}

struct Failed {
  const char* name;
  std::vector<std::string> argv;
  double deadline_s;
  absl::StatusCode code;
  const char* message;
};

TEST(RunSubprocess, ErrorsNameTheCommand) {
  const Failed rows[] = {
      {"deadline", {"sleep", "5"}, 0.2, absl::StatusCode::kDeadlineExceeded,
       "'sleep 5' did not finish within 0.2 s; killed"},
      // Closed its output and runs on: still held to the deadline.
      {"deadline_after_closing_output", {"sh", "-c", "exec >&- 2>&-; exec sleep 5"}, 0.2,
       absl::StatusCode::kDeadlineExceeded, "did not finish within 0.2 s; killed"},
      {"missing_in_path", {"no-such-tool-rdmacheck", "-j"}, 5, absl::StatusCode::kNotFound,
       "'no-such-tool-rdmacheck -j': no-such-tool-rdmacheck not found"},
      {"missing_path", {"/nonexistent/rdma"}, 5, absl::StatusCode::kNotFound,
       "'/nonexistent/rdma': /nonexistent/rdma not found"},
      {"endless_output", {"yes"}, 5, absl::StatusCode::kResourceExhausted, "'yes' printed more than 16 MiB; killed"},
      {"empty_argv", {}, 5, absl::StatusCode::kInvalidArgument, "no program"},
      {"zero_deadline", {"true"}, 0, absl::StatusCode::kInvalidArgument, "'true': deadline 0 s is not positive"},
  };
  for (const Failed& row : rows) {
    SCOPED_TRACE(row.name);
    const double t0 = MonotonicSeconds();
    EXPECT_THAT(RunSubprocess(row.argv, row.deadline_s), StatusIs(row.code, HasSubstr(row.message)));
    EXPECT_LT(MonotonicSeconds() - t0, 3.0) << "killed at the deadline, not waited for";
    ExpectNoChildren();
  }
}

TEST(RunSubprocess, NotExecutableIsPermissionDenied) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/not_executable";
  std::ofstream(path) << "#!/bin/sh\n";
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  EXPECT_THAT(RunSubprocess({path}, 5),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr(path + " cannot be run")));
}

}  // namespace
}  // namespace rdmacheck
