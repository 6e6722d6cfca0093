#include "verbs/rc_connect.h"

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"
#include "verbs/errors.h"

namespace rdmacheck::verbs {

std::string RcModifyCall(const RcPath& p, uint32_t qp_num, ibv_qp_state to) {
  if (p.naming == RcCallNaming::kQpNumber) {
    switch (to) {
      case IBV_QPS_INIT:
        return absl::StrCat("ibv_modify_qp(dev=", p.dev, " qp=", qp_num, " state=INIT)");
      case IBV_QPS_RTR:
        return absl::StrCat("ibv_modify_qp(dev=", p.dev, " qp=", qp_num, " state=RTR dest_qpn=", p.dest_qpn,
                            " sgid_index=", p.sgid_index, ")");
      default:
        return absl::StrCat("ibv_modify_qp(dev=", p.dev, " qp=", qp_num, " state=RTS)");
    }
  }
  switch (to) {
    case IBV_QPS_INIT:
      return absl::StrCat("ibv_modify_qp(dev=", p.dev, " state=INIT port=", p.port, ")");
    case IBV_QPS_RTR:
      return absl::StrCat("ibv_modify_qp(dev=", p.dev, " state=RTR path_mtu=", 128 << p.path_mtu,
                          " dest_qpn=", p.dest_qpn, " dgid=", p.dgid_text, " sgid_index=", p.sgid_index, ")");
    default:
      return absl::StrCat("ibv_modify_qp(dev=", p.dev, " state=RTS timeout=", p.timeout, " retry_cnt=", p.retry_cnt,
                          " rnr_retry=", p.rnr_retry, ")");
  }
}

absl::Status ToInit(const QueuePair& qp, const RcPath& p) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = static_cast<uint8_t>(p.port);
  a.qp_access_flags = static_cast<unsigned>(p.access);
  int rc = ibv_modify_qp(qp.get(), &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  if (rc != 0) return VerbsError(RcModifyCall(p, qp.qp_num(), IBV_QPS_INIT), rc);
  return absl::OkStatus();
}

absl::Status ToRtr(const QueuePair& qp, const RcPath& p) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = p.path_mtu;
  a.dest_qp_num = p.dest_qpn;
  a.rq_psn = p.rq_psn;
  a.max_dest_rd_atomic = static_cast<uint8_t>(p.rd_atomic);
  a.min_rnr_timer = 12;  // 0.64 ms
  a.ah_attr.is_global = 1;
  a.ah_attr.port_num = static_cast<uint8_t>(p.port);
  a.ah_attr.grh.dgid = p.dgid;
  a.ah_attr.grh.sgid_index = static_cast<uint8_t>(p.sgid_index);
  a.ah_attr.grh.hop_limit = 64;
  int rc = ibv_modify_qp(qp.get(), &a,
                         IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                             IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  if (rc != 0) return VerbsError(RcModifyCall(p, qp.qp_num(), IBV_QPS_RTR), rc);
  return absl::OkStatus();
}

absl::Status ToRts(const QueuePair& qp, const RcPath& p) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = static_cast<uint8_t>(p.timeout);
  a.retry_cnt = static_cast<uint8_t>(p.retry_cnt);
  a.rnr_retry = static_cast<uint8_t>(p.rnr_retry);
  a.sq_psn = p.sq_psn;
  a.max_rd_atomic = static_cast<uint8_t>(p.rd_atomic);
  int rc = ibv_modify_qp(qp.get(), &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                             IBV_QP_MAX_QP_RD_ATOMIC);
  if (rc != 0) return VerbsError(RcModifyCall(p, qp.qp_num(), IBV_QPS_RTS), rc);
  return absl::OkStatus();
}

absl::Status ToErr(const QueuePair& qp, const std::string& dev) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_ERR;
  if (int rc = ibv_modify_qp(qp.get(), &a, IBV_QP_STATE); rc != 0)
    return VerbsError(absl::StrCat("ibv_modify_qp(dev=", dev, " qp=", qp.qp_num(), " state=ERR)"), rc);
  return absl::OkStatus();
}

absl::Status ConnectRc(const QueuePair& qp, const RcPath& p) {
  RDMACHECK_RETURN_IF_ERROR(ToInit(qp, p));
  RDMACHECK_RETURN_IF_ERROR(ToRtr(qp, p));
  return ToRts(qp, p);
}

}  // namespace rdmacheck::verbs
