#include "checks/device_limits.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

class LimitRows {
 public:
  LimitRows(const CheckContext& ctx, const DeviceInfo& dev, ResultBuilder& r)
      : ctx_(ctx), dev_(dev), r_(r) {}

  // One row: `value` of `subject` against attribute `attr` of the device.
  // `where` says how to change it in the plan ("[qp core] max_send_wr").
  void Row(const std::string& subject, uint64_t value, const char* attr, const std::string& where) {
    std::optional<uint64_t> limit = dev_.Attr(attr);
    if (!limit) {
      missing_.insert(attr);
      return;
    }
    ++rows_;
    Verdict v = Verdict::kPass;
    if (value > *limit) {
      v = Verdict::kFail;
    } else if (*limit > 0 && static_cast<double>(value) > DeviceLimitsCheck::kWarnRatio * *limit) {
      v = Verdict::kWarn;
    }
    r_.Expect(absl::StrCat(dev_.name, ": ", subject),
              absl::StrCat("<= ", *limit, " (", attr, ")"), absl::StrCat(value), v);
    if (v == Verdict::kFail) {
      r_.Remedy(absl::StrCat("in ", ctx_.plan.path, ": set ", where, " to ", *limit, " or less"));
      limits_shown_.insert(attr);
    } else if (v == Verdict::kWarn) {
      r_.Note(absl::StrCat(subject, " uses ", value * 100 / *limit, "% of ", dev_.name, "'s ", attr,
                           ": no headroom for growth or for a driver that rounds up"));
      limits_shown_.insert(attr);
    }
  }

  int rows() const { return rows_; }
  const std::set<std::string>& missing() const { return missing_; }
  const std::set<std::string>& limits_shown() const { return limits_shown_; }

 private:
  const CheckContext& ctx_;
  const DeviceInfo& dev_;
  ResultBuilder& r_;
  int rows_ = 0;
  std::set<std::string> missing_;
  std::set<std::string> limits_shown_;
};

void CheckDevice(const CheckContext& ctx, const DeviceInfo& dev, ResultBuilder& r, int& rows,
                 std::vector<std::string>& missing_all) {
  const Plan& plan = ctx.plan;
  LimitRows lim(ctx, dev, r);
  bool sge_row = false;
  for (const QpClass& q : plan.qp_classes) {
    std::string qs = absl::StrCat("QP class ", q.name);
    std::string sec = absl::StrCat("[qp ", q.name, "] ");
    lim.Row(absl::StrCat(qs, " max_send_wr"), q.caps.max_send_wr, "max_qp_wr", sec + "max_send_wr");
    lim.Row(absl::StrCat(qs, " max_send_sge"), q.caps.max_send_sge, "max_sge", sec + "max_send_sge");
    if (q.srq.empty()) {
      lim.Row(absl::StrCat(qs, " max_recv_wr"), q.caps.max_recv_wr, "max_qp_wr", sec + "max_recv_wr");
      lim.Row(absl::StrCat(qs, " max_recv_sge"), q.caps.max_recv_sge, "max_sge", sec + "max_recv_sge");
    }
    sge_row = true;
    if (q.mr_bytes > 0)
      lim.Row(absl::StrCat(qs, " memory region bytes"), q.mr_bytes, "max_mr_size", sec + "mr_bytes");
  }
  for (const SrqSpec& s : plan.srqs) {
    std::string sec = absl::StrCat("[srq ", s.name, "] ");
    lim.Row(absl::StrCat("SRQ ", s.name, " max_wr"), s.max_wr, "max_srq_wr", sec + "max_wr");
    lim.Row(absl::StrCat("SRQ ", s.name, " max_sge"), s.max_sge, "max_srq_sge", sec + "max_sge");
  }
  uint64_t cqs = 0, srqs = 0;
  for (const CqSpec& c : plan.cqs) {
    lim.Row(absl::StrCat("CQ ", c.name, " cqe"), c.cqe, "max_cqe", absl::StrCat("[cq ", c.name, "] cqe"));
    cqs += c.count;
  }
  for (const SrqSpec& s : plan.srqs) srqs += s.count;
  if (!plan.qp_classes.empty())
    lim.Row("QPs in the plan (sum of counts)", plan.TotalQps(), "max_qp", "the [qp] counts");
  if (cqs > 0) lim.Row("CQs in the plan (sum of counts)", cqs, "max_cq", "the [cq] counts");
  if (srqs > 0) lim.Row("SRQs in the plan (sum of counts)", srqs, "max_srq", "the [srq] counts");
  if (plan.mr_bytes)
    lim.Row("plan memory region bytes", *plan.mr_bytes, "max_mr_size", "[plan] mr_bytes");

  if (sge_row && dev.Attr("max_sge")) {
    // Since kernel 4.18 send and receive SGE limits are separate inside the
    // kernel, but uverbs reports min(send, recv) as max_sge.
    r.Note(absl::StrCat(dev.name, " max_sge ", *dev.Attr("max_sge"),
                        " is what userspace sees: min(send, recv) SGE limits; the send queue may take "
                        "more (cap-readback reads the real value)"));
  }
  if (!lim.limits_shown().empty()) {
    std::vector<std::string> pats(lim.limits_shown().begin(), lim.limits_shown().end());
    r.Remedy(absl::StrCat("ibv_devinfo -v -d ", dev.name, " | grep -wE '", absl::StrJoin(pats, "|"),
                          "'   # the device limits"));
  }
  rows += lim.rows();
  for (const std::string& m : lim.missing()) missing_all.push_back(absl::StrCat(dev.name, " attr ", m));
}

}  // namespace

Result DeviceLimitsCheck::Run(const CheckContext& ctx) const {
  std::vector<const DeviceInfo*> devs = ctx.SelectedDevices();
  const char* title = "The plan's QPs, SRQs and CQs fit the device limits";
  if (devs.empty())
    return ResultBuilder::Skip(*this, title, "no RDMA device to look at (see device-present)");
  ResultBuilder r(*this, title);
  if (ctx.plan.is_default)
    r.Note("no --plan given: checked the default plan (one RC QP 128/128 WRs, 1/1 SGE, CQ 256); "
           "pass --plan for the deployment's numbers");
  int rows = 0;
  std::vector<std::string> missing;
  for (const DeviceInfo* d : devs) CheckDevice(ctx, *d, r, rows, missing);
  if (rows == 0) {
    return ResultBuilder::Skip(*this, title,
                               missing.empty() ? "the plan has nothing to compare"
                                               : MissingFact(missing.front(), ""));
  }
  for (const std::string& m : missing) r.Note(MissingFact(m, ""));
  return r.Build();
}

}  // namespace rdmacheck
