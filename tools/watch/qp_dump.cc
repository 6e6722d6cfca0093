#include "tools/watch/qp_dump.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/ascii.h"
#include "nlohmann/json.hpp"
#include "util/clock.h"

namespace rdmacheck {
namespace {

absl::Status Bad(absl::string_view source, size_t i, absl::string_view key, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": QP record ", i, ": \"", key, "\" ", want));
}

template <typename T>
absl::Status GetUint(const nlohmann::json& o, const char* key, absl::string_view source, size_t i,
                     std::optional<T>* out) {
  auto it = o.find(key);
  if (it == o.end()) return absl::OkStatus();
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->template get<int64_t>() >= 0))
    return Bad(source, i, key, "is not a non-negative integer");
  *out = it->template get<T>();
  return absl::OkStatus();
}

absl::Status GetString(const nlohmann::json& o, const char* key, absl::string_view source, size_t i,
                       std::string* out) {
  auto it = o.find(key);
  if (it == o.end()) return absl::OkStatus();
  if (!it->is_string()) return Bad(source, i, key, "is not a string");
  *out = it->get<std::string>();
  return absl::OkStatus();
}

}  // namespace

std::string QpRecord::Name() const { return absl::StrCat(ifname, "/", port, " qp ", lqpn); }

absl::StatusOr<std::vector<QpRecord>> ParseRdmaQpJson(absl::string_view text,
                                                      absl::string_view source) {
  // No RDMA device at all: the tool may print nothing.
  if (absl::StripAsciiWhitespace(text).empty()) return std::vector<QpRecord>{};
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(source, ": not JSON"));
  if (!j.is_array()) return absl::InvalidArgumentError(absl::StrCat(source, ": not a JSON array of QPs"));
  std::vector<QpRecord> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& o = j[i];
    if (!o.is_object()) return absl::InvalidArgumentError(absl::StrCat(source, ": QP record ", i, " is not an object"));
    QpRecord q;
    if (!o.contains("ifname")) return Bad(source, i, "ifname", "is missing");
    if (!o.contains("lqpn")) return Bad(source, i, "lqpn", "is missing");
    std::optional<uint32_t> port, lqpn;
    std::optional<int64_t> pid;
    absl::Status st = GetString(o, "ifname", source, i, &q.ifname);
    if (st.ok()) st = GetUint(o, "port", source, i, &port);
    if (st.ok()) st = GetUint(o, "lqpn", source, i, &lqpn);
    if (st.ok()) st = GetUint(o, "rqpn", source, i, &q.rqpn);
    if (st.ok()) st = GetString(o, "type", source, i, &q.type);
    if (st.ok()) st = GetString(o, "state", source, i, &q.state);
    if (st.ok()) st = GetUint(o, "sq-psn", source, i, &q.sq_psn);
    if (st.ok()) st = GetUint(o, "rq-psn", source, i, &q.rq_psn);
    if (st.ok()) st = GetString(o, "path-mig-state", source, i, &q.path_mig_state);
    if (st.ok()) st = GetUint(o, "pid", source, i, &pid);
    if (st.ok()) st = GetString(o, "comm", source, i, &q.comm);
    if (st.ok()) st = GetUint(o, "pdn", source, i, &q.pdn);
    if (!st.ok()) return st;
    q.port = static_cast<int>(port.value_or(0));
    q.lqpn = *lqpn;
    q.pid = pid;
    out.push_back(std::move(q));
  }
  return out;
}

absl::StatusOr<std::string> RunWithDeadline(const std::vector<std::string>& argv, double deadline_s) {
  const std::string cmd = absl::StrJoin(argv, " ");
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat("pipe2: ", strerror(errno)));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError(absl::StrCat("pipe2: ", strerror(errno)));
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return absl::InternalError(absl::StrCat("fork for '", cmd, "': ", strerror(e)));
  }
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execvp(args[0], args.data());
    _exit(errno == ENOENT ? 127 : 126);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  std::string out, err;
  const double end = MonotonicSeconds() + deadline_s;
  bool timed_out = false;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    int ms = static_cast<int>((end - MonotonicSeconds()) * 1000);
    if (ms <= 0) {
      timed_out = true;
      break;
    }
    int rc = poll(fds, 2, ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) {
      timed_out = rc == 0;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || fds[k].revents == 0) continue;
      char buf[65536];
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n > 0) {
        (k == 0 ? out : err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& p : fds)
    if (p.fd >= 0) close(p.fd);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return absl::DeadlineExceededError(absl::StrCat("'", cmd, "' did not finish within ", deadline_s, " s"));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return absl::NotFoundError(absl::StrCat("'", cmd, "': ", argv[0],
                                            " not found (install iproute2: apt-get install iproute2)"));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return absl::InternalError(absl::StrCat(
        "'", cmd, "' ", WIFEXITED(status) ? absl::StrCat("exited ", WEXITSTATUS(status))
                                          : absl::StrCat("killed by signal ", WTERMSIG(status)),
        err.empty() ? "" : ": ", err));
  }
  return out;
}

absl::StatusOr<std::string> RunRdmaQpDump(double deadline_s, const std::string& argv0) {
  return RunWithDeadline({argv0, "-j", "-d", "res", "show", "qp"}, deadline_s);
}

}  // namespace rdmacheck
