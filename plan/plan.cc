#include "plan/plan.h"

namespace rdmacheck {

const CqSpec* Plan::Cq(const std::string& n) const {
  for (const CqSpec& c : cqs)
    if (c.name == n) return &c;
  return nullptr;
}

const SrqSpec* Plan::Srq(const std::string& n) const {
  for (const SrqSpec& s : srqs)
    if (s.name == n) return &s;
  return nullptr;
}

const PartSpec* Plan::Part(uint32_t id) const {
  for (const PartSpec& p : parts)
    if (p.vendor_part_id == id) return &p;
  return nullptr;
}

const CounterLimit* Plan::CounterLimitFor(const std::string& n) const {
  for (const CounterLimit& c : counter_limits)
    if (c.name == n) return &c;
  return nullptr;
}

uint64_t Plan::TotalQps() const {
  uint64_t n = 0;
  for (const QpClass& q : qp_classes) n += q.count;
  return n;
}

Plan DefaultPlan() {
  Plan p;
  p.path = "<default>";
  p.is_default = true;
  p.name = "default";
  p.description = "no --plan given: one RC QP of 128/128 WRs, 1/1 SGE, one CQ of 256";
  CqSpec cq;
  cq.name = "default_cq";
  cq.cqe = 256;
  p.cqs.push_back(cq);
  QpClass q;
  q.name = "default";
  q.caps.max_send_wr = 128;
  q.caps.max_recv_wr = 128;
  q.caps.max_send_sge = 1;
  q.caps.max_recv_sge = 1;
  q.send_cq = q.recv_cq = "default_cq";
  p.qp_classes.push_back(q);
  return p;
}

}  // namespace rdmacheck
