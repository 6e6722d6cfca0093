// peer-match: what must agree between the two ends of a link in peer mode
// (`rdmacheck --peer HOST`, docs/peer-mode.md): both ports ACTIVE, the same
// link layer, the same active MTU and netdev MTU, the same GID type (RoCE
// version) and IP version of the GIDs traffic will use, and those GIDs in
// one IP subnet. Not in the registry: the CLI adds it to a --peer run with
// the far end's view, which it got over the side channel.
//
//   PeerMatchCheck pm(remote_view, "rxe1", 1, "198.18.0.2");
//   Result r = pm.Run(ctx);   // ctx.view: this host; -d picks the local device
#ifndef RDMACHECK_TOOLS_PEER_PEER_MATCH_H_
#define RDMACHECK_TOOLS_PEER_PEER_MATCH_H_

#include <optional>
#include <string>

#include "checks/check.h"
#include "facts/device_view.h"

namespace rdmacheck {

class PeerMatchCheck : public Check {
 public:
  // remote_device "" picks the remote view's first device; remote_port 0
  // its first port. `where` names the far host in evidence.
  PeerMatchCheck(DeviceView remote, std::string remote_device, int remote_port, std::string where);
  absl::string_view id() const override { return "peer-match"; }
  absl::string_view summary() const override {
    return "Both ends of the link agree on link layer, MTU, GID type (RoCE version) and subnet";
  }
  Result Run(const CheckContext& ctx) const override;

 private:
  DeviceView remote_;
  std::string remote_device_;
  int remote_port_;
  std::string where_;
};

// The IPv4 address of a "::ffff:a.b.c.d" GID, else nullopt.
std::optional<std::string> Ipv4OfGid(const std::string& gid);
// The network of `ip` ("198.18.0.1") from a netdev address list
// ("198.18.0.1/24") as "198.18.0.0/24", or nullopt when `ip` is not on it.
std::optional<std::string> SubnetOf(const std::string& ip, const std::vector<std::string>& addrs);

}  // namespace rdmacheck

#endif  // RDMACHECK_TOOLS_PEER_PEER_MATCH_H_
