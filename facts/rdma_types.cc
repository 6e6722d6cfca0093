#include "facts/rdma_types.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {

absl::string_view GidTypeName(GidType t) {
  switch (t) {
    case GidType::kIb: return "IB";
    case GidType::kRoceV1: return "RoCEv1";
    case GidType::kRoceV2: return "RoCEv2";
    case GidType::kUnknown: break;
  }
  return "unknown";
}

std::optional<GidType> ParseGidType(absl::string_view s) {
  std::string l = absl::AsciiStrToLower(std::string(s));
  if (l == "ib") return GidType::kIb;
  // sysfs says "IB/RoCE v1" for IB and RoCE v1 alike; the gatherer uses the
  // link layer to tell them apart. On its own it reads as RoCE v1.
  if (l == "rocev1" || l == "roce v1" || l == "ib/roce v1") return GidType::kRoceV1;
  if (l == "rocev2" || l == "roce v2") return GidType::kRoceV2;
  if (l == "unknown") return GidType::kUnknown;
  return std::nullopt;
}

absl::string_view QpTypeName(QpType t) {
  switch (t) {
    case QpType::kRc: return "RC";
    case QpType::kUc: return "UC";
    case QpType::kUd: return "UD";
  }
  return "RC";
}

std::optional<QpType> ParseQpType(absl::string_view s) {
  std::string l = absl::AsciiStrToLower(std::string(s));
  if (l == "rc") return QpType::kRc;
  if (l == "uc") return QpType::kUc;
  if (l == "ud") return QpType::kUd;
  return std::nullopt;
}

std::string FormatCaps(const QpCaps& c) {
  return absl::StrFormat(
      "max_send_wr=%u max_recv_wr=%u max_send_sge=%u max_recv_sge=%u max_inline_data=%u",
      c.max_send_wr, c.max_recv_wr, c.max_send_sge, c.max_recv_sge, c.max_inline_data);
}

std::optional<int> IbMtuBytes(int e) {
  if (e < 1 || e > 5) return std::nullopt;
  return 128 << e;
}

std::optional<int> IbMtuEnum(int bytes) {
  for (int e = 1; e <= 5; ++e)
    if ((128 << e) == bytes) return e;
  return std::nullopt;
}

namespace {

// Index = code; "" where the code means nothing.
constexpr absl::string_view kPortStates[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
constexpr absl::string_view kPhysStates[] = {"",       "Sleep",   "Polling",
                                             "Disabled", "PortConfigurationTraining",
                                             "LinkUp", "LinkErrorRecovery", "Phy Test"};

template <size_t N>
std::optional<std::string> NameOf(const absl::string_view (&names)[N], uint64_t code) {
  if (code >= N || names[code].empty()) return std::nullopt;
  return std::string(names[code]);
}
template <size_t N>
std::optional<int> CodeOf(const absl::string_view (&names)[N], absl::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (!names[i].empty() && names[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> PortStateName(uint64_t code) { return NameOf(kPortStates, code); }
std::optional<int> PortStateCode(absl::string_view name) { return CodeOf(kPortStates, name); }
std::optional<std::string> PhysStateName(uint64_t code) { return NameOf(kPhysStates, code); }
std::optional<int> PhysStateCode(absl::string_view name) { return CodeOf(kPhysStates, name); }

std::string HumanBytes(uint64_t b) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return absl::StrFormat("%u B", b);
  if (v == static_cast<double>(static_cast<uint64_t>(v)))
    return absl::StrFormat("%.0f %s", v, kUnits[u]);
  return absl::StrFormat("%.1f %s", v, kUnits[u]);
}

}  // namespace rdmacheck
