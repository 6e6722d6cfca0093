#include "util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/clock.h"
#include "util/stop_flag.h"

extern char** environ;

namespace rdmacheck {
namespace {

std::string ErrnoText(int err) {
  char buf[128];
  // GNU strerror_r: returns the text, which may or may not be in buf.
  return ::strerror_r(err, buf, sizeof(buf));
}

std::string Quoted(absl::string_view cmd) { return absl::StrCat("'", cmd, "'"); }

// Closes the fds it holds on every return path.
class Fds {
 public:
  ~Fds() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  int& operator[](size_t i) { return fds_[i]; }
  void Close(size_t i) {
    if (fds_[i] >= 0) ::close(fds_[i]);
    fds_[i] = -1;
  }

 private:
  int fds_[4] = {-1, -1, -1, -1};
};

// posix_spawnp rather than fork+exec: it is safe in a process with threads,
// and glibc (2.24 and later) returns the exec's errno, so a missing program
// is told apart from one that exits 127.
int Spawn(const std::vector<std::string>& argv, int out_w, int err_w, pid_t* pid) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_w, 1);
  posix_spawn_file_actions_adddup2(&fa, err_w, 2);
  // An ignored signal and the blocked mask survive exec (signal(7)): the
  // child starts with SIGPIPE, SIGINT and SIGTERM at their defaults and
  // nothing blocked, so it ends on a closed pipe or a Ctrl-C as it would
  // from a shell, whatever this process set up for itself.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  int rc = posix_spawnp(pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

void KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::string SubprocessResult::HowItEnded() const {
  if (signal == 0) return absl::StrCat("exited ", exit_code);
  const char* name = ::sigabbrev_np(signal);
  if (name == nullptr) return absl::StrCat("killed by signal ", signal);
  return absl::StrCat("killed by SIG", name);
}

absl::Status SubprocessResult::ExitStatus() const {
  if (Succeeded()) return absl::OkStatus();
  absl::string_view e = absl::StripTrailingAsciiWhitespace(err);
  return absl::InternalError(
      absl::StrCat(Quoted(command), " ", HowItEnded(), e.empty() ? "" : ": ", e));
}

absl::StatusOr<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv, double deadline_s) {
  if (argv.empty() || argv[0].empty()) return absl::InvalidArgumentError("RunSubprocess: no program");
  SubprocessResult r;
  r.command = absl::StrJoin(argv, " ");
  const std::string cmd = Quoted(r.command);
  if (!(deadline_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(cmd, ": deadline ", deadline_s, " s is not positive"));
  }

  Fds fds;  // 0, 1: stdout read/write; 2, 3: stderr read/write
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat(cmd, ": pipe2: ", ErrnoText(errno)));
  fds[0] = p[0];
  fds[1] = p[1];
  if (::pipe2(p, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat(cmd, ": pipe2: ", ErrnoText(errno)));
  fds[2] = p[0];
  fds[3] = p[1];

  pid_t pid = -1;
  // A signal that ends this process kills the child first (util/stop_flag.h):
  // no listing tool is left running without its parent.
  BeginSpawn();
  const int rc = Spawn(argv, fds[1], fds[3], &pid);
  if (rc == 0) RegisterChild(pid);
  EndSpawn();
  if (rc != 0) {
    if (rc == ENOENT || rc == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat(cmd, ": ", argv[0], " not found"));
    }
    if (rc == EACCES || rc == EPERM) {
      return absl::PermissionDeniedError(absl::StrCat(cmd, ": ", argv[0], " cannot be run: ", ErrnoText(rc)));
    }
    return absl::InternalError(absl::StrCat(cmd, ": spawn: ", ErrnoText(rc)));
  }
  fds.Close(1);
  fds.Close(3);
  struct ChildSlot {
    pid_t pid;
    ~ChildSlot() { UnregisterChild(pid); }
  } slot{pid};

  const double end = MonotonicSeconds() + deadline_s;
  auto ms_left = [end]() -> int {
    double left = end - MonotonicSeconds();
    if (left <= 0) return 0;
    return static_cast<int>(std::min<double>(std::ceil(left * 1000), INT_MAX));
  };
  enum class Stop { kNone, kDeadline, kTooMuch, kPollError };
  Stop stop = Stop::kNone;
  int poll_errno = 0;

  // Read both streams until the child closes them: reading only one could
  // leave the child blocked on a full pipe of the other.
  pollfd pfd[2] = {{fds[0], POLLIN, 0}, {fds[2], POLLIN, 0}};
  std::string* sink[2] = {&r.out, &r.err};
  int open_streams = 2;
  while (open_streams > 0 && stop == Stop::kNone) {
    int ms = ms_left();
    if (ms == 0) {
      stop = Stop::kDeadline;
      break;
    }
    int rc = ::poll(pfd, 2, ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) {
      poll_errno = errno;
      stop = Stop::kPollError;
      break;
    }
    if (rc == 0) {
      stop = Stop::kDeadline;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (pfd[k].fd < 0 || pfd[k].revents == 0) continue;
      char buf[65536];
      ssize_t n = ::read(pfd[k].fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds.Close(k == 0 ? 0 : 2);
        pfd[k].fd = -1;
        --open_streams;
        continue;
      }
      sink[k]->append(buf, static_cast<size_t>(n));
      if (sink[k]->size() > kMaxSubprocessOutput) stop = Stop::kTooMuch;
    }
  }

  // Both streams closed: the child is exiting, or has closed them and runs
  // on; it still has to end before the deadline.
  int status = 0;
  while (stop == Stop::kNone) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno == ECHILD) {
      // Reaped by someone else (SIGCHLD set to SIG_IGN): nothing left to kill.
      return absl::InternalError(absl::StrCat(cmd, ": its exit status was taken elsewhere"));
    }
    if (done < 0 && errno != EINTR) {
      poll_errno = errno;
      stop = Stop::kPollError;
      break;
    }
    int ms = ms_left();
    if (ms == 0) {
      stop = Stop::kDeadline;
      break;
    }
    ::usleep(static_cast<useconds_t>(std::min(ms, 2) * 1000));
  }

  switch (stop) {
    case Stop::kNone:
      break;
    case Stop::kDeadline:
      KillAndReap(pid);
      return absl::DeadlineExceededError(
          absl::StrCat(cmd, " did not finish within ", deadline_s, " s; killed"));
    case Stop::kTooMuch:
      KillAndReap(pid);
      return absl::ResourceExhaustedError(
          absl::StrCat(cmd, " printed more than ", kMaxSubprocessOutput >> 20, " MiB; killed"));
    case Stop::kPollError:
      KillAndReap(pid);
      return absl::InternalError(absl::StrCat(cmd, ": waiting for it: ", ErrnoText(poll_errno)));
  }
  if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  } else {
    r.exit_code = WEXITSTATUS(status);
  }
  return r;
}

}  // namespace rdmacheck
