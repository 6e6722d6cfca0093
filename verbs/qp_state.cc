#include "verbs/qp_state.h"

#include <infiniband/verbs.h>

#include "absl/strings/str_cat.h"
#include "verbs/errors.h"

namespace rdmacheck::verbs {

const char* QpStateName(int state) {
  switch (state) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT: return "INIT";
    case IBV_QPS_RTR: return "RTR";
    case IBV_QPS_RTS: return "RTS";
    case IBV_QPS_SQD: return "SQD";
    case IBV_QPS_SQE: return "SQE";
    case IBV_QPS_ERR: return "ERR";
    default: return "UNKNOWN";
  }
}

std::string QueryQpState(const QueuePair& qp) {
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  int rc = ibv_query_qp(qp.get(), &attr, IBV_QP_STATE, &init);
  if (rc != 0) return absl::StrCat("unknown (ibv_query_qp: ", ErrnoText(rc), ")");
  return QpStateName(attr.qp_state);
}

}  // namespace rdmacheck::verbs
