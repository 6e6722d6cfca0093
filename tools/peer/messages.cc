#include "tools/peer/messages.h"

#include <limits>
#include <map>
#include <type_traits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "util/status_macros.h"

namespace rdmacheck {
namespace {

// The key-value payload. A std::map keeps the keys in order, which is the
// order on the wire.
using Fields = std::map<std::string, std::string>;

std::string JoinFields(const Fields& f) {
  std::string out;
  for (const auto& [k, v] : f) absl::StrAppend(&out, k, " ", v, "\n");
  return out;
}

absl::StatusOr<Fields> SplitFields(absl::string_view text, absl::string_view what) {
  Fields out;
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    ++n;
    size_t sp = line.find(' ');
    std::string key(line.substr(0, sp));
    if (key.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " line ", n, ": no key"));
    out[key] = sp == absl::string_view::npos ? "" : std::string(line.substr(sp + 1));
  }
  return out;
}

void PutCounters(absl::string_view prefix, const Counters& c, Fields* f) {
  for (const auto& [k, v] : c) (*f)[absl::StrCat(prefix, k)] = absl::StrCat(v);
}

const char* Bit(bool b) { return b ? "1" : "0"; }

absl::string_view RecvStateName(RecvCompletion::State s) {
  switch (s) {
    case RecvCompletion::State::kCompleted:
      return "completed";
    case RecvCompletion::State::kNone:
      return "none";
    case RecvCompletion::State::kError:
      break;
  }
  return "error";
}

// Typed reads of one frame's fields; each error names the frame and the key.
class Reader {
 public:
  Reader(Fields f, absl::string_view msg) : f_(std::move(f)), msg_(msg) {}

  static absl::StatusOr<Reader> Of(absl::string_view payload, absl::string_view msg) {
    RDMACHECK_ASSIGN_OR_RETURN(Fields f, SplitFields(payload, msg));
    return Reader(std::move(f), msg);
  }

  bool Has(absl::string_view key) const { return f_.count(std::string(key)) > 0; }

  absl::Status Str(absl::string_view key, std::string* out) const {
    auto it = f_.find(std::string(key));
    if (it == f_.end()) return absl::InvalidArgumentError(absl::StrCat(msg_, ": field '", key, "' missing"));
    *out = it->second;
    return absl::OkStatus();
  }

  template <typename T>
  absl::Status Int(absl::string_view key, T* out) const {
    std::string s;
    RDMACHECK_RETURN_IF_ERROR(Str(key, &s));
    if constexpr (std::is_signed_v<T>) {
      int64_t v;
      if (!absl::SimpleAtoi(s, &v)) return Bad(key, s, "is not an integer");
      if constexpr (sizeof(T) < sizeof(int64_t)) {
        if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
          return Bad(key, s, "is out of range");
      }
      *out = static_cast<T>(v);
    } else {
      uint64_t v;
      if (!absl::SimpleAtoi(s, &v)) {
        int64_t negative;
        return Bad(key, s, absl::SimpleAtoi(s, &negative) ? "is out of range" : "is not an integer");
      }
      if constexpr (sizeof(T) < sizeof(uint64_t)) {
        if (v > std::numeric_limits<T>::max()) return Bad(key, s, "is out of range");
      }
      *out = static_cast<T>(v);
    }
    return absl::OkStatus();
  }

  // An optional field: absent leaves *out as it is.
  template <typename T>
  absl::Status OptInt(absl::string_view key, std::optional<T>* out) const {
    if (!Has(key)) return absl::OkStatus();
    T v;
    RDMACHECK_RETURN_IF_ERROR(Int(key, &v));
    *out = v;
    return absl::OkStatus();
  }

  absl::Status OptStr(absl::string_view key, std::optional<std::string>* out) const {
    if (!Has(key)) return absl::OkStatus();
    std::string v;
    RDMACHECK_RETURN_IF_ERROR(Str(key, &v));
    *out = std::move(v);
    return absl::OkStatus();
  }

  absl::Status Double(absl::string_view key, double* out) const {
    std::string s;
    RDMACHECK_RETURN_IF_ERROR(Str(key, &s));
    if (!absl::SimpleAtod(s, out)) return Bad(key, s, "is not a number");
    return absl::OkStatus();
  }

  absl::Status Bool(absl::string_view key, bool* out) const {
    std::string s;
    RDMACHECK_RETURN_IF_ERROR(Str(key, &s));
    if (s != "0" && s != "1") return Bad(key, s, "is not 0 or 1");
    *out = s == "1";
    return absl::OkStatus();
  }

  absl::Status Op(absl::string_view key, ProbeOp* out) const {
    std::string s;
    RDMACHECK_RETURN_IF_ERROR(Str(key, &s));
    for (ProbeOp op : {ProbeOp::kSend, ProbeOp::kRdmaWrite}) {
      if (s == ProbeOpName(op)) {
        *out = op;
        return absl::OkStatus();
      }
    }
    return Bad(key, s, "is not SEND or RDMA_WRITE");
  }

  absl::Status RecvState(absl::string_view key, RecvCompletion::State* out) const {
    std::string s;
    RDMACHECK_RETURN_IF_ERROR(Str(key, &s));
    for (auto st : {RecvCompletion::State::kCompleted, RecvCompletion::State::kNone, RecvCompletion::State::kError}) {
      if (s == RecvStateName(st)) {
        *out = st;
        return absl::OkStatus();
      }
    }
    return Bad(key, s, "is not completed, none or error");
  }

  // Every "<prefix><name>" field, as counter <name>.
  absl::Status CountersWith(absl::string_view prefix, Counters* out) const {
    for (const auto& [k, v] : f_) {
      if (!absl::StartsWith(k, prefix)) continue;
      uint64_t n;
      RDMACHECK_RETURN_IF_ERROR(Int(k, &n));
      (*out)[k.substr(prefix.size())] = n;
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Bad(absl::string_view key, absl::string_view value, absl::string_view why) const {
    return absl::InvalidArgumentError(absl::StrCat(msg_, ": field '", key, "' = '", value, "' ", why));
  }

  Fields f_;
  absl::string_view msg_;
};

}  // namespace

std::string ProfileMsg::Encode() const { return text; }
absl::StatusOr<ProfileMsg> ProfileMsg::Decode(absl::string_view payload) { return ProfileMsg{std::string(payload)}; }

std::string VerdictsMsg::Encode() const { return absl::StrJoin(lines, "\n"); }
absl::StatusOr<VerdictsMsg> VerdictsMsg::Decode(absl::string_view payload) {
  std::vector<std::string> lines = absl::StrSplit(payload, '\n', absl::SkipEmpty());
  return VerdictsMsg{std::move(lines)};
}

std::string ByeMsg::Encode() const { return ""; }
absl::StatusOr<ByeMsg> ByeMsg::Decode(absl::string_view) { return ByeMsg{}; }

std::string ProbeEndMsg::Encode() const { return ""; }
absl::StatusOr<ProbeEndMsg> ProbeEndMsg::Decode(absl::string_view) { return ProbeEndMsg{}; }

std::string ProbeSetupMsg::Encode() const {
  return JoinFields({{"device", device},
                       {"port", absl::StrCat(port)},
                       {"gid_index", gid_index ? absl::StrCat(*gid_index) : ""},
                       {"qpn", absl::StrCat(qpn)},
                       {"gid", gid},
                       {"mtu", absl::StrCat(mtu)},
                       {"recv_bytes", absl::StrCat(recv_bytes)},
                       {"timeout", absl::StrCat(timeout)},
                       {"retry_cnt", absl::StrCat(retry_cnt)},
                       {"rnr_retry", absl::StrCat(rnr_retry)}});
}

absl::StatusOr<ProbeSetupMsg> ProbeSetupMsg::Decode(absl::string_view payload) {
  RDMACHECK_ASSIGN_OR_RETURN(Reader r, Reader::Of(payload, kType));
  ProbeSetupMsg m;
  RDMACHECK_RETURN_IF_ERROR(r.Str("device", &m.device));
  RDMACHECK_RETURN_IF_ERROR(r.Int("port", &m.port));
  RDMACHECK_RETURN_IF_ERROR(r.Int("qpn", &m.qpn));
  RDMACHECK_RETURN_IF_ERROR(r.Str("gid", &m.gid));
  RDMACHECK_RETURN_IF_ERROR(r.Int("mtu", &m.mtu));
  RDMACHECK_RETURN_IF_ERROR(r.Int("recv_bytes", &m.recv_bytes));
  RDMACHECK_RETURN_IF_ERROR(r.Int("timeout", &m.timeout));
  RDMACHECK_RETURN_IF_ERROR(r.Int("retry_cnt", &m.retry_cnt));
  RDMACHECK_RETURN_IF_ERROR(r.Int("rnr_retry", &m.rnr_retry));
  // Written empty when the client leaves the choice to the server.
  std::optional<std::string> gi;
  RDMACHECK_RETURN_IF_ERROR(r.OptStr("gid_index", &gi));
  if (gi && !gi->empty()) RDMACHECK_RETURN_IF_ERROR(r.OptInt("gid_index", &m.gid_index));
  return m;
}

std::string ProbeReadyMsg::Encode() const {
  Fields f{{"device", device},
           {"port", absl::StrCat(port)},
           {"qpn", absl::StrCat(qpn)},
           {"gid", gid},
           {"gid_index", absl::StrCat(gid_index)},
           {"gid_type", gid_type},
           {"mtu", absl::StrCat(mtu)},
           {"rkey", absl::StrCat(rkey)},
           {"addr", absl::StrCat(addr)},
           {"region_bytes", absl::StrCat(region_bytes)},
           {"counters_known", Bit(counters_known)}};
  PutCounters("c.", counters, &f);
  return JoinFields(f);
}

absl::StatusOr<ProbeReadyMsg> ProbeReadyMsg::Decode(absl::string_view payload) {
  RDMACHECK_ASSIGN_OR_RETURN(Reader r, Reader::Of(payload, kType));
  ProbeReadyMsg m;
  RDMACHECK_RETURN_IF_ERROR(r.Str("device", &m.device));
  RDMACHECK_RETURN_IF_ERROR(r.Int("qpn", &m.qpn));
  RDMACHECK_RETURN_IF_ERROR(r.Str("gid", &m.gid));
  RDMACHECK_RETURN_IF_ERROR(r.Int("gid_index", &m.gid_index));
  RDMACHECK_RETURN_IF_ERROR(r.Int("mtu", &m.mtu));
  RDMACHECK_RETURN_IF_ERROR(r.Int("rkey", &m.rkey));
  RDMACHECK_RETURN_IF_ERROR(r.Int("addr", &m.addr));
  RDMACHECK_RETURN_IF_ERROR(r.Int("port", &m.port));
  RDMACHECK_RETURN_IF_ERROR(r.Str("gid_type", &m.gid_type));
  RDMACHECK_RETURN_IF_ERROR(r.Int("region_bytes", &m.region_bytes));
  RDMACHECK_RETURN_IF_ERROR(r.Bool("counters_known", &m.counters_known));
  RDMACHECK_RETURN_IF_ERROR(r.CountersWith("c.", &m.counters));
  return m;
}

std::string WrMsg::Encode() const {
  return JoinFields(
      {{"index", absl::StrCat(index)}, {"op", std::string(ProbeOpName(op))}, {"bytes", absl::StrCat(bytes)}});
}

absl::StatusOr<WrMsg> WrMsg::Decode(absl::string_view payload) {
  RDMACHECK_ASSIGN_OR_RETURN(Reader r, Reader::Of(payload, kType));
  WrMsg m;
  RDMACHECK_RETURN_IF_ERROR(r.Int("index", &m.index));
  RDMACHECK_RETURN_IF_ERROR(r.Int("bytes", &m.bytes));
  RDMACHECK_RETURN_IF_ERROR(r.Op("op", &m.op));
  return m;
}

std::string WrReadyMsg::Encode() const {
  Fields f{{"qp_state", qp_state}};
  if (post_error) f["post_error"] = *post_error;
  return JoinFields(f);
}

absl::StatusOr<WrReadyMsg> WrReadyMsg::Decode(absl::string_view payload) {
  RDMACHECK_ASSIGN_OR_RETURN(Reader r, Reader::Of(payload, kType));
  WrReadyMsg m;
  RDMACHECK_RETURN_IF_ERROR(r.Str("qp_state", &m.qp_state));
  RDMACHECK_RETURN_IF_ERROR(r.OptStr("post_error", &m.post_error));
  return m;
}

std::string WrCheckMsg::Encode() const {
  return JoinFields({{"index", absl::StrCat(index)},
                       {"op", std::string(ProbeOpName(op))},
                       {"bytes", absl::StrCat(bytes)},
                       {"send_ok", Bit(send_ok)},
                       {"wait_s", absl::StrCat(wait_s)}});
}

absl::StatusOr<WrCheckMsg> WrCheckMsg::Decode(absl::string_view payload) {
  RDMACHECK_ASSIGN_OR_RETURN(Reader r, Reader::Of(payload, kType));
  WrCheckMsg m;
  RDMACHECK_RETURN_IF_ERROR(r.Int("index", &m.index));
  RDMACHECK_RETURN_IF_ERROR(r.Int("bytes", &m.bytes));
  RDMACHECK_RETURN_IF_ERROR(r.Op("op", &m.op));
  RDMACHECK_RETURN_IF_ERROR(r.Bool("send_ok", &m.send_ok));
  RDMACHECK_RETURN_IF_ERROR(r.Double("wait_s", &m.wait_s));
  return m;
}

std::string WrResultMsg::Encode() const {
  Fields f{{"qp_state", qp_state}};
  if (recv) {
    f["state"] = std::string(RecvStateName(recv->state));
    if (recv->state == RecvCompletion::State::kError) {
      if (recv->wc_status) {
        f["wc_status"] = absl::StrCat(*recv->wc_status);
        f["vendor_err"] = absl::StrCat(recv->vendor_err);
      }
      f["wc_status_text"] = recv->wc_status_text;
    }
  }
  if (verified) f["verified"] = Bit(*verified);
  if (first_mismatch) f["first_mismatch"] = absl::StrCat(*first_mismatch);
  PutCounters("d.", delta, &f);
  return JoinFields(f);
}

absl::StatusOr<WrResultMsg> WrResultMsg::Decode(absl::string_view payload) {
  RDMACHECK_ASSIGN_OR_RETURN(Reader r, Reader::Of(payload, kType));
  WrResultMsg m;
  if (r.Has("state")) {
    RecvCompletion rc;
    RDMACHECK_RETURN_IF_ERROR(r.RecvState("state", &rc.state));
    RDMACHECK_RETURN_IF_ERROR(r.OptInt("wc_status", &rc.wc_status));
    std::optional<uint32_t> vendor_err;
    RDMACHECK_RETURN_IF_ERROR(r.OptInt("vendor_err", &vendor_err));
    rc.vendor_err = vendor_err.value_or(0);
    std::optional<std::string> text;
    RDMACHECK_RETURN_IF_ERROR(r.OptStr("wc_status_text", &text));
    rc.wc_status_text = text.value_or("");
    m.recv = std::move(rc);
  }
  if (r.Has("verified")) {
    bool v;
    RDMACHECK_RETURN_IF_ERROR(r.Bool("verified", &v));
    m.verified = v;
  }
  RDMACHECK_RETURN_IF_ERROR(r.OptInt("first_mismatch", &m.first_mismatch));
  RDMACHECK_RETURN_IF_ERROR(r.CountersWith("d.", &m.delta));
  RDMACHECK_RETURN_IF_ERROR(r.Str("qp_state", &m.qp_state));
  return m;
}

std::string ProbeDoneMsg::Encode() const {
  Fields f{{"qp_state", qp_state}, {"events", absl::StrJoin(events, ";")}, {"counters_known", Bit(counters_known)}};
  PutCounters("c.", counters, &f);
  return JoinFields(f);
}

absl::StatusOr<ProbeDoneMsg> ProbeDoneMsg::Decode(absl::string_view payload) {
  RDMACHECK_ASSIGN_OR_RETURN(Reader r, Reader::Of(payload, kType));
  ProbeDoneMsg m;
  RDMACHECK_RETURN_IF_ERROR(r.Str("qp_state", &m.qp_state));
  std::string events;
  RDMACHECK_RETURN_IF_ERROR(r.Str("events", &events));
  std::vector<std::string> split = absl::StrSplit(events, ';', absl::SkipEmpty());
  m.events = std::move(split);
  RDMACHECK_RETURN_IF_ERROR(r.Bool("counters_known", &m.counters_known));
  RDMACHECK_RETURN_IF_ERROR(r.CountersWith("c.", &m.counters));
  return m;
}

}  // namespace rdmacheck
