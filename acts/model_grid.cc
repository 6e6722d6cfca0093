#include "acts/model_grid.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {
namespace {

uint32_t Clamp32(uint64_t v) {
  return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
}

std::string Outcome(const absl::StatusOr<QpCaps>& r) {
  if (r.ok()) return absl::StrCat("granted ", FormatCaps(*r));
  return absl::StrCat("error ", absl::StatusCodeToString(r.status().code()), ": ",
                      r.status().message());
}

class GridBuilder {
 public:
  void Add(QpType t, uint64_t swr, uint64_t rwr, uint64_t ssge, uint64_t rsge,
           uint64_t inl, bool srq = false) {
    QpRequest r;
    r.type = t;
    r.caps = {Clamp32(swr), Clamp32(rwr), Clamp32(ssge), Clamp32(rsge), Clamp32(inl)};
    r.with_srq = srq;
    auto key = std::make_tuple(static_cast<int>(t), r.caps.max_send_wr,
                               r.caps.max_recv_wr, r.caps.max_send_sge,
                               r.caps.max_recv_sge, r.caps.max_inline_data, srq);
    if (seen_.insert(key).second) grid_.push_back(r);
  }
  std::vector<QpRequest> Take() { return std::move(grid_); }

 private:
  std::set<std::tuple<int, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, bool>> seen_;
  std::vector<QpRequest> grid_;
};

}  // namespace

GridLimits GridLimitsFor(const DeviceInfo& dev) {
  GridLimits l;
  if (auto v = dev.Attr("max_qp_wr")) l.max_qp_wr = Clamp32(*v);
  if (auto v = dev.Attr("max_sge")) l.max_sge = Clamp32(*v);
  const std::string driver = dev.driver.value_or("");
  if (driver == "mlx5") l.max_inline = 828;
  if (driver == "mlx4") l.max_inline = 1024;
  if (auto v = dev.Attr("max_inline_data")) l.max_inline = Clamp32(*v);
  return l;
}

std::string DescribeRequest(const QpRequest& req) {
  const QpCaps& c = req.caps;
  return absl::StrFormat("%s swr=%u rwr=%u ssge=%u rsge=%u inl=%u srq=%s",
                         QpTypeName(req.type), c.max_send_wr, c.max_recv_wr,
                         c.max_send_sge, c.max_recv_sge, c.max_inline_data,
                         req.with_srq ? "yes" : "no");
}

std::vector<QpRequest> MakeQpGrid(const GridLimits& lim) {
  const uint64_t W = lim.max_qp_wr, S = lim.max_sge, L = lim.max_inline;
  const std::vector<uint64_t> depths = {1,   2,    3,    15,   16,       17,
                                        31,  32,   100,  127,  128,      255,
                                        256, 1000, 1023, 1024, 4096,     8192,
                                        W / 2, W - 1, W, W + 1, 2 * W};
  std::vector<uint64_t> sges = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, S - 1, S, S + 1};
  const std::vector<uint64_t> inlines = {0,   1,   15,  16,  17,    28,  32,  60,
                                         64,  100, 128, 200, 256,   400, 401, 512,
                                         513, 828, 829, 1024, 1025, L - 1, L, L + 1};
  const QpType types[] = {QpType::kRc, QpType::kUc, QpType::kUd};
  GridBuilder g;
  // Depths, one side at a time, RC.
  for (uint64_t d : depths) g.Add(QpType::kRc, d, 1, 1, 1, 0);
  for (uint64_t d : depths) g.Add(QpType::kRc, 1, d, 1, 1, 0);
  // SGE counts, send and receive, on two depths.
  for (uint64_t s : sges) {
    g.Add(QpType::kRc, 16, 16, s, 1, 0);
    g.Add(QpType::kUd, 16, 16, s, 1, 0);
    g.Add(QpType::kRc, 16, 16, 1, s, 0);
    g.Add(QpType::kRc, 100, 100, 1, s, 0);
  }
  // Inline sizes on every type.
  for (uint64_t i : inlines) {
    for (QpType t : types) g.Add(t, 16, 16, 1, 1, i);
  }
  // Depth x SGE crosses.
  for (uint64_t d : {uint64_t{1}, uint64_t{100}, uint64_t{1000}, W}) {
    for (uint64_t s : {uint64_t{0}, uint64_t{1}, uint64_t{4}, S}) {
      g.Add(QpType::kRc, d, d, s, s, 0);
    }
  }
  // UC and UD depths.
  for (QpType t : {QpType::kUc, QpType::kUd}) {
    for (uint64_t d : {uint64_t{1}, uint64_t{100}, uint64_t{128}, W, W + 1}) {
      g.Add(t, d, d, 1, 1, 0);
    }
  }
  // With an SRQ: the receive side is not the QP's.
  for (uint64_t d : {uint64_t{0}, uint64_t{16}, W + 1}) {
    for (uint64_t s : {uint64_t{0}, uint64_t{1}, S + 1}) {
      g.Add(QpType::kRc, 16, d, 1, s, 0, /*srq=*/true);
    }
  }
  // Zeroes and everything over at once.
  for (QpType t : types) {
    g.Add(t, 0, 0, 0, 0, 0);
    g.Add(t, 0, 16, 1, 1, 0);
    g.Add(t, 16, 0, 1, 1, 0);
    g.Add(t, W + 1, W + 1, S + 1, S + 1, L + 1);
    g.Add(t, 1, 1, S + 1, S + 1, 0);
    g.Add(t, 4096, 4096, 8, 1, 0);  // the generic model's worked example
    g.Add(t, 255, 1023, 4, 1, 0);   // already 2^k - 1: granted as asked
  }
  return g.Take();
}

GridResult CompareOnGrid(Device& model, Device& real,
                         const std::vector<QpRequest>& grid) {
  GridResult r;
  for (const QpRequest& req : grid) {
    absl::StatusOr<QpCaps> m = model.CreateQp(req);
    absl::StatusOr<QpCaps> d = real.CreateQp(req);
    ++r.total;
    const bool agree =
        (m.ok() && d.ok() && *m == *d) ||
        (absl::IsInvalidArgument(m.status()) && absl::IsInvalidArgument(d.status()));
    if (agree) {
      ++r.agree;
      continue;
    }
    GridDisagreement dis{req, m, d, ""};
    dis.text = absl::StrCat("DISAGREE ", DescribeRequest(req), " | model: ",
                            Outcome(m), " | real: ", Outcome(d));
    r.disagreements.push_back(std::move(dis));
  }
  return r;
}

}  // namespace rdmacheck
