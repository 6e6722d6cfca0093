#include "tools/peer/channel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "util/clock.h"

namespace rdmacheck {
namespace {

int MsLeft(double end) {
  double left = end - MonotonicSeconds();
  return left <= 0 ? 0 : static_cast<int>(left * 1000) + 1;
}

std::string Errno(int e) { return strerror(e); }

bool ValidType(absl::string_view t) {
  if (t.empty() || t.size() > 32) return false;
  for (char c : t)
    if (!(absl::ascii_isupper(c) || c == '_')) return false;
  return true;
}

}  // namespace

absl::StatusOr<std::pair<std::string, int>> ParseHostPort(absl::string_view text) {
  std::string host(text);
  int port = kDefaultPeerPort;
  std::string port_text;
  if (!host.empty() && host[0] == '[') {
    size_t close = host.find(']');
    if (close == std::string::npos)
      return absl::InvalidArgumentError(absl::StrCat("--peer '", text, "': no closing ]"));
    if (close + 1 < host.size()) {
      if (host[close + 1] != ':') return absl::InvalidArgumentError(absl::StrCat("--peer '", text, "': junk after ]"));
      port_text = host.substr(close + 2);
    }
    host = host.substr(1, close - 1);
  } else if (std::count(host.begin(), host.end(), ':') == 1) {
    size_t colon = host.find(':');
    port_text = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty()) return absl::InvalidArgumentError(absl::StrCat("--peer '", text, "': no host"));
  if (!port_text.empty() || (text.size() > 0 && text.back() == ':')) {
    if (!absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535)
      return absl::InvalidArgumentError(absl::StrCat("--peer '", text, "': port '", port_text, "' is not 1..65535"));
  }
  return std::make_pair(host, port);
}

PeerChannel::PeerChannel(int fd, std::string peer_name, double io_deadline_s)
    : fd_(fd), peer_name_(std::move(peer_name)), io_deadline_s_(io_deadline_s) {}

PeerChannel::PeerChannel(PeerChannel&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      peer_name_(std::move(o.peer_name_)),
      io_deadline_s_(o.io_deadline_s_),
      buf_(std::move(o.buf_)),
      peer_version_(std::move(o.peer_version_)) {}

PeerChannel::~PeerChannel() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<PeerChannel> PeerChannel::Connect(const std::string& host, int port, double deadline_s,
                                                 double io_deadline_s) {
  const std::string name = absl::StrCat(host, ":", port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  // Numeric only: name resolution has no deadline of its own.
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("connect(", name, "): '", host, "' is not a numeric IP address (", gai_strerror(rc), ")"));
  }
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    int e = errno;
    freeaddrinfo(res);
    return absl::InternalError(absl::StrCat("socket() for ", name, ": ", Errno(e)));
  }
  rc = connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  if (rc != 0 && errno != EINPROGRESS) {
    int e = errno;
    close(fd);
    return absl::UnavailableError(absl::StrCat("connect(", name, "): ", Errno(e),
                                               e == ECONNREFUSED ? " (is `rdmacheck serve` running there?)" : ""));
  }
  if (rc != 0) {
    pollfd p{fd, POLLOUT, 0};
    const double end = MonotonicSeconds() + deadline_s;
    int n;
    do {
      n = poll(&p, 1, MsLeft(end));
    } while (n < 0 && errno == EINTR);
    if (n == 0) {
      close(fd);
      return absl::DeadlineExceededError(absl::StrCat("connect(", name, "): no answer within ", deadline_s, " s"));
    }
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (n < 0 || err != 0) {
      int e = n < 0 ? errno : err;
      close(fd);
      return absl::UnavailableError(absl::StrCat("connect(", name, "): ", Errno(e),
                                                 e == ECONNREFUSED ? " (is `rdmacheck serve` running there?)" : ""));
    }
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return PeerChannel(fd, name, io_deadline_s);
}

absl::Status PeerChannel::WriteAll(absl::string_view bytes) {
  const double end = MonotonicSeconds() + io_deadline_s_;
  size_t off = 0;
  while (off < bytes.size()) {
    pollfd p{fd_, POLLOUT, 0};
    int n = poll(&p, 1, MsLeft(end));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      return absl::DeadlineExceededError(absl::StrCat("write to peer ", peer_name_, ": ", bytes.size() - off,
                                                      " bytes not taken within ", io_deadline_s_, " s"));
    }
    ssize_t w = send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("write to peer ", peer_name_, ": ", Errno(errno)));
    }
    off += static_cast<size_t>(w);
  }
  return absl::OkStatus();
}

absl::Status PeerChannel::Fill(size_t n, bool line, size_t max_line, bool* eof_at_start) {
  const double end = MonotonicSeconds() + io_deadline_s_;
  const size_t start = buf_.size();
  *eof_at_start = false;
  while (line ? buf_.find('\n') == std::string::npos : buf_.size() < n) {
    if (line && buf_.size() > max_line) {
      return absl::InvalidArgumentError(
          absl::StrCat("peer ", peer_name_, ": line longer than ", max_line, " bytes: not rdmacheck's protocol"));
    }
    pollfd p{fd_, POLLIN, 0};
    int k = poll(&p, 1, MsLeft(end));
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) {
      return absl::DeadlineExceededError(
          absl::StrCat("read from peer ", peer_name_, ": nothing within ", io_deadline_s_, " s"));
    }
    char tmp[65536];
    ssize_t r = recv(fd_, tmp, sizeof tmp, MSG_DONTWAIT);
    if (r < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("read from peer ", peer_name_, ": ", Errno(errno)));
    }
    if (r == 0) {
      *eof_at_start = buf_.empty() && start == 0;
      return absl::UnavailableError(absl::StrCat("peer ", peer_name_, " closed the connection"));
    }
    buf_.append(tmp, static_cast<size_t>(r));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> PeerChannel::ReadLine(size_t max_len, absl::string_view what) {
  bool eof_at_start;
  absl::Status st = Fill(0, true, max_len, &eof_at_start);
  if (!st.ok()) {
    if (absl::IsUnavailable(st) && !eof_at_start) {
      return absl::DataLossError(absl::StrCat("peer ", peer_name_, ": ", what, " truncated: the connection closed after ",
                                              buf_.size(), " bytes of it"));
    }
    return st;
  }
  size_t nl = buf_.find('\n');
  std::string l = buf_.substr(0, nl);
  buf_.erase(0, nl + 1);
  return l;
}

void PeerChannel::Linger(double s) {
  shutdown(fd_, SHUT_WR);
  const double end = MonotonicSeconds() + s;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int k = poll(&p, 1, MsLeft(end));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    char tmp[4096];
    ssize_t r = recv(fd_, tmp, sizeof tmp, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) return;
  }
}

absl::Status PeerChannel::Handshake(absl::string_view tool_version) {
  absl::Status st = WriteAll(absl::StrCat("rdmacheck-peer ", kPeerProtocol, " ", tool_version, "\n"));
  if (!st.ok()) return st;
  absl::StatusOr<std::string> l = ReadLine(200, "hello line");
  if (!l.ok()) return l.status();
  std::vector<std::string> w = absl::StrSplit(*l, ' ', absl::SkipEmpty());
  int proto = 0;
  if (w.size() != 3 || w[0] != "rdmacheck-peer" || !absl::SimpleAtoi(w[1], &proto)) {
    return absl::InvalidArgumentError(absl::StrCat("peer ", peer_name_, ": expected \"rdmacheck-peer ", kPeerProtocol,
                                                   " <version>\", got \"", l->substr(0, 80),
                                                   "\": is that port an rdmacheck serve?"));
  }
  peer_version_ = w[2];
  if (proto != kPeerProtocol || w[2] != tool_version) {
    return absl::FailedPreconditionError(
        absl::StrCat("peer ", peer_name_, " runs rdmacheck ", w[2], " (peer protocol ", proto, "), this is rdmacheck ",
                     tool_version, " (peer protocol ", kPeerProtocol,
                     "): run the same rdmacheck version on both hosts"));
  }
  return absl::OkStatus();
}

absl::Status PeerChannel::Send(absl::string_view type, absl::string_view payload) {
  if (!ValidType(type)) return absl::InvalidArgumentError(absl::StrCat("frame type '", type, "' is not [A-Z_]{1,32}"));
  if (payload.size() > kMaxFrameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("frame ", type, ": ", payload.size(), " bytes > the limit ", kMaxFrameBytes));
  }
  return WriteAll(absl::StrCat(type, " ", payload.size(), "\n", payload));
}

void PeerChannel::SendError(absl::string_view message) { (void)Send("ERROR", message); }

absl::StatusOr<PeerFrame> PeerChannel::Receive(absl::string_view want_type) {
  absl::StatusOr<std::string> head = ReadLine(64, "frame header");
  if (!head.ok()) return head.status();
  std::vector<std::string> w = absl::StrSplit(*head, ' ');
  size_t len = 0;
  if (w.size() != 2 || !ValidType(w[0]) || !absl::SimpleAtoi(w[1], &len)) {
    return absl::InvalidArgumentError(
        absl::StrCat("peer ", peer_name_, ": bad frame header \"", head->substr(0, 64), "\""));
  }
  if (len > kMaxFrameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("peer ", peer_name_, ": frame ", w[0], " of ", len, " bytes > the limit ", kMaxFrameBytes));
  }
  bool eof;
  absl::Status st = Fill(len, false, 0, &eof);
  if (!st.ok()) {
    if (absl::IsUnavailable(st)) {
      return absl::DataLossError(absl::StrCat("peer ", peer_name_, ": frame ", w[0], " truncated: ", buf_.size(),
                                              " of ", len, " bytes before the connection closed"));
    }
    return st;
  }
  PeerFrame f{w[0], buf_.substr(0, len)};
  buf_.erase(0, len);
  if (!want_type.empty() && f.type != want_type) {
    if (f.type == "ERROR") return absl::AbortedError(absl::StrCat("peer ", peer_name_, ": ", f.payload));
    return absl::InvalidArgumentError(
        absl::StrCat("peer ", peer_name_, ": expected a ", want_type, " frame, got ", f.type));
  }
  return f;
}

absl::StatusOr<PeerListener> PeerListener::Listen(const std::string& bind_addr, int port) {
  const std::string name = absl::StrCat(bind_addr.empty() ? "0.0.0.0" : bind_addr, ":", port);
  sockaddr_storage ss{};
  socklen_t len;
  int family;
  sockaddr_in* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  sockaddr_in6* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (bind_addr.empty() || inet_pton(AF_INET, bind_addr.c_str(), &v4->sin_addr) == 1) {
    family = AF_INET;
    v4->sin_family = AF_INET;
    if (bind_addr.empty()) v4->sin_addr.s_addr = htonl(INADDR_ANY);
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v4;
  } else if (inet_pton(AF_INET6, bind_addr.c_str(), &v6->sin6_addr) == 1) {
    family = AF_INET6;
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v6;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("--bind '", bind_addr, "' is not a numeric IP address"));
  }
  int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket() for ", name, ": ", Errno(errno)));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || listen(fd, SOMAXCONN) != 0) {
    int e = errno;
    close(fd);
    return absl::UnavailableError(absl::StrCat("bind/listen(", name, "): ", Errno(e)));
  }
  sockaddr_storage got{};
  socklen_t gl = sizeof got;
  getsockname(fd, reinterpret_cast<sockaddr*>(&got), &gl);
  int real_port = family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&got)->sin_port)
                                    : ntohs(reinterpret_cast<sockaddr_in6*>(&got)->sin6_port);
  return PeerListener(fd, real_port);
}

PeerListener::PeerListener(PeerListener&& o) noexcept : fd_(std::exchange(o.fd_, -1)), port_(o.port_) {}

PeerListener::~PeerListener() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<PeerChannel> PeerListener::Accept(double deadline_s, const std::atomic<bool>* stop,
                                                 double io_deadline_s) {
  const double end = MonotonicSeconds() + deadline_s;
  for (;;) {
    if (stop != nullptr && stop->load()) return absl::CancelledError("stopped while waiting for a client");
    int ms = std::min(MsLeft(end), 100);  // short slices: Ctrl-C is seen promptly
    if (ms <= 0) {
      return absl::DeadlineExceededError(absl::StrCat("no client within ", deadline_s, " s on port ", port_));
    }
    pollfd p{fd_, POLLIN, 0};
    int n = poll(&p, 1, ms);
    if (n <= 0) continue;
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int c = accept4(fd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) continue;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
      port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
      port = ntohs(a->sin6_port);
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return PeerChannel(c, absl::StrCat(host, ":", port), io_deadline_s);
  }
}

}  // namespace rdmacheck
