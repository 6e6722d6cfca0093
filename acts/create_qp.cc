#include "acts/create_qp.h"

#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/clock.h"

namespace rdmacheck {

absl::string_view QpFieldName(QpField f) {
  switch (f) {
    case QpField::kMaxSendWr: return "max_send_wr";
    case QpField::kMaxSendSge: return "max_send_sge";
    case QpField::kMaxRecvWr: return "max_recv_wr";
    case QpField::kMaxRecvSge: return "max_recv_sge";
    case QpField::kMaxInlineData: return "max_inline_data";
  }
  return "?";
}

uint32_t GetField(const QpCaps& c, QpField f) {
  switch (f) {
    case QpField::kMaxSendWr: return c.max_send_wr;
    case QpField::kMaxSendSge: return c.max_send_sge;
    case QpField::kMaxRecvWr: return c.max_recv_wr;
    case QpField::kMaxRecvSge: return c.max_recv_sge;
    case QpField::kMaxInlineData: return c.max_inline_data;
  }
  return 0;
}

void SetField(QpCaps& c, QpField f, uint32_t v) {
  switch (f) {
    case QpField::kMaxSendWr: c.max_send_wr = v; break;
    case QpField::kMaxSendSge: c.max_send_sge = v; break;
    case QpField::kMaxRecvWr: c.max_recv_wr = v; break;
    case QpField::kMaxRecvSge: c.max_recv_sge = v; break;
    case QpField::kMaxInlineData: c.max_inline_data = v; break;
  }
}

namespace {

bool IsRecv(QpField f) { return f == QpField::kMaxRecvWr || f == QpField::kMaxRecvSge; }
bool IsDepth(QpField f) { return f == QpField::kMaxSendWr || f == QpField::kMaxRecvWr; }

// The smallest value a search tries: a queue of 0 WRs is "no queue" on
// mlx5 and always accepted, which would explain nothing.
uint32_t SmallestTried(QpField f) { return IsDepth(f) ? 1 : 0; }

// The fields whose values decide together with `f` (the same queue's WQE).
std::vector<QpField> Related(QpField f) {
  switch (f) {
    case QpField::kMaxSendWr: return {QpField::kMaxSendSge, QpField::kMaxInlineData};
    case QpField::kMaxSendSge: return {QpField::kMaxSendWr, QpField::kMaxInlineData};
    case QpField::kMaxInlineData: return {QpField::kMaxSendWr, QpField::kMaxSendSge};
    case QpField::kMaxRecvWr: return {QpField::kMaxRecvSge};
    case QpField::kMaxRecvSge: return {QpField::kMaxRecvWr};
  }
  return {};
}

// Per-driver maximum inline data when the profile has no max_inline_data
// attribute (ibv_device_attr has none; only a create tells it). Data, one
// row per driver, with where the number comes from.
struct InlineLimitRow {
  const char* driver;
  uint64_t limit;
  const char* source;
};
constexpr InlineLimitRow kInlineLimits[] = {
    {"mlx4", 1024, "providers/mlx4 create_qp_ex"},
    {"rxe", 512, "rxe_param.h 6.1 default (400 before the 2021 limit bump)"},
};

struct FieldLimit {
  std::optional<uint64_t> value;
  std::string name, source;
};

FieldLimit LimitFor(const DeviceInfo& info, QpField f, const std::string& source_attr) {
  FieldLimit l;
  switch (f) {
    case QpField::kMaxSendWr:
    case QpField::kMaxRecvWr: l.name = "max_qp_wr"; break;
    case QpField::kMaxSendSge:
    case QpField::kMaxRecvSge: l.name = "max_sge"; break;
    case QpField::kMaxInlineData: l.name = "max_inline_data"; break;
  }
  l.value = info.Attr(l.name);
  if (l.value) {
    l.source = source_attr;
    return l;
  }
  if (f == QpField::kMaxInlineData && info.driver) {
    for (const InlineLimitRow& row : kInlineLimits) {
      if (*info.driver == row.driver) {
        l.value = row.limit;
        l.source = row.source;
      }
    }
  }
  return l;
}

using CapsKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
CapsKey Key(const QpCaps& c) {
  return {c.max_send_wr, c.max_send_sge, c.max_recv_wr, c.max_recv_sge, c.max_inline_data};
}

// Creates through the Device with memoization, a create budget and a
// deadline. Out of budget: Probe returns nullopt.
class Prober {
 public:
  Prober(Device& dev, const QpRequest& req, const DiagnoseOptions& o)
      : dev_(dev), req_(req), max_(o.max_creates), until_(MonotonicSeconds() + absl::ToDoubleSeconds(o.deadline)) {}

  std::optional<bool> Probe(const QpCaps& caps) {
    auto it = memo_.find(Key(caps));
    if (it != memo_.end()) return it->second;
    if (creates_ >= max_ || MonotonicSeconds() > until_) return std::nullopt;
    QpRequest r = req_;
    r.caps = caps;
    ++creates_;
    bool ok = dev_.CreateQp(r).ok();
    memo_[Key(caps)] = ok;
    return ok;
  }
  void Remember(const QpCaps& caps, bool ok) { memo_[Key(caps)] = ok; }
  int creates() const { return creates_; }

 private:
  Device& dev_;
  QpRequest req_;
  int max_;
  double until_;  // MonotonicSeconds
  int creates_ = 0;
  std::map<CapsKey, bool> memo_;
};

// The largest value of `f` in [SmallestTried(f), requested] accepted with
// the other fields at `ctx`. Assumes acceptance is monotone in each field
// (a smaller queue or WQE is never refused where a larger one is taken),
// which holds for every driver rule in docs/driver-models.md.
void Search(Prober& p, CreateQpFinding& fd, const QpCaps& ctx) {
  fd.searched = true;
  fd.others = ctx;
  auto at = [&](uint32_t v) {
    QpCaps c = ctx;
    SetField(c, fd.field, v);
    return p.Probe(c);
  };
  const uint32_t lo_min = SmallestTried(fd.field);
  std::optional<uint32_t> ok_at, bad_at;  // accepted / refused bounds
  auto out_of_budget = [&]() {
    fd.search_complete = false;
    fd.largest_accepted = ok_at;
    fd.first_refused = bad_at;
  };
  // Start at the device's limit when the request is over it: the usual
  // answer is the limit itself, found in two creates.
  std::vector<uint32_t> firsts;
  if (fd.over_limit && fd.limit && *fd.limit >= lo_min) {
    firsts = {static_cast<uint32_t>(*fd.limit), static_cast<uint32_t>(*fd.limit) + 1};
  }
  firsts.push_back(fd.requested);
  for (uint32_t v : firsts) {
    if ((ok_at && v <= *ok_at) || (bad_at && v >= *bad_at)) continue;
    std::optional<bool> r = at(v);
    if (!r) return out_of_budget();
    if (*r) {
      ok_at = v;
    } else {
      bad_at = v;
      break;
    }
  }
  if (!bad_at) {  // the requested value itself is accepted in this context
    fd.largest_accepted = ok_at;
    return;
  }
  if (!ok_at) {
    if (*bad_at <= lo_min) {
      fd.largest_accepted.reset();
      fd.first_refused = bad_at;
      return;
    }
    std::optional<bool> r = at(lo_min);
    if (!r) return out_of_budget();
    if (!*r) {
      fd.largest_accepted.reset();
      fd.first_refused = lo_min;
      return;
    }
    ok_at = lo_min;
  }
  while (*bad_at - *ok_at > 1) {
    uint32_t mid = *ok_at + (*bad_at - *ok_at) / 2;
    std::optional<bool> r = at(mid);
    if (!r) return out_of_budget();
    if (*r) ok_at = mid; else bad_at = mid;
  }
  fd.largest_accepted = ok_at;
  fd.first_refused = bad_at;
}

std::string WithOthers(const CreateQpFinding& fd) {
  std::vector<std::string> parts;
  for (QpField r : Related(fd.field)) {
    uint32_t v = GetField(fd.others, r);
    if (v == 0) continue;
    parts.push_back(absl::StrCat(QpFieldName(r), "=", v));
  }
  if (parts.empty()) return "with the other fields as asked";
  return absl::StrCat("with ", absl::StrJoin(parts, " and "));
}

std::string SearchSentence(const CreateQpFinding& fd) {
  const absl::string_view name = QpFieldName(fd.field);
  if (!fd.search_complete) {
    return absl::StrCat(WithOthers(fd), " the largest accepted ", name, " is between ",
                        fd.largest_accepted ? absl::StrCat(*fd.largest_accepted)
                                            : std::string("(none found)"),
                        " and ", fd.first_refused ? absl::StrCat(*fd.first_refused - 1) : "?",
                        " (search stopped: create budget or deadline reached)");
  }
  if (!fd.largest_accepted) {
    return absl::StrCat(WithOthers(fd), " no ", name, " from ", SmallestTried(fd.field),
                        " up is accepted: lowering ", name, " alone does not help");
  }
  return absl::StrCat(WithOthers(fd), " the largest accepted ", name, " is ",
                      *fd.largest_accepted);
}

void AddRelations(Device& dev, const DeviceInfo& info, const QpRequest& req,
                  const std::optional<QpCaps>& granted, const DiagnoseOptions& o,
                  CreateQpDiagnosis& d) {
  if (o.cqe) {
    const QpCaps& c = granted ? *granted : req.caps;
    uint64_t need = uint64_t{c.max_send_wr} + (req.with_srq ? 0 : c.max_recv_wr);
    const char* as = granted ? "as granted" : "as asked";
    absl::StatusOr<uint32_t> cq = dev.CreateCq(*o.cqe);
    if (!cq.ok()) {
      d.relations.push_back(absl::StrCat(
          "the CQ of ", *o.cqe, " entries is itself refused: ", cq.status().message(),
          " (a separate EINVAL, from ibv_create_cq before any QP)"));
    }
    if (*o.cqe < need) {
      d.relations.push_back(absl::StrCat(
          "the CQ of ", *o.cqe, " entries holds fewer than max_send_wr + max_recv_wr = ", need,
          " (", as, "): not an EINVAL cause on rxe, mlx5 or mlx4 (the create succeeds and the "
          "CQ overflows under load), but ask for cqe >= ", need));
    } else {
      d.relations.push_back(absl::StrCat("the CQ of ", *o.cqe,
                                         " entries covers max_send_wr + max_recv_wr = ", need,
                                         " (", as, ")"));
    }
  }
  if (req.with_srq) {
    const std::pair<std::optional<uint32_t>, const char*> srq[] = {
        {o.srq_max_wr, "max_srq_wr"}, {o.srq_max_sge, "max_srq_sge"}};
    for (const auto& [v, attr] : srq) {
      std::optional<uint64_t> lim = info.Attr(attr);
      if (v && lim && *v > *lim) {
        d.relations.push_back(absl::StrCat("the SRQ asks ", absl::string_view(attr).substr(4),
                                           "=", *v, ", over this device's ", attr, " ", *lim,
                                           ": ibv_create_srq fails with EINVAL before any QP"));
      }
    }
  }
}

}  // namespace

std::optional<uint32_t> LargestExactRequest(Device& dev, const QpRequest& req, QpField field) {
  const uint32_t asked = GetField(req.caps, field);
  if (asked == 0) return std::nullopt;
  auto fits = [&](uint32_t v) {
    QpRequest r = req;
    SetField(r.caps, field, v);
    absl::StatusOr<QpCaps> g = dev.CreateQp(r);
    return g.ok() && GetField(*g, field) <= asked;
  };
  if (fits(asked)) return asked;
  if (!fits(1)) return std::nullopt;
  uint32_t ok = 1, bad = asked;
  while (bad - ok > 1) {
    uint32_t mid = ok + (bad - ok) / 2;
    if (fits(mid)) ok = mid; else bad = mid;
  }
  return ok;
}

absl::StatusOr<CreateQpDiagnosis> DiagnoseCreateQp(Device& dev, const DeviceInfo& info,
                                                   const QpRequest& req,
                                                   const DiagnoseOptions& options) {
  const double t0 = MonotonicSeconds();
  CreateQpDiagnosis d;
  d.device = dev.Describe();
  d.device_name = info.name;
  d.request = req;
  Prober p(dev, req, options);
  {
    absl::StatusOr<QpCaps> first = dev.CreateQp(req);
    d.create_status = first.status();
    p.Remember(req.caps, first.ok());
    if (first.ok()) d.granted = *first;
  }
  const absl::StatusCode code = d.create_status.code();
  if (!d.ok() && code != absl::StatusCode::kInvalidArgument &&
      code != absl::StatusCode::kResourceExhausted && code != absl::StatusCode::kOutOfRange) {
    return d.create_status;
  }
  if (!d.ok()) {
    const std::string source = info.name.empty() ? "profile" : "device attribute";
    std::vector<CreateQpFinding> fds;
    QpCaps clamped = req.caps;
    bool any_over = false;
    for (QpField f : kAllQpFields) {
      if (req.with_srq && IsRecv(f)) continue;  // the SRQ's, not the QP's
      CreateQpFinding fd;
      fd.field = f;
      fd.requested = GetField(req.caps, f);
      FieldLimit l = LimitFor(info, f, source);
      fd.limit = l.value;
      fd.limit_name = l.name;
      fd.limit_source = l.source;
      fd.over_limit = l.value && fd.requested > *l.value;
      if (fd.over_limit) {
        any_over = true;
        SetField(clamped, f, static_cast<uint32_t>(*l.value));
      }
      fds.push_back(fd);
    }
    bool base_ok = false;
    if (any_over) {
      d.clamped = clamped;
      std::optional<bool> r = p.Probe(clamped);
      d.clamped_accepted = r.value_or(false);
      base_ok = d.clamped_accepted;
    }
    d.joint = !base_ok;
    for (CreateQpFinding& fd : fds) {
      // With the clamped request accepted only the over-limit fields are
      // causes; otherwise every field that could be lowered is searched.
      bool search = fd.over_limit || (!base_ok && fd.requested > SmallestTried(fd.field));
      if (search) Search(p, fd, clamped);
      if (search || fd.over_limit) d.findings.push_back(fd);
    }
  }
  AddRelations(dev, info, req, d.granted, options, d);
  d.creates = p.creates() + 1;
  d.seconds = MonotonicSeconds() - t0;
  return d;
}

std::vector<std::string> CreateQpDiagnosis::Verdict() const {
  std::vector<std::string> v;
  if (ok()) {
    v.push_back(absl::StrCat("ibv_create_qp succeeds on ", device_name, ": granted ",
                             FormatCaps(*granted)));
  } else {
    v.push_back(absl::StrCat("ibv_create_qp fails on ", device_name, ": ",
                             create_status.message()));
    bool explained = false;
    for (const CreateQpFinding& fd : findings) {
      if (!fd.over_limit) continue;
      explained = true;
      std::string s = absl::StrCat(QpFieldName(fd.field), "=", fd.requested,
                                   " is over this device's ", fd.limit_name, " ", *fd.limit);
      if (fd.searched) absl::StrAppend(&s, "; ", SearchSentence(fd));
      v.push_back(s);
    }
    if (clamped && clamped_accepted) {
      v.push_back(absl::StrCat("with every field over its limit lowered to that limit the create ",
                               "succeeds: ", FormatCaps(*clamped)));
    }
    if (joint) {
      v.push_back(clamped ? "even with the over-limit fields at their limits the create fails: "
                            "the fields are refused together"
                          : "each field is within its own limit, but together they are refused");
      // The fields whose lowering alone makes the create succeed; the ones
      // that cannot are named only when no field can.
      auto is_cause = [](const CreateQpFinding& fd) {
        return fd.searched && !fd.over_limit &&
               !(fd.search_complete && fd.largest_accepted &&
                 *fd.largest_accepted >= fd.requested);
      };
      bool any_fix = false;
      for (const CreateQpFinding& fd : findings) {
        any_fix = any_fix || (is_cause(fd) && (fd.largest_accepted || !fd.search_complete));
        any_fix = any_fix || (fd.over_limit && fd.largest_accepted);
      }
      for (const CreateQpFinding& fd : findings) {
        if (!is_cause(fd)) continue;
        if (any_fix && fd.search_complete && !fd.largest_accepted) continue;
        if (fd.largest_accepted) explained = true;
        v.push_back(SearchSentence(fd));
      }
    }
    if (!explained) {
      v.push_back("no single field explains the refusal: the device's message above is all "
                  "there is; check the QP type, the CQ and the SRQ");
    }
  }
  for (const std::string& r : relations) v.push_back(r);
  return v;
}

}  // namespace rdmacheck
