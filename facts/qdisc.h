// The queueing disciplines of the netdevs, from `tc -j qdisc show` (the JSON
// iproute2 prints; tc-tbf(8), tc-netem(8)), and their one-token form in
// profiles. What the checks need of them: whether a shaper sits on a RoCE
// netdev, the rate it caps at, the delay and loss it adds, and the largest
// packet a token bucket passes at all (RoCE frames at path MTU 4096 are 4170
// bytes; a tbf whose bucket is smaller drops every one of them).
//
//   absl::StatusOr<QdiscsByNetdev> q = ParseTcQdiscJson(tc_out, "tc -j qdisc show");
//   (*q)["va"][0].kind == "tbf"
//   QdiscText(q) -> "tbf root rate 50Mbit burst 4000b"
//
// iproute2 has printed the same field several ways: a tbf's burst as bytes
// (4000) or as text ("4000b", "1Mb", "1000b/1" with -d), a rate as bytes
// per second or as {"rate": N}, a netem delay as seconds ({"delay": 0.005}).
// All are read. Before iproute2 5.x a tbf's options were printed unquoted
// ({rate 1Mbit burst 3840b lat 10.0ms }), which is not JSON: that is an
// error naming the offset, and the gather says the qdiscs were not read.
#ifndef RDMACHECK_FACTS_QDISC_H_
#define RDMACHECK_FACTS_QDISC_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "facts/device_view.h"

namespace rdmacheck {

using QdiscsByNetdev = std::map<std::string, std::vector<Qdisc>>;

// Every entry with a "dev" (the output of `tc -j qdisc show` for all
// netdevs; `... show dev X` prints no "dev": pass dev = "X"), root first.
// InvalidArgument naming `source` and what is wrong.
absl::StatusOr<QdiscsByNetdev> ParseTcQdiscJson(absl::string_view json, absl::string_view source,
                                                absl::string_view dev = "");

// "tbf root rate 50Mbit burst 4000b limit 2504000b", "netem root delay
// 5ms loss 1%": tc's own words, for evidence.
std::string QdiscText(const Qdisc& q);

// The profile's token: "tbf@root,rate_bps=50000000,burst_bytes=4000".
std::string QdiscToken(const Qdisc& q);
absl::StatusOr<Qdisc> ParseQdiscToken(absl::string_view token);

// The largest frame (Ethernet header included, as the qdisc counts it) the
// qdisc lets through at all: a tbf's bucket; nullopt for the kinds that
// pass any size.
std::optional<uint64_t> LargestFramePassed(const Qdisc& q);

// The Ethernet frame of a full RoCE v2 packet at path MTU `mtu` bytes:
// Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + payload + ICRC 4 (the
// first packet of an RDMA WRITE, the largest).
uint64_t RoceFrameBytes(int mtu);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_QDISC_H_
