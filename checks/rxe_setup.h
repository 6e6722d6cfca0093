// rxe-setup: the pieces a Soft-RoCE (and any verbs) setup needs are in place:
// rdma_rxe loaded when rxe devices are expected, each rxe device bound to a
// netdev that exists, is UP and has an address, the ibverbs provider of every
// device installed, and its uverbs node (and rdma_cm) present and openable
// read-write, with IPC_LOCK in a container. Doc: docs/checks/rxe-setup.md
#ifndef RDMACHECK_CHECKS_RXE_SETUP_H_
#define RDMACHECK_CHECKS_RXE_SETUP_H_

#include "checks/check.h"

namespace rdmacheck {

class RxeSetupCheck : public Check {
 public:
  absl::string_view id() const override { return "rxe-setup"; }
  absl::string_view summary() const override {
    return "rdma_rxe loaded, rxe bound to an UP netdev with an address, provider installed, "
           "uverbs nodes openable";
  }
  Result Run(const CheckContext& ctx) const override;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_CHECKS_RXE_SETUP_H_
