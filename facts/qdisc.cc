#include "facts/qdisc.h"

#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "util/numbers.h"

namespace rdmacheck {

namespace {

using nlohmann::json;

// A size as tc prints it: a number of bytes, or text with tc's units
// ("4000b", "32Kb", "1Mb", "1000b/1": the "/cell" of -d is dropped).
std::optional<uint64_t> SizeOf(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  s = s.substr(0, s.find('/'));
  size_t i = 0;
  while (i < s.size() && (absl::ascii_isdigit(s[i]) || s[i] == '.')) ++i;
  double n = 0;
  if (i == 0 || !absl::SimpleAtod(s.substr(0, i), &n)) return std::nullopt;
  const std::string unit = absl::AsciiStrToLower(s.substr(i));
  double mul = 1;
  if (unit == "" || unit == "b") mul = 1;
  else if (unit == "kb" || unit == "k") mul = 1024;
  else if (unit == "mb" || unit == "m") mul = 1024 * 1024;
  else if (unit == "gb" || unit == "g") mul = 1024.0 * 1024 * 1024;
  else if (unit == "kbit") mul = 1024 / 8.0;
  else if (unit == "mbit") mul = 1024 * 1024 / 8.0;
  else return std::nullopt;
  return static_cast<uint64_t>(std::llround(n * mul));
}

// A rate in bytes per second (tc's JSON), or {"rate": N}; bits per second out.
std::optional<uint64_t> RateBpsOf(const json& v) {
  const json& r = v.is_object() && v.contains("rate") ? v["rate"] : v;
  if (r.is_number_unsigned()) return r.get<uint64_t>() * 8;
  if (r.is_number_integer() && r.get<int64_t>() >= 0) return static_cast<uint64_t>(r.get<int64_t>()) * 8;
  return std::nullopt;
}

// Seconds as a double (iproute2's print_time64 in JSON), microseconds out.
std::optional<double> SecondsAsUs(const json& v) {
  if (!v.is_number()) return std::nullopt;
  return v.get<double>() * 1e6;
}

Qdisc FromJson(const json& e) {
  Qdisc q;
  q.kind = e["kind"].get<std::string>();  // the caller made sure it is a string
  // json::value() throws when the field has another type ("root": 0).
  if (e.contains("root") && e["root"].is_boolean() && e["root"].get<bool>()) {
    q.parent = "root";
  } else if (e.contains("parent") && e["parent"].is_string()) {
    q.parent = e["parent"].get<std::string>();
  }
  if (!e.contains("options") || !e["options"].is_object()) return q;
  const json& o = e["options"];
  if (q.kind == "tbf") {
    if (o.contains("rate")) q.rate_bps = RateBpsOf(o["rate"]);
    if (o.contains("burst")) q.burst_bytes = SizeOf(o["burst"]);
    if (o.contains("limit")) q.limit_bytes = SizeOf(o["limit"]);
  } else if (q.kind == "netem") {
    if (o.contains("delay") && o["delay"].is_object() && o["delay"].contains("delay"))
      q.delay_us = SecondsAsUs(o["delay"]["delay"]);
    if (o.contains("loss-random") && o["loss-random"].is_object() && o["loss-random"].contains("loss") &&
        o["loss-random"]["loss"].is_number())
      q.loss_pct = o["loss-random"]["loss"].get<double>() * 100;
    if (o.contains("rate") && o["rate"].is_object()) q.rate_bps = RateBpsOf(o["rate"]);
  }
  return q;
}

std::string RateText(uint64_t bps) {
  if (bps >= 1000000000 && bps % 1000000000 == 0) return absl::StrCat(bps / 1000000000, "Gbit");
  if (bps >= 1000000 && bps % 1000000 == 0) return absl::StrCat(bps / 1000000, "Mbit");
  if (bps >= 1000 && bps % 1000 == 0) return absl::StrCat(bps / 1000, "Kbit");
  return absl::StrCat(bps, "bit");
}

std::string TimeText(double us) {
  if (us >= 1000) return absl::StrFormat("%gms", us / 1000);
  return absl::StrFormat("%gus", us);
}

}  // namespace

absl::StatusOr<QdiscsByNetdev> ParseTcQdiscJson(absl::string_view text, absl::string_view source,
                                                absl::string_view dev) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": not JSON at byte ", e.byte,
        " (iproute2 before 5.x printed a tbf's options unquoted; `tc qdisc show` says the same in words)"));
  } catch (const json::exception& e) {
    // Valid syntax the library still refuses, as a number out of range.
    return absl::InvalidArgumentError(absl::StrCat(source, ": not JSON the reader can hold: ", e.what()));
  }
  if (!doc.is_array()) return absl::InvalidArgumentError(absl::StrCat(source, ": not a JSON array"));
  QdiscsByNetdev out;
  for (const json& e : doc) {
    if (!e.is_object() || !e.contains("kind") || !e["kind"].is_string()) continue;
    std::string name = e.contains("dev") && e["dev"].is_string() ? e["dev"].get<std::string>() : std::string(dev);
    if (name.empty()) continue;
    Qdisc q = FromJson(e);
    std::vector<Qdisc>& list = out[name];
    if (q.parent == "root") {
      list.insert(list.begin(), std::move(q));
    } else {
      list.push_back(std::move(q));
    }
  }
  return out;
}

std::string QdiscText(const Qdisc& q) {
  std::string s = absl::StrCat(q.kind, " ", q.parent.empty() ? "" : q.parent == "root" ? "root" : "parent " + q.parent);
  if (q.rate_bps) absl::StrAppend(&s, " rate ", RateText(*q.rate_bps));
  if (q.burst_bytes) absl::StrAppend(&s, " burst ", *q.burst_bytes, "b");
  if (q.limit_bytes) absl::StrAppend(&s, " limit ", *q.limit_bytes, "b");
  if (q.delay_us) absl::StrAppend(&s, " delay ", TimeText(*q.delay_us));
  if (q.loss_pct) absl::StrAppend(&s, " loss ", absl::StrFormat("%g%%", *q.loss_pct));
  return std::string(absl::StripTrailingAsciiWhitespace(s));
}

std::string QdiscToken(const Qdisc& q) {
  std::string s = absl::StrCat(q.kind, "@", q.parent);
  if (q.rate_bps) absl::StrAppend(&s, ",rate_bps=", *q.rate_bps);
  if (q.burst_bytes) absl::StrAppend(&s, ",burst_bytes=", *q.burst_bytes);
  if (q.limit_bytes) absl::StrAppend(&s, ",limit_bytes=", *q.limit_bytes);
  if (q.delay_us) absl::StrAppend(&s, ",delay_us=", absl::StrFormat("%g", *q.delay_us));
  if (q.loss_pct) absl::StrAppend(&s, ",loss_pct=", absl::StrFormat("%g", *q.loss_pct));
  return s;
}

absl::StatusOr<Qdisc> ParseQdiscToken(absl::string_view token) {
  std::vector<absl::string_view> parts = absl::StrSplit(token, ',');
  std::vector<absl::string_view> head = absl::StrSplit(parts[0], absl::MaxSplits('@', 1));
  if (head.size() != 2 || head[0].empty())
    return absl::InvalidArgumentError(absl::StrCat("qdisc '", token, "': expected KIND@PARENT[,key=value...]"));
  Qdisc q;
  q.kind = std::string(head[0]);
  q.parent = std::string(head[1]);
  for (size_t i = 1; i < parts.size(); ++i) {
    std::vector<absl::string_view> kv = absl::StrSplit(parts[i], absl::MaxSplits('=', 1));
    if (kv.size() != 2)
      return absl::InvalidArgumentError(absl::StrCat("qdisc '", token, "': '", parts[i], "' is not key=value"));
    const absl::string_view k = kv[0], v = kv[1];
    std::optional<uint64_t> n = ParseUnsigned(v);
    std::optional<double> d = ParseDecimal(v);
    auto bad = [&](absl::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat("qdisc '", token, "': ", k, " '", v, "' is not ", what));
    };
    if (k == "rate_bps" || k == "burst_bytes" || k == "limit_bytes") {
      if (!n) return bad("a whole number");
      (k == "rate_bps" ? q.rate_bps : k == "burst_bytes" ? q.burst_bytes : q.limit_bytes) = *n;
    } else if (k == "delay_us" || k == "loss_pct") {
      if (!d) return bad("a number");
      (k == "delay_us" ? q.delay_us : q.loss_pct) = *d;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("qdisc '", token, "': unknown key '", k,
                                                     "' (rate_bps, burst_bytes, limit_bytes, delay_us, loss_pct)"));
    }
  }
  return q;
}

std::optional<uint64_t> LargestFramePassed(const Qdisc& q) {
  if (q.kind == "tbf") return q.burst_bytes;
  return std::nullopt;
}

uint64_t RoceFrameBytes(int mtu) { return 14 + 20 + 8 + 12 + 16 + static_cast<uint64_t>(mtu) + 4; }

}  // namespace rdmacheck
