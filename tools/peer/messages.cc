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

// Each key-value message names its fields once, in a function template
// called with a Writer (Encode) or a Reader (Decode); the kind of each field
// (Str, Int, Bool, ...) says how its value is written. The Reader's order is
// the order in which a missing or bad field is reported.

class Writer {
 public:
  void Str(absl::string_view key, const std::string& v) { f_[std::string(key)] = v; }
  template <typename T>
  void Int(absl::string_view key, T v) {
    f_[std::string(key)] = absl::StrCat(v);
  }
  void Bool(absl::string_view key, bool v) { f_[std::string(key)] = v ? "1" : "0"; }
  void Double(absl::string_view key, double v) { f_[std::string(key)] = absl::StrCat(v); }
  void Op(absl::string_view key, ProbeOp v) { f_[std::string(key)] = std::string(ProbeOpName(v)); }
  // Absent when unset.
  void OptStr(absl::string_view key, const std::optional<std::string>& v) {
    if (v) Str(key, *v);
  }
  template <typename T>
  void OptInt(absl::string_view key, const std::optional<T>& v) {
    if (v) Int(key, *v);
  }
  void OptBool(absl::string_view key, const std::optional<bool>& v) {
    if (v) Bool(key, *v);
  }
  // Present but empty when unset.
  void BlankInt(absl::string_view key, const std::optional<int>& v) { Str(key, v ? absl::StrCat(*v) : ""); }
  // One "<prefix><name>" key per counter.
  void CountersAt(absl::string_view prefix, const Counters& c) {
    for (const auto& [k, v] : c) Int(absl::StrCat(prefix, k), v);
  }
  // Items joined by ';' (none of them holds one).
  void List(absl::string_view key, const std::vector<std::string>& v) { Str(key, absl::StrJoin(v, ";")); }
  void IntList(absl::string_view key, const std::vector<uint32_t>& v) { Str(key, absl::StrJoin(v, ",")); }
  // An enum by its name: name(v) for each of `all`.
  template <typename T, typename F>
  void Enum(absl::string_view key, T v, std::initializer_list<T>, F name) {
    Str(key, std::string(name(v)));
  }
  // A receive's outcome: "state", and for an error its status (when the CQ
  // gave one), vendor error and text.
  void Recv(const std::optional<RecvCompletion>& v) {
    if (!v) return;
    Str("state", std::string(RecvStateName(v->state)));
    if (v->state != RecvCompletion::State::kError) return;
    if (v->wc_status) {
      Int("wc_status", *v->wc_status);
      Int("vendor_err", v->vendor_err);
    }
    Str("wc_status_text", v->wc_status_text);
  }

  std::string Text() const {
    std::string out;
    for (const auto& [k, v] : f_) absl::StrAppend(&out, k, " ", v, "\n");
    return out;
  }

 private:
  Fields f_;
};

// Reads into the message's fields; keeps the first error, naming the frame
// and the key. Keys it is not asked for are ignored.
class Reader {
 public:
  Reader(absl::string_view payload, absl::string_view msg) : msg_(msg) {
    int n = 0;
    for (absl::string_view line : absl::StrSplit(payload, '\n', absl::SkipEmpty())) {
      ++n;
      size_t sp = line.find(' ');
      std::string key(line.substr(0, sp));
      if (key.empty()) {
        Fail(absl::StrCat(msg_, " line ", n, ": no key"));
        return;
      }
      f_[key] = sp == absl::string_view::npos ? "" : std::string(line.substr(sp + 1));
    }
  }
  const absl::Status& status() const { return status_; }

  void Str(absl::string_view key, std::string& out) {
    if (const std::string* v = Required(key)) out = *v;
  }
  template <typename T>
  void Int(absl::string_view key, T& out) {
    if (const std::string* v = Required(key)) ParseInt(key, *v, out);
  }
  void Bool(absl::string_view key, bool& out) {
    if (const std::string* v = Required(key)) ParseBool(key, *v, out);
  }
  void Double(absl::string_view key, double& out) {
    const std::string* v = Required(key);
    if (v != nullptr && !absl::SimpleAtod(*v, &out)) Bad(key, *v, "is not a number");
  }
  void Op(absl::string_view key, ProbeOp& out) {
    const std::string* v = Required(key);
    if (v == nullptr) return;
    for (ProbeOp op : {ProbeOp::kSend, ProbeOp::kRdmaWrite}) {
      if (*v == ProbeOpName(op)) {
        out = op;
        return;
      }
    }
    Bad(key, *v, "is not SEND or RDMA_WRITE");
  }
  void OptStr(absl::string_view key, std::optional<std::string>& out) {
    if (const std::string* v = Optional(key)) out = *v;
  }
  template <typename T>
  void OptInt(absl::string_view key, std::optional<T>& out) {
    const std::string* v = Optional(key);
    T n{};
    if (v != nullptr && ParseInt(key, *v, n)) out = n;
  }
  void OptBool(absl::string_view key, std::optional<bool>& out) {
    const std::string* v = Optional(key);
    bool b = false;
    if (v != nullptr && ParseBool(key, *v, b)) out = b;
  }
  void BlankInt(absl::string_view key, std::optional<int>& out) {
    const std::string* v = Optional(key);
    int n = 0;
    if (v != nullptr && !v->empty() && ParseInt(key, *v, n)) out = n;
  }
  void CountersAt(absl::string_view prefix, Counters& out) {
    for (const auto& [k, v] : f_) {
      uint64_t n = 0;
      if (absl::StartsWith(k, prefix) && ParseInt(k, v, n)) out[k.substr(prefix.size())] = n;
    }
  }
  void List(absl::string_view key, std::vector<std::string>& out) {
    const std::string* v = Required(key);
    if (v == nullptr) return;
    std::vector<std::string> items = absl::StrSplit(*v, ';', absl::SkipEmpty());
    out = std::move(items);
  }
  void IntList(absl::string_view key, std::vector<uint32_t>& out) {
    const std::string* v = Required(key);
    if (v == nullptr) return;
    out.clear();
    for (absl::string_view w : absl::StrSplit(*v, ',', absl::SkipEmpty())) {
      uint32_t n = 0;
      if (!ParseInt(key, std::string(w), n)) return;
      out.push_back(n);
    }
  }
  template <typename T, typename F>
  void Enum(absl::string_view key, T& out, std::initializer_list<T> all, F name) {
    const std::string* v = Required(key);
    if (v == nullptr) return;
    std::vector<std::string> names;
    for (T t : all) {
      if (*v == name(t)) {
        out = t;
        return;
      }
      names.emplace_back(name(t));
    }
    Bad(key, *v, absl::StrCat("is not ", absl::StrJoin(names, ", ")));
  }
  void Recv(std::optional<RecvCompletion>& out) {
    const std::string* state = Optional("state");
    if (state == nullptr) return;
    RecvCompletion rc;
    bool known = false;
    for (auto st : {RecvCompletion::State::kCompleted, RecvCompletion::State::kNone, RecvCompletion::State::kError}) {
      if (*state == RecvStateName(st)) {
        rc.state = st;
        known = true;
      }
    }
    if (!known) Bad("state", *state, "is not completed, none or error");
    OptInt("wc_status", rc.wc_status);
    std::optional<uint32_t> vendor_err;
    OptInt("vendor_err", vendor_err);
    rc.vendor_err = vendor_err.value_or(0);
    std::optional<std::string> text;
    OptStr("wc_status_text", text);
    rc.wc_status_text = text.value_or("");
    out = std::move(rc);
  }

 private:
  const std::string* Optional(absl::string_view key) const {
    if (!status_.ok()) return nullptr;
    auto it = f_.find(std::string(key));
    return it == f_.end() ? nullptr : &it->second;
  }
  const std::string* Required(absl::string_view key) {
    if (!status_.ok()) return nullptr;
    const std::string* v = Optional(key);
    if (v == nullptr) Fail(absl::StrCat(msg_, ": field '", key, "' missing"));
    return v;
  }
  template <typename T>
  bool ParseInt(absl::string_view key, const std::string& s, T& out) {
    if constexpr (std::is_signed_v<T>) {
      int64_t v;
      if (!absl::SimpleAtoi(s, &v)) return Bad(key, s, "is not an integer");
      if constexpr (sizeof(T) < sizeof(int64_t)) {
        if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
          return Bad(key, s, "is out of range");
      }
      out = static_cast<T>(v);
    } else {
      uint64_t v;
      if (!absl::SimpleAtoi(s, &v)) {
        int64_t negative;
        return Bad(key, s, absl::SimpleAtoi(s, &negative) ? "is out of range" : "is not an integer");
      }
      if constexpr (sizeof(T) < sizeof(uint64_t)) {
        if (v > std::numeric_limits<T>::max()) return Bad(key, s, "is out of range");
      }
      out = static_cast<T>(v);
    }
    return true;
  }
  bool ParseBool(absl::string_view key, const std::string& s, bool& out) {
    if (s != "0" && s != "1") return Bad(key, s, "is not 0 or 1");
    out = s == "1";
    return true;
  }
  bool Bad(absl::string_view key, absl::string_view value, absl::string_view why) {
    Fail(absl::StrCat(msg_, ": field '", key, "' = '", value, "' ", why));
    return false;
  }
  void Fail(std::string message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(std::move(message));
  }

  Fields f_;
  absl::string_view msg_;
  absl::Status status_;
};

// The field lists.

template <typename V>
void FieldsOf(V& v, ProbeSetupMsg& m) {
  v.Str("device", m.device);
  v.Int("port", m.port);
  v.Int("qpn", m.qpn);
  v.Str("gid", m.gid);
  v.Int("mtu", m.mtu);
  v.Int("recv_bytes", m.recv_bytes);
  v.Int("timeout", m.timeout);
  v.Int("retry_cnt", m.retry_cnt);
  v.Int("rnr_retry", m.rnr_retry);
  v.BlankInt("gid_index", m.gid_index);
}

template <typename V>
void FieldsOf(V& v, ProbeReadyMsg& m) {
  v.Str("device", m.device);
  v.Int("qpn", m.qpn);
  v.Str("gid", m.gid);
  v.Int("gid_index", m.gid_index);
  v.Int("mtu", m.mtu);
  v.Int("rkey", m.rkey);
  v.Int("addr", m.addr);
  v.Int("port", m.port);
  v.Str("gid_type", m.gid_type);
  v.Int("region_bytes", m.region_bytes);
  v.Bool("counters_known", m.counters_known);
  v.CountersAt("c.", m.counters);
}

template <typename V>
void FieldsOf(V& v, WrMsg& m) {
  v.Int("index", m.index);
  v.Int("bytes", m.bytes);
  v.Op("op", m.op);
}

template <typename V>
void FieldsOf(V& v, WrReadyMsg& m) {
  v.Str("qp_state", m.qp_state);
  v.OptStr("post_error", m.post_error);
}

template <typename V>
void FieldsOf(V& v, WrCheckMsg& m) {
  v.Int("index", m.index);
  v.Int("bytes", m.bytes);
  v.Op("op", m.op);
  v.Bool("send_ok", m.send_ok);
  v.Double("wait_s", m.wait_s);
}

template <typename V>
void FieldsOf(V& v, WrResultMsg& m) {
  v.Recv(m.recv);
  v.OptBool("verified", m.verified);
  v.OptInt("first_mismatch", m.first_mismatch);
  v.CountersAt("d.", m.delta);
  v.Str("qp_state", m.qp_state);
}

template <typename V>
void FieldsOf(V& v, ProbeDoneMsg& m) {
  v.Str("qp_state", m.qp_state);
  v.List("events", m.events);
  v.Bool("counters_known", m.counters_known);
  v.CountersAt("c.", m.counters);
}

absl::string_view ModeName(BenchMode m) { return m == BenchMode::kLatency ? "latency" : "bandwidth"; }

template <typename V, typename M>
void ModeAndOp(V& v, M& m) {
  v.Enum("mode", m.mode, {BenchMode::kBandwidth, BenchMode::kLatency}, ModeName);
  v.Enum("op", m.op, {BenchOp::kWrite, BenchOp::kSend, BenchOp::kRead}, BenchOpName);
}

template <typename V>
void FieldsOf(V& v, BenchSetupMsg& msg) {
  BenchNear& m = msg.near;
  SessionShape& sh = m.shape;
  ModeAndOp(v, sh);
  v.Int("qps", sh.qps);
  v.Int("max_size", sh.max_size);
  v.Int("tx_depth", sh.tx_depth);
  v.Int("inline_size", sh.inline_size);
  v.Int("mtu", sh.mtu);
  v.Int("active_mtu", m.active_mtu);
  v.Int("rd_atomic", m.rd_atomic);
  v.Str("device", m.device);
  v.Str("peer_device", m.peer_device);
  v.BlankInt("peer_gid_index", m.peer_gid_index);
  v.Str("gid", m.gid);
  v.IntList("qpns", m.qpns);
  v.Int("addr", m.addr);
  v.Int("rkey", m.rkey);
  v.Int("region_bytes", m.region_bytes);
}

template <typename V>
void FieldsOf(V& v, BenchReadyMsg& msg) {
  BenchFar& m = msg.far;
  v.Str("device", m.device);
  v.Int("port", m.port);
  v.Str("gid", m.gid);
  v.Int("gid_index", m.gid_index);
  v.Int("active_mtu", m.active_mtu);
  v.Int("path_mtu", m.path_mtu);
  v.Int("rd_atomic", m.rd_atomic);
  v.IntList("qpns", m.qpns);
  v.Int("addr", m.addr);
  v.Int("rkey", m.rkey);
  v.Int("region_bytes", m.region_bytes);
}

template <typename V>
void FieldsOf(V& v, BenchRunMsg& m) {
  ModeAndOp(v, m);
  v.Int("size", m.size);
  v.Int("qps", m.qps);
  v.Int("tx_depth", m.tx_depth);
  v.Int("inline_size", m.inline_size);
  v.Int("iters", m.iters);
}

template <typename V>
void FieldsOf(V& v, BenchDoneMsg& msg) {
  BenchFarRun& m = msg.run;
  v.Enum("end", m.end,
         {BenchEnd::kOk, BenchEnd::kStalled, BenchEnd::kWcError, BenchEnd::kPostFailed, BenchEnd::kInterrupted},
         BenchEndName);
  v.Str("failure", m.failure);
  v.Int("wc_status", m.wc_status);
  v.Str("wc_status_text", m.wc_status_text);
  v.Int("vendor_err", m.vendor_err);
  v.Str("qp_state", m.qp_state);
  v.Bool("counters_known", m.counters_known);
  v.CountersAt("b.", m.counters_before);
  v.CountersAt("a.", m.counters_after);
}

// By value: the field lists take the message as the Reader fills it.
template <typename M>
std::string EncodeWith(M m) {
  Writer w;
  FieldsOf(w, m);
  return w.Text();
}

template <typename M>
absl::StatusOr<M> DecodeWith(absl::string_view payload) {
  Reader r(payload, M::kType);
  M m;
  FieldsOf(r, m);
  if (!r.status().ok()) return r.status();
  return m;
}

}  // namespace

std::string ProbeSetupMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<ProbeSetupMsg> ProbeSetupMsg::Decode(absl::string_view p) { return DecodeWith<ProbeSetupMsg>(p); }
std::string ProbeReadyMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<ProbeReadyMsg> ProbeReadyMsg::Decode(absl::string_view p) { return DecodeWith<ProbeReadyMsg>(p); }
std::string WrMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<WrMsg> WrMsg::Decode(absl::string_view p) { return DecodeWith<WrMsg>(p); }
std::string WrReadyMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<WrReadyMsg> WrReadyMsg::Decode(absl::string_view p) { return DecodeWith<WrReadyMsg>(p); }
std::string WrCheckMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<WrCheckMsg> WrCheckMsg::Decode(absl::string_view p) { return DecodeWith<WrCheckMsg>(p); }
std::string WrResultMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<WrResultMsg> WrResultMsg::Decode(absl::string_view p) { return DecodeWith<WrResultMsg>(p); }
std::string ProbeDoneMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<ProbeDoneMsg> ProbeDoneMsg::Decode(absl::string_view p) { return DecodeWith<ProbeDoneMsg>(p); }

std::string BenchSetupMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<BenchSetupMsg> BenchSetupMsg::Decode(absl::string_view p) { return DecodeWith<BenchSetupMsg>(p); }
std::string BenchReadyMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<BenchReadyMsg> BenchReadyMsg::Decode(absl::string_view p) { return DecodeWith<BenchReadyMsg>(p); }
std::string BenchRunMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<BenchRunMsg> BenchRunMsg::Decode(absl::string_view p) { return DecodeWith<BenchRunMsg>(p); }
std::string BenchDoneMsg::Encode() const { return EncodeWith(*this); }
absl::StatusOr<BenchDoneMsg> BenchDoneMsg::Decode(absl::string_view p) { return DecodeWith<BenchDoneMsg>(p); }

// The frames that are not key-value lines.

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
std::string BenchStartedMsg::Encode() const { return ""; }
absl::StatusOr<BenchStartedMsg> BenchStartedMsg::Decode(absl::string_view) { return BenchStartedMsg{}; }
std::string BenchStopMsg::Encode() const { return ""; }
absl::StatusOr<BenchStopMsg> BenchStopMsg::Decode(absl::string_view) { return BenchStopMsg{}; }
std::string BenchEndMsg::Encode() const { return ""; }
absl::StatusOr<BenchEndMsg> BenchEndMsg::Decode(absl::string_view) { return BenchEndMsg{}; }

}  // namespace rdmacheck
