// errno -> absl::Status for the libibverbs layer, and the text of a verbs
// call with its arguments, so every failure reads like
//   ibv_create_qp(dev=rxe0 type=RC max_send_wr=65536 ...): Invalid argument
//
//   ibv_cq* cq = ibv_create_cq(ctx, cqe, nullptr, nullptr, 0);
//   if (cq == nullptr)
//     return VerbsError(CreateCqCall("rxe0", cqe, false, 0), errno);
//
// libibverbs reports failures two ways: NULL plus errno (create/alloc/reg)
// or the errno value as the return code (query/destroy). Both end here.
#ifndef RDMACHECK_VERBS_ERRORS_H_
#define RDMACHECK_VERBS_ERRORS_H_

#include <infiniband/verbs.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace rdmacheck::verbs {

// EINVAL->InvalidArgument, ENOMEM/ENOSPC->ResourceExhausted,
// EOPNOTSUPP/ENOSYS->Unimplemented, ENODEV/ENOENT/ENXIO->NotFound,
// EPERM/EACCES->PermissionDenied, ETIMEDOUT->DeadlineExceeded,
// EBUSY->FailedPrecondition, EAGAIN->Unavailable, EEXIST->AlreadyExists,
// anything else Unknown.
absl::StatusCode ErrnoToCode(int err);

// The enum name of an async event without its IBV_EVENT_ prefix ("PORT_ERR",
// "CQ_ERR", "DEVICE_FATAL"); "UNKNOWN" for a value libibverbs added later.
absl::string_view AsyncEventName(ibv_event_type t);

// strerror(err), thread-safe; "errno not set" for 0.
std::string ErrnoText(int err);

// "<call>: <strerror>" with ErrnoToCode(err). err == 0 (a library that failed
// without setting errno) gives Unknown "<call>: failed (errno not set)".
absl::Status VerbsError(absl::string_view call, int err);

// "RC", "UC", "UD", "XRC_SEND", "XRC_RECV", "RAW_PACKET", "DRIVER".
std::string QpTypeText(ibv_qp_type type);

// "ibv_create_qp(dev=rxe0 type=RC max_send_wr=65536 max_recv_wr=1
//  max_send_sge=16 max_recv_sge=1 max_inline_data=0)" (one line); with_srq
// appends " srq=yes".
std::string CreateQpCall(absl::string_view dev, ibv_qp_type type,
                         const ibv_qp_cap& cap, bool with_srq = false);
// "ibv_create_cq(dev=rxe0 cqe=4096 channel=no comp_vector=0)"
std::string CreateCqCall(absl::string_view dev, int cqe, bool channel,
                         int comp_vector);
// "ibv_reg_mr(dev=rxe0 addr=0x7f.. length=4096 access=0x7)"
std::string RegMrCall(absl::string_view dev, const void* addr, size_t length,
                      int access);

// Destructors cannot return a Status: they print
// "rdmacheck: <call>: <strerror>" to stderr and carry on.
void ReportTeardownFailure(absl::string_view call, int err);

}  // namespace rdmacheck::verbs

#endif  // RDMACHECK_VERBS_ERRORS_H_
