// Status propagation macros, with the meaning of the newer abseil ones
// (ABSL_RETURN_IF_ERROR / ASSIGN_OR_RETURN), which abseil 20220623 lacks.
//
//   RDMACHECK_RETURN_IF_ERROR(file.Close());
//   RDMACHECK_ASSIGN_OR_RETURN(Plan plan, ParsePlan(text, "plan.conf"));
#ifndef RDMACHECK_UTIL_STATUS_MACROS_H_
#define RDMACHECK_UTIL_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RDMACHECK_RETURN_IF_ERROR(expr)          \
  do {                                           \
    ::absl::Status _rc_status = (expr);          \
    if (!_rc_status.ok()) return _rc_status;     \
  } while (0)

#define RDMACHECK_STATUS_CONCAT_INNER(a, b) a##b
#define RDMACHECK_STATUS_CONCAT(a, b) RDMACHECK_STATUS_CONCAT_INNER(a, b)

#define RDMACHECK_ASSIGN_OR_RETURN(lhs, expr) \
  RDMACHECK_ASSIGN_OR_RETURN_IMPL(            \
      RDMACHECK_STATUS_CONCAT(_rc_statusor_, __LINE__), lhs, expr)

#define RDMACHECK_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()

#endif  // RDMACHECK_UTIL_STATUS_MACROS_H_
