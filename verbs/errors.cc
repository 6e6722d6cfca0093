#include "verbs/errors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck::verbs {
namespace {

// strerror_r is the GNU variant (returns char*) under glibc with g++, the XSI
// one (returns int) elsewhere; these two overloads accept either.
[[maybe_unused]] const char* StrerrorResult(const char* gnu, const char*) {
  return gnu;
}
[[maybe_unused]] const char* StrerrorResult(int xsi, const char* buf) {
  return xsi == 0 ? buf : nullptr;
}

}  // namespace

absl::StatusCode ErrnoToCode(int err) {
  switch (err) {
    case EINVAL:
      return absl::StatusCode::kInvalidArgument;
    case ENOMEM:
    case ENOSPC:
      return absl::StatusCode::kResourceExhausted;
    case EOPNOTSUPP:
    case ENOSYS:
      return absl::StatusCode::kUnimplemented;
    case ENODEV:
    case ENOENT:
    case ENXIO:
      return absl::StatusCode::kNotFound;
    case EPERM:
    case EACCES:
      return absl::StatusCode::kPermissionDenied;
    case ETIMEDOUT:
      return absl::StatusCode::kDeadlineExceeded;
    case EBUSY:
      return absl::StatusCode::kFailedPrecondition;
    case EAGAIN:
      return absl::StatusCode::kUnavailable;
    case EEXIST:
      return absl::StatusCode::kAlreadyExists;
    default:
      return absl::StatusCode::kUnknown;
  }
}

std::string ErrnoText(int err) {
  if (err == 0) return "errno not set";
  char buf[128] = {0};
  const char* s = StrerrorResult(strerror_r(err, buf, sizeof(buf)), buf);
  if (s == nullptr || *s == '\0') return absl::StrCat("errno ", err);
  return s;
}

absl::Status VerbsError(absl::string_view call, int err) {
  if (err == 0) {
    return absl::UnknownError(absl::StrCat(call, ": failed (errno not set)"));
  }
  return absl::Status(ErrnoToCode(err), absl::StrCat(call, ": ", ErrnoText(err)));
}

std::string QpTypeText(ibv_qp_type type) {
  switch (type) {
    case IBV_QPT_RC: return "RC";
    case IBV_QPT_UC: return "UC";
    case IBV_QPT_UD: return "UD";
    case IBV_QPT_RAW_PACKET: return "RAW_PACKET";
    case IBV_QPT_XRC_SEND: return "XRC_SEND";
    case IBV_QPT_XRC_RECV: return "XRC_RECV";
    case IBV_QPT_DRIVER: return "DRIVER";
  }
  return absl::StrCat("type#", static_cast<int>(type));
}

std::string CreateQpCall(absl::string_view dev, ibv_qp_type type,
                         const ibv_qp_cap& cap, bool with_srq) {
  return absl::StrFormat(
      "ibv_create_qp(dev=%s type=%s max_send_wr=%u max_recv_wr=%u "
      "max_send_sge=%u max_recv_sge=%u max_inline_data=%u%s)",
      dev, QpTypeText(type), cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge,
      cap.max_recv_sge, cap.max_inline_data, with_srq ? " srq=yes" : "");
}

std::string CreateCqCall(absl::string_view dev, int cqe, bool channel,
                         int comp_vector) {
  return absl::StrFormat("ibv_create_cq(dev=%s cqe=%d channel=%s comp_vector=%d)",
                         dev, cqe, channel ? "yes" : "no", comp_vector);
}

std::string RegMrCall(absl::string_view dev, const void* addr, size_t length,
                      int access) {
  return absl::StrFormat("ibv_reg_mr(dev=%s addr=%p length=%u access=0x%x)", dev,
                         addr, length, access);
}

void ReportTeardownFailure(absl::string_view call, int err) {
  std::string line = absl::StrCat("rdmacheck: ", call, ": ", ErrnoText(err), "\n");
  std::fputs(line.c_str(), stderr);
}

absl::string_view AsyncEventName(ibv_event_type t) {
  switch (t) {
    case IBV_EVENT_CQ_ERR: return "CQ_ERR";
    case IBV_EVENT_QP_FATAL: return "QP_FATAL";
    case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
    case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
    case IBV_EVENT_COMM_EST: return "COMM_EST";
    case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
    case IBV_EVENT_PATH_MIG: return "PATH_MIG";
    case IBV_EVENT_PATH_MIG_ERR: return "PATH_MIG_ERR";
    case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
    case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
    case IBV_EVENT_PORT_ERR: return "PORT_ERR";
    case IBV_EVENT_LID_CHANGE: return "LID_CHANGE";
    case IBV_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
    case IBV_EVENT_SM_CHANGE: return "SM_CHANGE";
    case IBV_EVENT_SRQ_ERR: return "SRQ_ERR";
    case IBV_EVENT_SRQ_LIMIT_REACHED: return "SRQ_LIMIT_REACHED";
    case IBV_EVENT_QP_LAST_WQE_REACHED: return "QP_LAST_WQE_REACHED";
    case IBV_EVENT_CLIENT_REREGISTER: return "CLIENT_REREGISTER";
    case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
    case IBV_EVENT_WQ_FATAL: return "WQ_FATAL";
  }
  return "UNKNOWN";
}

}  // namespace rdmacheck::verbs
