#include "facts/profile.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/devinfo_import.h"
#include "util/status_macros.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

constexpr absl::string_view kMagic = "rdmacheck-profile";

// ---------------------------------------------------------------------------
// Values: numbers, booleans, strings, tokens.

// A string written bare must come back identical after the reader strips
// the line: no edge whitespace, no control or non-ASCII bytes, not empty,
// and not starting with the quote that would make it a quoted value.
bool NeedsQuotes(absl::string_view s, bool is_token) {
  if (s.empty() || s.front() == '"') return true;
  if (absl::ascii_isspace(s.front()) || absl::ascii_isspace(s.back())) return true;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return true;
    if (is_token && (c == ' ' || c == ']')) return true;
  }
  return false;
}

std::string Quote(absl::string_view s) { return absl::StrCat("\"", absl::CEscape(s), "\""); }

std::string StringValue(absl::string_view s) {
  return NeedsQuotes(s, false) ? Quote(s) : std::string(s);
}

std::string Token(absl::string_view s) {
  return NeedsQuotes(s, true) ? Quote(s) : std::string(s);
}

// Splits `s` into whitespace-separated tokens; a token starting with '"'
// runs to its closing quote and is C-unescaped. Returns an error text
// (empty on success).
std::string SplitTokens(absl::string_view s, std::vector<std::string>* out) {
  size_t i = 0;
  while (true) {
    while (i < s.size() && absl::ascii_isspace(s[i])) ++i;
    if (i >= s.size()) return "";
    if (s[i] == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += (s[j] == '\\') ? 2 : 1;
      if (j >= s.size()) return "unterminated quoted string";
      std::string unescaped, err;
      if (!absl::CUnescape(s.substr(i + 1, j - i - 1), &unescaped, &err))
        return absl::StrCat("bad escape in quoted string: ", err);
      if (j + 1 < s.size() && !absl::ascii_isspace(s[j + 1]))
        return "text right after a closing quote";
      out->push_back(std::move(unescaped));
      i = j + 1;
    } else {
      size_t j = i;
      while (j < s.size() && !absl::ascii_isspace(s[j])) ++j;
      out->emplace_back(s.substr(i, j - i));
      i = j;
    }
  }
}

bool ValidGid(const std::string& s) {
  in6_addr a;
  return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

bool IsPortState(absl::string_view s) {
  return s == "ACTIVE" || s == "DOWN" || s == "INIT" || s == "ARMED" ||
         s == "ACTIVE_DEFER" || s == "NOP";
}

// Attributes that read better in hex: masks and the 2^64-1 "no limit".
bool HexAttr(absl::string_view name) {
  return name == "page_size_cap" || name == "device_cap_flags" ||
         name == "device_cap_flags_ex" || name == "max_mr_size";
}

// ---------------------------------------------------------------------------
// Parser.

enum class Section { kPreamble, kHost, kDevice, kPort, kNetdev, kRuleset };

// The ruleset sources HostInfo::rulesets knows (see device_view.h).
bool IsRulesetSource(absl::string_view s) {
  return s == "nft" || s == "iptables-nft" || s == "iptables-legacy" || s == "ip6tables-nft" ||
         s == "ip6tables-legacy";
}

class Parser {
 public:
  explicit Parser(absl::string_view filename) : file_(filename) {}

  absl::StatusOr<DeviceView> Run(absl::string_view text) {
    view_.source = absl::StrCat("profile:", file_);
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
    // A final newline makes an empty last element: not a line of its own.
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    bool have_version = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      line_ = static_cast<int>(i) + 1;
      absl::string_view l = lines[i];
      absl::ConsumeSuffix(&l, "\r");
      l = absl::StripAsciiWhitespace(l);
      if (l.empty() || l.front() == '#') continue;
      if (!have_version) {
        RDMACHECK_RETURN_IF_ERROR(Version(l));
        have_version = true;
        continue;
      }
      if (l.front() == '[') {
        RDMACHECK_RETURN_IF_ERROR(Header(l));
        continue;
      }
      size_t sp = l.find_first_of(" \t");
      absl::string_view key = l.substr(0, sp);
      absl::string_view rest =
          sp == absl::string_view::npos ? "" : absl::StripAsciiWhitespace(l.substr(sp));
      RDMACHECK_RETURN_IF_ERROR(KeyValue(key, rest));
    }
    if (!have_version) {
      line_ = static_cast<int>(lines.size()) + (lines.empty() ? 1 : 0);
      return Err(kMagic, absl::StrCat("missing version line; the first line that is not "
                                      "a comment must be `", kMagic, " ", kProfileVersion,
                                      "` (empty or truncated file?)"));
    }
    for (auto& [where, known] : gids_known_explicit_)
      view_.devices[where.first].ports[where.second].gids_known = known;
    for (auto& [name, text] : view_.host.rulesets)
      if (!ruleset_final_newline_.count(name) && ruleset_lines_[name] > 0) text.push_back('\n');
    return std::move(view_);
  }

 private:
  absl::Status Err(absl::string_view field, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(file_, ":", line_, ": ", field, ": ", what));
  }

  absl::Status Version(absl::string_view l) {
    std::vector<std::string> t;
    std::string e = SplitTokens(l, &t);
    if (!e.empty() || t.empty() || t[0] != kMagic)
      return Err(kMagic, absl::StrCat("missing version line: expected `", kMagic, " ",
                                      kProfileVersion, "` first, got `", l, "`"));
    uint64_t v = 0;
    if (t.size() != 2 || !ParseUnsigned(t[1], &v))
      return Err(kMagic, absl::StrCat("version must be one number, got `", l, "`"));
    if (v != static_cast<uint64_t>(kProfileVersion))
      return Err(kMagic, absl::StrCat("unsupported version ", t[1],
                                      "; supported versions: ", kProfileVersion));
    return absl::OkStatus();
  }

  absl::Status Header(absl::string_view l) {
    if (l.back() != ']') return Err(l, "section header must end with ']'");
    std::vector<std::string> t;
    std::string e = SplitTokens(l.substr(1, l.size() - 2), &t);
    if (!e.empty()) return Err(l, e);
    if (t.empty()) return Err(l, "empty section header");
    const std::string& kind = t[0];
    seen_.clear();
    if (kind == "host") {
      if (t.size() != 1) return Err("[host]", "takes no name");
      if (host_seen_) return Err("[host]", "duplicate section");
      host_seen_ = true;
      section_ = Section::kHost;
    } else if (kind == "device") {
      if (t.size() != 2) return Err("[device]", "expected [device NAME]");
      if (t[1].empty()) return Err("[device]", "empty device name");
      if (view_.Device(t[1]) != nullptr)
        return Err(absl::StrCat("[device ", t[1], "]"), "duplicate section");
      DeviceInfo d;
      d.name = t[1];
      view_.devices.push_back(std::move(d));
      dev_ = view_.devices.size() - 1;
      section_ = Section::kDevice;
    } else if (kind == "port") {
      if (t.size() != 3) return Err("[port]", "expected [port DEVICE NUMBER]");
      std::string field = absl::StrCat("[port ", t[1], " ", t[2], "]");
      size_t d = 0;
      while (d < view_.devices.size() && view_.devices[d].name != t[1]) ++d;
      if (d == view_.devices.size())
        return Err(field, absl::StrCat("device ", t[1],
                                       " is not declared; put [device ", t[1], "] before it"));
      uint64_t n = 0;
      if (!ParseUnsigned(t[2], &n) || n < 1 || n > 255)
        return Err(field, absl::StrCat("port number must be 1..255, got ", t[2]));
      if (view_.devices[d].Port(static_cast<int>(n)) != nullptr)
        return Err(field, "duplicate section");
      PortInfo p;
      p.port_num = static_cast<int>(n);
      view_.devices[d].ports.push_back(std::move(p));
      dev_ = d;
      port_ = view_.devices[d].ports.size() - 1;
      section_ = Section::kPort;
    } else if (kind == "netdev") {
      if (t.size() != 2) return Err("[netdev]", "expected [netdev NAME]");
      if (t[1].empty()) return Err("[netdev]", "empty netdev name");
      if (view_.Netdev(t[1]) != nullptr)
        return Err(absl::StrCat("[netdev ", t[1], "]"), "duplicate section");
      NetdevInfo n;
      n.name = t[1];
      view_.netdevs.push_back(std::move(n));
      net_ = view_.netdevs.size() - 1;
      section_ = Section::kNetdev;
    } else if (kind == "ruleset") {
      if (t.size() != 2) return Err("[ruleset]", "expected [ruleset SOURCE]");
      std::string field = absl::StrCat("[ruleset ", t[1], "]");
      if (!IsRulesetSource(t[1]))
        return Err(field, "unknown ruleset source; expected nft, iptables-nft, iptables-legacy, "
                          "ip6tables-nft or ip6tables-legacy");
      if (!view_.host.rulesets.emplace(t[1], "").second) return Err(field, "duplicate section");
      ruleset_ = t[1];
      section_ = Section::kRuleset;
    } else {
      return Err(absl::StrCat("[", kind, "]"),
                 "unknown section; expected [host], [device NAME], [port DEVICE N], "
                 "[netdev NAME] or [ruleset SOURCE]");
    }
    return absl::OkStatus();
  }

  // --- value helpers; `key` is the field named in errors.

  absl::Status Once(absl::string_view key) {
    if (!seen_.insert(std::string(key)).second) return Err(key, "given twice in this section");
    return absl::OkStatus();
  }

  absl::Status NeedValue(absl::string_view key, absl::string_view rest) {
    if (rest.empty()) return Err(key, "no value (truncated line?)");
    return absl::OkStatus();
  }

  absl::Status Str(absl::string_view key, absl::string_view rest, std::optional<std::string>* out) {
    RDMACHECK_RETURN_IF_ERROR(Once(key));
    RDMACHECK_ASSIGN_OR_RETURN(std::string v, StrValue(key, rest));
    *out = std::move(v);
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> StrValue(absl::string_view key, absl::string_view rest) {
    RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
    if (rest.front() != '"') return std::string(rest);
    std::vector<std::string> t;
    std::string e = SplitTokens(rest, &t);
    if (!e.empty()) return Err(key, e);
    if (t.size() != 1) return Err(key, "text after the closing quote");
    return t[0];
  }

  absl::StatusOr<uint64_t> U64Value(absl::string_view key, absl::string_view rest,
                                    uint64_t max = UINT64_MAX) {
    RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
    uint64_t v = 0;
    if (!ParseUnsigned(rest, &v))
      return Err(key, absl::StrCat("expected a non-negative number (decimal or 0x hex), got `",
                                   rest, "`"));
    if (v > max) return Err(key, absl::StrCat("value ", rest, " out of range (max ", max, ")"));
    return v;
  }

  absl::Status U64(absl::string_view key, absl::string_view rest, std::optional<uint64_t>* out) {
    RDMACHECK_RETURN_IF_ERROR(Once(key));
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, U64Value(key, rest));
    *out = v;
    return absl::OkStatus();
  }

  absl::Status U32(absl::string_view key, absl::string_view rest, std::optional<uint32_t>* out) {
    RDMACHECK_RETURN_IF_ERROR(Once(key));
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, U64Value(key, rest, UINT32_MAX));
    *out = static_cast<uint32_t>(v);
    return absl::OkStatus();
  }

  absl::Status Int(absl::string_view key, absl::string_view rest, std::optional<int>* out) {
    RDMACHECK_RETURN_IF_ERROR(Once(key));
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, U64Value(key, rest, INT_MAX));
    *out = static_cast<int>(v);
    return absl::OkStatus();
  }

  absl::Status Mtu(absl::string_view key, absl::string_view rest, std::optional<int>* out) {
    RDMACHECK_RETURN_IF_ERROR(Int(key, rest, out));
    if (!IbMtuEnum(**out))
      return Err(key, absl::StrCat(rest, " is not an IB MTU; expected 256, 512, 1024, 2048 or "
                                         "4096 (bytes)"));
    return absl::OkStatus();
  }

  absl::Status Bool(absl::string_view key, absl::string_view rest, std::optional<bool>* out) {
    RDMACHECK_RETURN_IF_ERROR(Once(key));
    RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
    if (rest == "yes") {
      *out = true;
    } else if (rest == "no") {
      *out = false;
    } else {
      return Err(key, absl::StrCat("expected yes or no, got `", rest, "`"));
    }
    return absl::OkStatus();
  }

  absl::Status Memlock(absl::string_view key, absl::string_view rest,
                       std::optional<uint64_t>* out) {
    if (rest == "unlimited") {
      RDMACHECK_RETURN_IF_ERROR(Once(key));
      *out = HostInfo::kUnlimited;
      return absl::OkStatus();
    }
    RDMACHECK_RETURN_IF_ERROR(U64(key, rest, out));
    if (**out == HostInfo::kUnlimited)
      return Err(key, "write `unlimited` rather than 2^64-1");
    return absl::OkStatus();
  }

  // `list` present = known; the bare key = known and empty.
  absl::Status List(absl::string_view key, absl::string_view rest,
                    std::vector<std::string>* out, bool* known) {
    RDMACHECK_RETURN_IF_ERROR(Once(key));
    std::vector<std::string> t;
    std::string e = SplitTokens(rest, &t);
    if (!e.empty()) return Err(key, e);
    std::set<std::string> uniq;
    for (const std::string& s : t)
      if (!uniq.insert(s).second) return Err(key, absl::StrCat("`", s, "` listed twice"));
    *out = std::move(t);
    *known = true;
    return absl::OkStatus();
  }

  // `NAME VALUE` lines (attr, counters): NAME a token, VALUE a number.
  absl::Status Named(absl::string_view key, absl::string_view rest,
                     std::map<std::string, uint64_t>* out) {
    RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
    std::vector<std::string> t;
    std::string e = SplitTokens(rest, &t);
    if (!e.empty()) return Err(key, e);
    if (t.size() != 2) return Err(key, absl::StrCat("expected `", key, " NAME NUMBER`"));
    std::string field = absl::StrCat(key, " ", t[0]);
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, U64Value(field, t[1]));
    if (!out->emplace(t[0], v).second) return Err(field, "given twice");
    return absl::OkStatus();
  }

  absl::Status Unknown(absl::string_view key, absl::string_view where) {
    return Err(key, absl::StrCat("unknown key in ", where, " (see docs/profile-format.md)"));
  }

  absl::Status KeyValue(absl::string_view key, absl::string_view rest) {
    switch (section_) {
      case Section::kPreamble:
        if (key == "provenance") {
          RDMACHECK_ASSIGN_OR_RETURN(std::string v, StrValue(key, rest));
          view_.provenance.push_back(std::move(v));
          return absl::OkStatus();
        }
        return Err(key, "unknown key before the first section; only `provenance` lines may "
                        "come before [host], [device ...], [port ...] or [netdev ...]");
      case Section::kHost:
        return HostKey(key, rest);
      case Section::kDevice:
        return DeviceKey(key, rest);
      case Section::kPort:
        return PortKey(key, rest);
      case Section::kNetdev:
        return NetdevKey(key, rest);
      case Section::kRuleset:
        return RulesetKey(key, rest);
    }
    return absl::OkStatus();
  }

  absl::Status HostKey(absl::string_view key, absl::string_view rest) {
    HostInfo& h = view_.host;
    if (key == "hostname") return Str(key, rest, &h.hostname);
    if (key == "kernel") return Str(key, rest, &h.kernel);
    if (key == "memlock_soft") return Memlock(key, rest, &h.memlock_soft);
    if (key == "memlock_hard") return Memlock(key, rest, &h.memlock_hard);
    if (key == "mem_total") return U64(key, rest, &h.mem_total);
    if (key == "rxe_loaded") return Bool(key, rest, &h.rxe_loaded);
    if (key == "is_root") return Bool(key, rest, &h.is_root);
    if (key == "in_container") return Bool(key, rest, &h.in_container);
    if (key == "container_runtime") {
      RDMACHECK_RETURN_IF_ERROR(Str(key, rest, &h.container_runtime));
      for (const char* rt : {"docker", "podman", "kubernetes", "generic"})
        if (*h.container_runtime == rt) return absl::OkStatus();
      return Err(key, absl::StrCat("expected docker, podman, kubernetes or generic, got `",
                                   *h.container_runtime, "`"));
    }
    if (key == "container_marker") return Str(key, rest, &h.container_marker);
    if (key == "sysfs_infiniband") return Bool(key, rest, &h.sysfs_infiniband);
    if (key == "dev_infiniband") return Bool(key, rest, &h.dev_infiniband);
    if (key == "providers") return List(key, rest, &h.providers, &h.providers_known);
    if (key == "udp4791_socket") return Bool(key, rest, &h.udp4791_socket);
    if (key == "cap_ipc_lock") return Bool(key, rest, &h.cap_ipc_lock);
    if (key == "dev_node") {
      RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
      std::vector<std::string> t;
      std::string e = SplitTokens(rest, &t);
      if (!e.empty()) return Err(key, e);
      if (t.size() != 2) return Err(key, "expected `dev_node NAME STATE` (STATE: rw, missing or the open error)");
      std::string field = absl::StrCat("dev_node ", t[0]);
      if (!h.dev_nodes.emplace(t[0], t[1]).second) return Err(field, "given twice");
      return absl::OkStatus();
    }
    if (key == "sysctl") {
      RDMACHECK_RETURN_IF_ERROR(NeedValue(key, rest));
      std::vector<std::string> t;
      size_t sp = rest.find_first_of(" \t");
      if (rest.front() == '"') {
        // A quoted name: take exactly one token, the rest is the value.
        size_t j = 1;
        while (j < rest.size() && rest[j] != '"') j += (rest[j] == '\\') ? 2 : 1;
        sp = j + 1 < rest.size() ? j + 1 : absl::string_view::npos;
      }
      std::string e = SplitTokens(rest.substr(0, sp), &t);
      if (!e.empty()) return Err(key, e);
      if (t.size() != 1 || sp == absl::string_view::npos)
        return Err(key, "expected `sysctl NAME VALUE`");
      std::string field = absl::StrCat("sysctl ", t[0]);
      RDMACHECK_ASSIGN_OR_RETURN(std::string v,
                                 StrValue(field, absl::StripAsciiWhitespace(rest.substr(sp))));
      if (!h.sysctls.emplace(t[0], std::move(v)).second) return Err(field, "given twice");
      return absl::OkStatus();
    }
    return Unknown(key, "[host]");
  }

  absl::Status DeviceKey(absl::string_view key, absl::string_view rest) {
    DeviceInfo& d = view_.devices[dev_];
    if (key == "driver") return Str(key, rest, &d.driver);
    if (key == "node_type") return Str(key, rest, &d.node_type);
    if (key == "transport") return Str(key, rest, &d.transport);
    if (key == "node_guid") return Str(key, rest, &d.node_guid);
    if (key == "sys_image_guid") return Str(key, rest, &d.sys_image_guid);
    if (key == "fw_ver") return Str(key, rest, &d.fw_ver);
    if (key == "hw_ver") return Str(key, rest, &d.hw_ver);
    if (key == "vendor_id") return U32(key, rest, &d.vendor_id);
    if (key == "vendor_part_id") return U32(key, rest, &d.vendor_part_id);
    if (key == "board_id") return Str(key, rest, &d.board_id);
    if (key == "netdev") return Str(key, rest, &d.netdev);
    if (key == "uverbs") return Str(key, rest, &d.uverbs);
    if (key == "attr") return Named(key, rest, &d.attrs);
    return Unknown(key, absl::StrCat("[device ", d.name, "]"));
  }

  absl::Status PortKey(absl::string_view key, absl::string_view rest) {
    PortInfo& p = view_.devices[dev_].ports[port_];
    if (key == "state") {
      RDMACHECK_RETURN_IF_ERROR(Str(key, rest, &p.state));
      if (!IsPortState(*p.state))
        return Err(key, absl::StrCat("`", *p.state, "` is not a port state; expected ACTIVE, "
                                     "DOWN, INIT, ARMED, ACTIVE_DEFER or NOP"));
      return absl::OkStatus();
    }
    if (key == "phys_state") return Str(key, rest, &p.phys_state);
    if (key == "link_layer") {
      RDMACHECK_RETURN_IF_ERROR(Str(key, rest, &p.link_layer));
      if (*p.link_layer != "Ethernet" && *p.link_layer != "InfiniBand")
        return Err(key, absl::StrCat("`", *p.link_layer,
                                     "` is not a link layer; expected Ethernet or InfiniBand"));
      return absl::OkStatus();
    }
    if (key == "active_mtu") return Mtu(key, rest, &p.active_mtu);
    if (key == "max_mtu") return Mtu(key, rest, &p.max_mtu);
    if (key == "rate") return Str(key, rest, &p.rate);
    if (key == "active_speed") return Int(key, rest, &p.active_speed);
    if (key == "active_width") return Int(key, rest, &p.active_width);
    if (key == "gid_tbl_len") return Int(key, rest, &p.gid_tbl_len);
    if (key == "lid") return Int(key, rest, &p.lid);
    if (key == "sm_lid") return Int(key, rest, &p.sm_lid);
    if (key == "pkey_tbl_len") return Int(key, rest, &p.pkey_tbl_len);
    if (key == "max_msg_sz") return Int(key, rest, &p.max_msg_sz);
    if (key == "hw_counter") return Named(key, rest, &p.hw_counters);
    if (key == "counter") return Named(key, rest, &p.counters);
    if (key == "gids_known") {
      std::optional<bool> b;
      RDMACHECK_RETURN_IF_ERROR(Bool(key, rest, &b));
      gids_known_explicit_[{dev_, port_}] = *b;
      return absl::OkStatus();
    }
    if (key == "gid") return Gid(rest, &p);
    return Unknown(key, absl::StrCat("[port ", view_.devices[dev_].name, " ", p.port_num, "]"));
  }

  absl::Status Gid(absl::string_view rest, PortInfo* p) {
    RDMACHECK_RETURN_IF_ERROR(NeedValue("gid", rest));
    std::vector<std::string> t;
    std::string e = SplitTokens(rest, &t);
    if (!e.empty()) return Err("gid", e);
    if (t.size() < 3 || t.size() > 4)
      return Err("gid", "expected `gid INDEX GID TYPE [NETDEV]`");
    uint64_t index = 0;
    if (!ParseUnsigned(t[0], &index) || index > INT_MAX)
      return Err("gid", absl::StrCat("index must be a non-negative number, got `", t[0], "`"));
    std::string field = absl::StrCat("gid ", index);
    for (const GidEntry& g : p->gids)
      if (g.index == static_cast<int>(index)) return Err(field, "given twice");
    if (!ValidGid(t[1]))
      return Err(field, absl::StrCat("`", t[1], "` is not an IPv6-form GID"));
    std::optional<GidType> type = ParseGidType(t[2]);
    if (!type)
      return Err(field, absl::StrCat("unknown GID type `", t[2],
                                     "`; expected IB, RoCEv1, RoCEv2 or unknown"));
    GidEntry g;
    g.index = static_cast<int>(index);
    g.gid = t[1];
    g.type = *type;
    if (t.size() == 4) g.netdev = t[3];
    p->gids.push_back(std::move(g));
    // A GID line means the table was read, unless `gids_known no` says
    // otherwise (the writer emits that only for such odd views).
    p->gids_known = true;
    return absl::OkStatus();
  }

  absl::Status NetdevKey(absl::string_view key, absl::string_view rest) {
    NetdevInfo& n = view_.netdevs[net_];
    if (key == "mtu") return Int(key, rest, &n.mtu);
    if (key == "operstate") return Str(key, rest, &n.operstate);
    if (key == "ifindex") return Int(key, rest, &n.ifindex);
    if (key == "addrs") return List(key, rest, &n.addrs, &n.addrs_known);
    return Unknown(key, absl::StrCat("[netdev ", n.name, "]"));
  }

  // `line TEXT` appends one line of the ruleset; `final_newline no` says the
  // text did not end with a newline (each line otherwise ends with one).
  absl::Status RulesetKey(absl::string_view key, absl::string_view rest) {
    std::string& text = view_.host.rulesets[ruleset_];
    if (key == "line") {
      if (ruleset_final_newline_.count(ruleset_))
        return Err(key, "after `final_newline no`, which must be the last line of the section");
      if (!text.empty() || ruleset_lines_[ruleset_] > 0) text.push_back('\n');
      ++ruleset_lines_[ruleset_];
      RDMACHECK_ASSIGN_OR_RETURN(std::string v, StrValue(key, rest));
      if (v.find('\n') != std::string::npos) return Err(key, "a line cannot hold a newline");
      text += v;
      return absl::OkStatus();
    }
    if (key == "final_newline") {
      std::optional<bool> b;
      RDMACHECK_RETURN_IF_ERROR(Bool(key, rest, &b));
      if (*b) return Err(key, "only `final_newline no` is written; a final newline is the default");
      ruleset_final_newline_.insert(ruleset_);
      return absl::OkStatus();
    }
    return Unknown(key, absl::StrCat("[ruleset ", ruleset_, "]"));
  }

  std::string file_;
  int line_ = 0;
  std::string ruleset_;
  std::map<std::string, int> ruleset_lines_;
  std::set<std::string> ruleset_final_newline_;
  DeviceView view_;
  Section section_ = Section::kPreamble;
  bool host_seen_ = false;
  size_t dev_ = 0, port_ = 0, net_ = 0;
  std::set<std::string> seen_;
  std::map<std::pair<size_t, size_t>, bool> gids_known_explicit_;
};

// ---------------------------------------------------------------------------
// Writer helpers.

void Put(std::string* out, absl::string_view key, const std::optional<std::string>& v) {
  if (v) absl::StrAppend(out, key, " ", StringValue(*v), "\n");
}
template <typename T>
void PutNum(std::string* out, absl::string_view key, const std::optional<T>& v) {
  if (v) absl::StrAppend(out, key, " ", *v, "\n");
}
void PutBool(std::string* out, absl::string_view key, const std::optional<bool>& v) {
  if (v) absl::StrAppend(out, key, " ", *v ? "yes" : "no", "\n");
}
void PutMemlock(std::string* out, absl::string_view key, const std::optional<uint64_t>& v) {
  if (!v) return;
  if (*v == HostInfo::kUnlimited) {
    absl::StrAppend(out, key, " unlimited\n");
  } else {
    absl::StrAppend(out, key, " ", *v, "\n");
  }
}
void PutList(std::string* out, absl::string_view key, const std::vector<std::string>& v,
             bool known) {
  if (!known) return;
  absl::StrAppend(out, key);
  for (const std::string& s : v) absl::StrAppend(out, " ", Token(s));
  absl::StrAppend(out, "\n");
}

}  // namespace

absl::StatusOr<DeviceView> ParseProfile(absl::string_view text, absl::string_view filename) {
  return Parser(filename).Run(text);
}

std::string WriteProfile(const DeviceView& view) {
  std::string out;
  absl::StrAppend(&out, "# rdmacheck device profile; format: docs/profile-format.md\n");
  absl::StrAppend(&out, kMagic, " ", kProfileVersion, "\n");
  for (const std::string& p : view.provenance)
    absl::StrAppend(&out, "provenance ", StringValue(p), "\n");

  const HostInfo& h = view.host;
  absl::StrAppend(&out, "\n[host]\n");
  Put(&out, "hostname", h.hostname);
  Put(&out, "kernel", h.kernel);
  PutMemlock(&out, "memlock_soft", h.memlock_soft);
  PutMemlock(&out, "memlock_hard", h.memlock_hard);
  PutNum(&out, "mem_total", h.mem_total);
  PutBool(&out, "rxe_loaded", h.rxe_loaded);
  PutBool(&out, "is_root", h.is_root);
  PutBool(&out, "in_container", h.in_container);
  Put(&out, "container_runtime", h.container_runtime);
  Put(&out, "container_marker", h.container_marker);
  PutBool(&out, "sysfs_infiniband", h.sysfs_infiniband);
  PutBool(&out, "dev_infiniband", h.dev_infiniband);
  PutList(&out, "providers", h.providers, h.providers_known);
  for (const auto& [name, value] : h.sysctls)
    absl::StrAppend(&out, "sysctl ", Token(name), " ", StringValue(value), "\n");
  PutBool(&out, "udp4791_socket", h.udp4791_socket);
  PutBool(&out, "cap_ipc_lock", h.cap_ipc_lock);
  for (const auto& [name, state] : h.dev_nodes)
    absl::StrAppend(&out, "dev_node ", Token(name), " ", Token(state), "\n");

  for (const DeviceInfo& d : view.devices) {
    absl::StrAppend(&out, "\n[device ", Token(d.name), "]\n");
    Put(&out, "driver", d.driver);
    Put(&out, "node_type", d.node_type);
    Put(&out, "transport", d.transport);
    Put(&out, "node_guid", d.node_guid);
    Put(&out, "sys_image_guid", d.sys_image_guid);
    Put(&out, "fw_ver", d.fw_ver);
    Put(&out, "hw_ver", d.hw_ver);
    if (d.vendor_id) absl::StrAppend(&out, "vendor_id ", absl::StrFormat("0x%04x", *d.vendor_id), "\n");
    PutNum(&out, "vendor_part_id", d.vendor_part_id);
    Put(&out, "board_id", d.board_id);
    Put(&out, "netdev", d.netdev);
    Put(&out, "uverbs", d.uverbs);
    for (const auto& [name, value] : d.attrs) {
      if (HexAttr(name)) {
        absl::StrAppend(&out, "attr ", Token(name), " ", absl::StrFormat("0x%x", value), "\n");
      } else {
        absl::StrAppend(&out, "attr ", Token(name), " ", value, "\n");
      }
    }
    for (const PortInfo& p : d.ports) {
      absl::StrAppend(&out, "\n[port ", Token(d.name), " ", p.port_num, "]\n");
      Put(&out, "state", p.state);
      Put(&out, "phys_state", p.phys_state);
      Put(&out, "link_layer", p.link_layer);
      PutNum(&out, "active_mtu", p.active_mtu);
      PutNum(&out, "max_mtu", p.max_mtu);
      Put(&out, "rate", p.rate);
      PutNum(&out, "active_speed", p.active_speed);
      PutNum(&out, "active_width", p.active_width);
      PutNum(&out, "gid_tbl_len", p.gid_tbl_len);
      PutNum(&out, "lid", p.lid);
      PutNum(&out, "sm_lid", p.sm_lid);
      PutNum(&out, "pkey_tbl_len", p.pkey_tbl_len);
      PutNum(&out, "max_msg_sz", p.max_msg_sz);
      // Only when it differs from what the gid lines imply (see the doc).
      if (p.gids_known != !p.gids.empty())
        absl::StrAppend(&out, "gids_known ", p.gids_known ? "yes" : "no", "\n");
      for (const GidEntry& g : p.gids) {
        absl::StrAppend(&out, "gid ", g.index, " ", Token(g.gid), " ", GidTypeName(g.type));
        if (!g.netdev.empty()) absl::StrAppend(&out, " ", Token(g.netdev));
        absl::StrAppend(&out, "\n");
      }
      for (const auto& [name, value] : p.hw_counters)
        absl::StrAppend(&out, "hw_counter ", Token(name), " ", value, "\n");
      for (const auto& [name, value] : p.counters)
        absl::StrAppend(&out, "counter ", Token(name), " ", value, "\n");
    }
  }

  for (const NetdevInfo& n : view.netdevs) {
    absl::StrAppend(&out, "\n[netdev ", Token(n.name), "]\n");
    PutNum(&out, "mtu", n.mtu);
    Put(&out, "operstate", n.operstate);
    PutNum(&out, "ifindex", n.ifindex);
    PutList(&out, "addrs", n.addrs, n.addrs_known);
  }
  // Rulesets last: long, and line by line so '#' and '[' in them survive.
  for (const auto& [name, text] : h.rulesets) {
    absl::StrAppend(&out, "\n[ruleset ", name, "]\n");
    if (text.empty()) continue;
    absl::string_view body = text;
    bool final_newline = absl::ConsumeSuffix(&body, "\n");
    for (absl::string_view l : absl::StrSplit(body, '\n'))
      absl::StrAppend(&out, "line ", StringValue(l), "\n");
    if (!final_newline) absl::StrAppend(&out, "final_newline no\n");
  }
  return out;
}

absl::StatusOr<DeviceView> ReadProfileFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return absl::InvalidArgumentError(
        absl::StrCat("ReadProfileFile(", path, "): is a directory, not a profile"));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    if (err == ENOENT)
      return absl::NotFoundError(absl::StrCat("ReadProfileFile(", path, "): no such file"));
    if (err == EACCES)
      return absl::PermissionDeniedError(
          absl::StrCat("ReadProfileFile(", path, "): permission denied"));
    return absl::InternalError(absl::StrCat("ReadProfileFile(", path, "): ", strerror(err)));
  }
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad())
    return absl::InternalError(absl::StrCat("ReadProfileFile(", path, "): read failed"));
  std::string text = buf.str();
  if (LooksLikeIbvDevinfo(text)) return ParseIbvDevinfo(text, path);
  return ParseProfile(text, path);
}

}  // namespace rdmacheck
