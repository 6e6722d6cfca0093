#include "facts/port_rate.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

// enum ib_port_speed (include/rdma/ib_verbs.h), with rate_show's per-lane Gb/s.
constexpr IbSpeed kSpeeds[] = {
    {1, "SDR", 2.5},  {2, "DDR", 5},   {4, "QDR", 10},   {8, "FDR10", 10}, {16, "FDR", 14},
    {32, "EDR", 25},  {64, "HDR", 50}, {128, "NDR", 100}, {256, "XDR", 200},
};

// enum ib_port_width: code -> lanes.
constexpr struct {
  int code;
  int lanes;
} kWidths[] = {{1, 1}, {16, 2}, {2, 4}, {4, 8}, {8, 12}};

constexpr char kRateForms[] =
    "write e.g. 100 Gb/sec, 100 Gb/s, 100 Gbps, 100G or 56, or the sysfs form 200 Gb/sec (4X HDR)";

absl::Status Bad(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("'", text, "' ", why));
}

// "(4X EDR)" without its parentheses: a width and, optionally, a speed.
absl::Status ParseLinkWords(absl::string_view text, absl::string_view inner, PortRate* out) {
  std::vector<absl::string_view> words = absl::StrSplit(inner, ' ', absl::SkipWhitespace());
  if (words.empty() || words.size() > 2)
    return Bad(text, "has a bad width and speed in parentheses (e.g. (4X EDR))");
  out->lanes = LanesNamed(words[0]);
  if (!out->lanes)
    return Bad(text, absl::StrCat("has width '", words[0], "' (1X, 2X, 4X, 8X or 12X)"));
  if (words.size() == 2) {
    out->speed = SpeedNamed(words[1]);
    if (!out->speed)
      return Bad(text, absl::StrCat("has speed '", words[1],
                                    "' (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)"));
  }
  return absl::OkStatus();
}

}  // namespace

const IbSpeed* SpeedOfCode(int code) {
  for (const IbSpeed& s : kSpeeds)
    if (s.code == code) return &s;
  return nullptr;
}

const IbSpeed* SpeedNamed(absl::string_view name) {
  for (const IbSpeed& s : kSpeeds)
    if (absl::EqualsIgnoreCase(s.name, name)) return &s;
  return nullptr;
}

std::optional<int> WidthLanes(int code) {
  for (const auto& w : kWidths)
    if (w.code == code) return w.lanes;
  return std::nullopt;
}

std::optional<int> LanesNamed(absl::string_view width) {
  if (!absl::ConsumeSuffix(&width, "X") && !absl::ConsumeSuffix(&width, "x")) return std::nullopt;
  for (const auto& w : kWidths)
    if (width == absl::StrCat(w.lanes)) return w.lanes;
  return std::nullopt;
}

absl::StatusOr<PortRate> ParseRate(absl::string_view text) {
  absl::string_view t = absl::StripAsciiWhitespace(text);
  PortRate out;
  size_t open = t.find('(');
  if (open != absl::string_view::npos) {
    if (!absl::EndsWith(t, ")")) return Bad(t, "opens a '(' it does not close");
    absl::Status s = ParseLinkWords(t, t.substr(open + 1, t.size() - open - 2), &out);
    if (!s.ok()) return s;
  }
  absl::string_view head = absl::StripTrailingAsciiWhitespace(t.substr(0, open));
  size_t digits = 0;
  while (digits < head.size() && (absl::ascii_isdigit(head[digits]) || head[digits] == '.')) ++digits;
  std::optional<double> gbps = ParseDecimal(head.substr(0, digits));
  std::string unit = absl::AsciiStrToLower(absl::StripLeadingAsciiWhitespace(head.substr(digits)));
  bool unit_ok = unit.empty() || unit == "gb/sec" || unit == "gb/s" || unit == "gbps" || unit == "g";
  if (!gbps || !unit_ok) return Bad(t, absl::StrCat("is not a rate in Gb/s (", kRateForms, ")"));
  out.gbps = *gbps;
  return out;
}

absl::StatusOr<PortRate> RateOfPort(const PortInfo& p) {
  const IbSpeed* code_speed = p.active_speed ? SpeedOfCode(*p.active_speed) : nullptr;
  std::optional<int> code_lanes = p.active_width ? WidthLanes(*p.active_width) : std::nullopt;
  if (p.rate) {
    absl::StatusOr<PortRate> r = ParseRate(*p.rate);
    if (!r.ok()) return absl::InvalidArgumentError(absl::StrCat("rate ", r.status().message()));
    // sysfs always names both; a hand-written profile may not.
    if (!r->lanes) r->lanes = code_lanes;
    if (!r->speed) r->speed = code_speed;
    return r;
  }
  if (!p.active_speed || !p.active_width)
    return absl::NotFoundError("no rate text, and no active_speed and active_width codes");
  if (!code_speed)
    return absl::InvalidArgumentError(absl::StrCat("active_speed ", *p.active_speed,
                                                   " is not an IB speed code (1, 2, 4, ..., 256)"));
  if (!code_lanes)
    return absl::InvalidArgumentError(absl::StrCat("active_width ", *p.active_width,
                                                   " is not an IB width code (1, 2, 4, 8, 16)"));
  PortRate r;
  r.speed = code_speed;
  r.lanes = code_lanes;
  r.gbps = *code_lanes * code_speed->lane_gbps;
  return r;
}

std::string FormatGbps(double gbps) { return absl::StrCat(gbps); }

std::string FormatRate(const PortRate& r) {
  std::string s = absl::StrCat(FormatGbps(r.gbps), " Gb/s");
  if (r.lanes || r.speed) {
    absl::StrAppend(&s, " (", r.lanes ? absl::StrCat(*r.lanes, "X") : "",
                    r.lanes && r.speed ? " " : "", r.speed ? r.speed->name : "", ")");
  }
  return s;
}

}  // namespace rdmacheck
