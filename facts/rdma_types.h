// Vocabulary shared by the plan, the device view and the driver models:
// GID types, QP types, QP capabilities and the IB MTU enum.
//
//   QpCaps want{.max_send_wr = 4096, .max_send_sge = 8};
//   std::optional<int> bytes = IbMtuBytes(3);  // 1024
#ifndef RDMACHECK_FACTS_RDMA_TYPES_H_
#define RDMACHECK_FACTS_RDMA_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

namespace rdmacheck {

// The GID types the kernel reports in gid_attrs/types; kIb on InfiniBand ports.
enum class GidType { kUnknown, kIb, kRoceV1, kRoceV2 };

// "IB", "RoCEv1", "RoCEv2", "unknown": the spelling of profiles and plans.
absl::string_view GidTypeName(GidType t);
// Accepts the spellings above case-insensitively, and the sysfs ones
// ("IB/RoCE v1", "RoCE v2"). nullopt when unknown.
std::optional<GidType> ParseGidType(absl::string_view s);

enum class QpType { kRc, kUc, kUd };
absl::string_view QpTypeName(QpType t);               // "RC", "UC", "UD"
std::optional<QpType> ParseQpType(absl::string_view s);  // case-insensitive

// struct ibv_qp_cap, field for field.
struct QpCaps {
  uint32_t max_send_wr = 0;
  uint32_t max_recv_wr = 0;
  uint32_t max_send_sge = 0;
  uint32_t max_recv_sge = 0;
  uint32_t max_inline_data = 0;
  bool operator==(const QpCaps& o) const {
    return max_send_wr == o.max_send_wr && max_recv_wr == o.max_recv_wr &&
           max_send_sge == o.max_send_sge && max_recv_sge == o.max_recv_sge &&
           max_inline_data == o.max_inline_data;
  }
  bool operator!=(const QpCaps& o) const { return !(*this == o); }
};
// "max_send_wr=4096 max_recv_wr=4096 max_send_sge=8 max_recv_sge=1 max_inline_data=0"
std::string FormatCaps(const QpCaps& c);

// IB MTU enum (enum ibv_mtu) <-> bytes. IbMtuBytes(3) == 1024; nullopt outside 1..5.
std::optional<int> IbMtuBytes(int ibv_mtu_enum);
std::optional<int> IbMtuEnum(int bytes);

// Port states by code, spelt as PortInfo::state is: enum ibv_port_state
// (0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER). nullopt for an
// unknown code or name.
std::optional<std::string> PortStateName(uint64_t code);
std::optional<int> PortStateCode(absl::string_view name);
// Physical port states, spelt as sysfs ports/N/phys_state and PortInfo::
// phys_state are: IBTA PortPhysicalState (1 Sleep, 2 Polling, 3 Disabled,
// 4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test).
std::optional<std::string> PhysStateName(uint64_t code);
std::optional<int> PhysStateCode(absl::string_view name);

// 1536 -> "1.5 KiB", 805306368 -> "768 MiB": for evidence text.
std::string HumanBytes(uint64_t bytes);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_RDMA_TYPES_H_
