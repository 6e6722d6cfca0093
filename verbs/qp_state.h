// The name of a QP state ("RTS", "ERR", ...) and the state a live QP is in,
// as the probes report them.
//
//   QpStateName(IBV_QPS_ERR);  // "ERR"
//   std::string s = QueryQpState(qp);  // "RTS", or "unknown (ibv_query_qp: ...)"
#ifndef RDMACHECK_VERBS_QP_STATE_H_
#define RDMACHECK_VERBS_QP_STATE_H_

#include <string>

#include "verbs/resources.h"

namespace rdmacheck::verbs {

// "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"; "UNKNOWN" otherwise.
const char* QpStateName(int state);

// ibv_query_qp(IBV_QP_STATE), named; a failed query reads
// "unknown (ibv_query_qp: <errno text>)" so it can go straight in a report.
std::string QueryQpState(const QueuePair& qp);

}  // namespace rdmacheck::verbs

#endif  // RDMACHECK_VERBS_QP_STATE_H_
