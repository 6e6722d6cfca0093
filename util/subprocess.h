// RunSubprocess: the one way this project runs another program (nft,
// iptables-save, rdma): fork/exec without a shell, stdin from /dev/null,
// stdout and stderr captured, and a deadline after which the child is killed
// and reaped, never left behind.
//
//   absl::StatusOr<SubprocessResult> r = RunSubprocess({"nft", "list", "ruleset"}, 3.0);
//   if (!r.ok()) return r.status();          // not found, deadline, fork failed
//   RDMACHECK_RETURN_IF_ERROR(r->ExitStatus());  // "'nft list ruleset' exited 1: ..."
//   Parse(r->out);
//
// Errors, each naming the command as `'argv joined by spaces'`:
//   NotFound          the program is not in PATH (or the path does not exist)
//   PermissionDenied  it exists but cannot be executed
//   DeadlineExceeded  it did not finish within deadline_s: killed (SIGKILL)
//   ResourceExhausted it printed more than kMaxSubprocessOutput: killed
//   InvalidArgument   empty argv
//   Internal          pipe, spawn or poll failed
// A child that ran and ended, with any exit code or by a signal, is a
// result, not an error: ExitStatus() turns it into one where the caller
// wants that.
#ifndef RDMACHECK_UTIL_SUBPROCESS_H_
#define RDMACHECK_UTIL_SUBPROCESS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rdmacheck {

// Per stream. Far above what the callers' tools print (a large nft ruleset
// is a few MiB); a child past it is looping, not reporting.
inline constexpr size_t kMaxSubprocessOutput = size_t{16} << 20;

struct SubprocessResult {
  std::string command;   // "nft list ruleset": argv joined by spaces
  std::string out;       // everything it wrote to stdout
  std::string err;       // everything it wrote to stderr
  int exit_code = 0;     // when it exited (signal == 0)
  int signal = 0;        // the signal that killed it, 0 when it exited

  bool Succeeded() const { return signal == 0 && exit_code == 0; }

  // "exited 3" or "killed by SIGPIPE".
  std::string HowItEnded() const;

  // OK when it exited 0; otherwise Internal "'<command>' exited 3: <stderr>"
  // (stderr without its trailing newlines, left out when empty) or
  // "'<command>' killed by SIGSEGV".
  absl::Status ExitStatus() const;
};

// Runs argv (argv[0] looked up in PATH as execvp does) and waits at most
// deadline_s seconds for it to exit and close its output.
absl::StatusOr<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv, double deadline_s);

}  // namespace rdmacheck

#endif  // RDMACHECK_UTIL_SUBPROCESS_H_
