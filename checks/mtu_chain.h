// mtu-chain: netdev MTU -> the active_mtu the port runs (rxe derives it from
// the netdev MTU minus its 80 header bytes) -> the plan's path MTU. FAILs when
// the plan asks more than active_mtu; WARNs when active_mtu is below 4096
// while the port could run 4096 and the plan does not pin a smaller path MTU.
// Doc: docs/checks/mtu-chain.md
//
//   RxeActiveMtu(1500) == 1024;  RxeActiveMtu(9000) == 4096
//   RxeNetdevMtuFor(4096) == 4176   // smallest netdev MTU giving 4096
#ifndef RDMACHECK_CHECKS_MTU_CHAIN_H_
#define RDMACHECK_CHECKS_MTU_CHAIN_H_

#include "checks/check.h"

namespace rdmacheck {

// rxe's header allowance (RXE_MAX_HDR_LENGTH, drivers/infiniband/sw/rxe/rxe_hdr.h).
inline constexpr int kRxeHeaderBytes = 80;
// The IB MTU rxe runs on a netdev of `netdev_mtu` bytes, capped at `max_mtu`
// (eth_mtu_int_to_enum in rxe_param.h); 0 below 256 + headers.
int RxeActiveMtu(int netdev_mtu, int max_mtu = 4096);
// The smallest netdev MTU for which rxe runs IB MTU `ib_mtu`.
int RxeNetdevMtuFor(int ib_mtu);

class MtuChainCheck : public Check {
 public:
  absl::string_view id() const override { return "mtu-chain"; }
  absl::string_view summary() const override {
    return "Netdev MTU carries the active_mtu the plan's path MTU needs (rxe: netdev MTU - 80)";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_MTU_CHAIN_H_
