// PeerChannel: the TCP side channel of peer mode (`rdmacheck serve` and
// `rdmacheck --peer HOST[:PORT]`, docs/peer-mode.md). A hello line each way,
// then length-prefixed frames; every connect, accept, read and write has a
// deadline, so a silent peer is DeadlineExceeded, never a hang.
//
//   ASSIGN_OR_RETURN(PeerChannel ch, PeerChannel::Connect("198.18.0.2", 18516, 5));
//   RETURN_IF_ERROR(ch.Handshake());        // "rdmacheck-peer 1 0.1.0" both ways
//   RETURN_IF_ERROR(ch.Send("PROFILE", WriteProfile(view)));
//   ASSIGN_OR_RETURN(PeerFrame f, ch.Receive("PROFILE"));
//
// Wire format (docs/peer-mode.md): hello = "rdmacheck-peer <protocol>
// <tool version>\n"; frame = "<TYPE> <LENGTH>\n" then LENGTH bytes. TYPE is
// [A-Z_]{1,32}; LENGTH <= kMaxFrameBytes. An "ERROR" frame carries the far
// end's error message and becomes a status here. What the other frames
// carry, and their types, are tools/peer/messages.h's.
#ifndef RDMACHECK_TOOLS_PEER_CHANNEL_H_
#define RDMACHECK_TOOLS_PEER_CHANNEL_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

inline constexpr int kPeerProtocol = 1;
inline constexpr int kDefaultPeerPort = 18516;
inline constexpr size_t kMaxFrameBytes = 4u << 20;

struct PeerFrame {
  std::string type;
  std::string payload;
};

// "host", "host:port", "[v6]:port" -> host and port (default kDefaultPeerPort).
// InvalidArgument naming the text.
absl::StatusOr<std::pair<std::string, int>> ParseHostPort(absl::string_view text);

class PeerChannel {
 public:
  // Takes ownership of a connected stream socket. io_deadline_s bounds each
  // Send/Receive/Handshake.
  PeerChannel(int fd, std::string peer_name, double io_deadline_s);
  PeerChannel(PeerChannel&& o) noexcept;
  PeerChannel& operator=(PeerChannel&&) = delete;
  PeerChannel(const PeerChannel&) = delete;
  ~PeerChannel();

  // Non-blocking connect with a deadline: DeadlineExceeded, or Unavailable
  // with the errno text (connection refused, no route).
  static absl::StatusOr<PeerChannel> Connect(const std::string& host, int port, double deadline_s,
                                             double io_deadline_s = 10);

  // Sends our hello, reads theirs. FailedPrecondition when the protocol or
  // the tool version differ (both named), InvalidArgument when the line is
  // not a hello at all.
  absl::Status Handshake(absl::string_view tool_version);
  // Ends our side and reads (discarding) until the peer closes or `s` pass:
  // closing with its bytes unread would reset the connection, and the peer
  // could lose what we sent last (an ERROR frame).
  void Linger(double s);
  // The peer's tool version after Handshake.
  const std::string& peer_version() const { return peer_version_; }

  absl::Status Send(absl::string_view type, absl::string_view payload);
  // The next frame. With `want_type`, another type is InvalidArgument (an
  // ERROR frame is Aborted with the far end's message). Unavailable when the
  // peer closed between frames, DataLoss when it closed inside one.
  absl::StatusOr<PeerFrame> Receive(absl::string_view want_type = "");
  // An ERROR frame with `message` (best effort).
  void SendError(absl::string_view message);

  void set_io_deadline(double s) { io_deadline_s_ = s; }
  const std::string& peer_name() const { return peer_name_; }
  int fd() const { return fd_; }

 private:
  absl::Status WriteAll(absl::string_view bytes);
  // Reads until buf_ holds n bytes (or a '\n' when n == 0, up to max_line).
  absl::Status Fill(size_t n, bool line, size_t max_line, bool* eof_at_start);
  absl::StatusOr<std::string> ReadLine(size_t max_len, absl::string_view what);

  int fd_ = -1;
  std::string peer_name_;
  double io_deadline_s_;
  std::string buf_;
  std::string peer_version_;
};

// A listening TCP socket for `rdmacheck serve`.
class PeerListener {
 public:
  // bind_addr "" or "0.0.0.0": every IPv4 address; port 0: any (tests).
  static absl::StatusOr<PeerListener> Listen(const std::string& bind_addr, int port);
  PeerListener(PeerListener&& o) noexcept;
  PeerListener& operator=(PeerListener&&) = delete;
  PeerListener(const PeerListener&) = delete;
  ~PeerListener();
  int port() const { return port_; }
  // Waits up to deadline_s (or until *stop) for a client: DeadlineExceeded,
  // Cancelled when stopped.
  absl::StatusOr<PeerChannel> Accept(double deadline_s, const std::atomic<bool>* stop,
                                     double io_deadline_s = 10);

 private:
  PeerListener(int fd, int port) : fd_(fd), port_(port) {}
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_PEER_CHANNEL_H_
